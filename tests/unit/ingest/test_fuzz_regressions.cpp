// Regression tests for what the libFuzzer harnesses (fuzz/, scripts/fuzz.sh) found: each case
// is the input that crashed (or a minimal equivalent) and the behaviour the fix gives.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "fabric/diagnostics.h"
#include "fabric/ibnd_loader.h"
#include "ingest/ufm/events.h"
#include "ingest/ufm/resources.h"
#include "ingest/ufm/telemetry.h"

namespace fuzz_regression {

constexpr int64_t kNow = int64_t{1'795'000'000} * 1'000'000;

// fuzz_ufm_telemetry: a timestamp beyond int64 microseconds was cast to int64 (UB; on x86 the
// sample got INT64_MIN as its time). Such a time is unusable: the sample takes now_us.
TEST_CASE("fuzz regression: telemetry timestamps too large for int64 microseconds",
          "[fuzz][ufm][telemetry]") {
  using namespace ibw::ingest;
  TelemetryParse csv = parse_telemetry_csv(
      "timestamp,node_guid,port_num,Infiniband_SymbolErrors\n"
      "170928840007092800000,0x9c0591030090e000,1,5\n"
      "1709288400123456,0x9c0591030090e000,2,6\n",
      kNow);
  REQUIRE(csv.ok);
  REQUIRE(csv.samples.size() == 2);
  CHECK(csv.samples[0].time_us == kNow);
  CHECK(csv.samples[1].time_us == 1709288400123456);

  TelemetryParse prom = parse_telemetry_prometheus(
      "Infiniband_SymbolErrors{node_guid=\"0x9c0591030090e000\",port_num=\"1\"} 5 1e300\n"
      "Infiniband_SymbolErrors{node_guid=\"0x9c0591030090e000\",port_num=\"2\"} 6 9.3e18\n",
      kNow);
  REQUIRE(prom.ok);
  REQUIRE(prom.samples.size() == 2);
  CHECK(prom.samples[0].time_us == kNow);
  CHECK(prom.samples[1].time_us == kNow);
}

// fuzz_ufm_events: an integer field written as a float beyond int64 ("id": 1.7e33) was cast
// to int64 (UB). It now counts as no integer: the record has no id.
TEST_CASE("fuzz regression: UFM JSON integers given as huge floats", "[fuzz][ufm]") {
  using namespace ibw::ingest;
  UfmTimeContext tc;
  CHECK_FALSE(parse_ufm_event(R"([{"id": 1777777777770298522746056547442227, "name": "x"}])", tc));
  CHECK_FALSE(parse_ufm_event(R"({"id": -1e300})", tc));
  auto one = parse_ufm_event(R"({"id": 42.0, "event_type": 1e30, "name": "Link went down"})", tc);
  REQUIRE(one);
  CHECK(one->id == 42);
  CHECK(one->type == 0);

  UfmParsed<UfmAlarm> alarms = parse_ufm_alarms(
      R"([{"id": 1e30, "event_type": 329}, {"id": 7, "event_type": 1e300, "event_count": 3e40}])",
      tc);
  REQUIRE(alarms.ok);
  CHECK(alarms.skipped == 1);
  REQUIRE(alarms.items.size() == 1);
  CHECK(alarms.items[0].id == 7);
  CHECK(alarms.items[0].event_type == 0);
  CHECK(alarms.items[0].event_count == 0);
}

// A cache as ibnd_cache_fabric writes it: one CA (GUID 0x10) with port 1 (GUID 0x11, LID 5).
// Offsets as in libibnetdisc's ibnetdisc_cache.c (see cache_problem in ibnd_loader.cpp).
struct CacheBytes {
  uint8_t key_port = 1;  // the port number the node lists
  uint8_t lmc = 0;
  bool extra_port = false;  // a second port record no node lists
  // What ibnd_cache_fabric writes after a partial discovery: a key for port 2, whose record
  // is missing, and a link from port 1 to a port not in the file.
  bool dangling = false;

  std::string bytes() const {
    std::string b;
    auto put = [&](uint64_t v, int n) {
      for (int i = 0; i < n; ++i) b.push_back(static_cast<char>(v >> (8 * i)));
    };
    put(0x8FE7832B, 4), put(1, 4), put(1, 4), put(extra_port ? 2 : 1, 4), put(0x10, 8), put(0, 4);
    put(0, 4), b.append(64, '\0');                      // smalid, smalmc, enhsp0; switchinfo
    put(0x10, 8), put(1, 1), put(dangling ? 2 : 1, 1);  // GUID, type CA, port count
    b.append(64, '\0');                                 // NodeInfo
    std::string desc = "host01 mlx5_0";
    desc.resize(64, '\0');
    b += desc;
    put(dangling ? 2 : 1, 1), put(0x11, 8), put(key_port, 1);  // port keys
    if (dangling) put(0x12, 8), put(2, 1);
    for (int p = 0; p < (extra_port ? 2 : 1); ++p) {
      put(0x11 + p, 8), put(1, 1), put(0, 1), put(5 + p, 2), put(lmc, 1);
      b.append(64, '\0');  // PortInfo
      put(0x10, 8);        // node GUID
      if (dangling)
        put(1, 1), put(0x99, 8), put(3, 1);  // a remote port the file does not hold
      else
        put(0, 1), put(0, 8), put(0, 1);  // no remote port
    }
    return b;
  }
};

std::string write_cache(const std::string& bytes) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("ibw-fuzz-regression-" + std::to_string(getpid()) + ".cache"))
                         .string();
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

std::string cache_error(const CacheBytes& c) {
  std::string path = write_cache(c.bytes());
  std::string what;
  try {
    ibw::fabric::load_ibnd_cache(path);
  } catch (const ibw::fabric::InputError& e) {
    what = e.what();
  }
  std::filesystem::remove(path);
  return what;
}

// fuzz_ibnd_cache: libibnetdisc (rdma-core 44) trusts cache files. A port number above the
// node's port count made ibnd_load_fabric write past node->ports (an invalid free followed),
// a port no node lists was freed while the fabric kept it, and an LMC of 54 made it index
// 2^54 LIDs (out of memory). load_ibnd_cache now rejects such files before libibnetdisc
// reads them.
TEST_CASE("fuzz regression: malformed ibnetdiscover caches are refused before libibnetdisc",
          "[fuzz][fabric][ibnd]") {
  std::string path = write_cache(CacheBytes{}.bytes());
  ibw::fabric::Fabric f = ibw::fabric::load_ibnd_cache(path);
  std::filesystem::remove(path);
  REQUIRE(f.nodes().size() == 1);
  CHECK(f.nodes()[0].guid == 0x10);
  CHECK(f.nodes()[0].ports.at(1).lid == 5);

  CHECK(cache_error(CacheBytes{2, 0, false}).find("bad or repeated port 2") != std::string::npos);
  CHECK(cache_error(CacheBytes{1, 54, false}).find("LMC above 7") != std::string::npos);
  CHECK(cache_error(CacheBytes{1, 0, true}).find("not listed once") != std::string::npos);
  CHECK(cache_error(CacheBytes{1, 7, false}).empty());  // LMC 7 is the largest there is
  std::string truncated = CacheBytes{}.bytes();
  truncated.resize(truncated.size() - 1);
  std::string tpath = write_cache(truncated);
  CHECK_THROWS_AS(ibw::fabric::load_ibnd_cache(tpath), ibw::fabric::InputError);
  std::filesystem::remove(tpath);
}

// Live discovery over a lossy link: a port query times out, and libibnetdisc's own cache then
// names a port it does not hold (its loader refuses such a file). The loader keeps what was
// discovered instead of failing `ibwarden probe` and the daemon's re-discovery.
TEST_CASE("ibnd cache: dangling references of a partial discovery are dropped - not fatal",
          "[fabric][ibnd]") {
  CacheBytes partial;
  partial.dangling = true;
  std::string path = write_cache(partial.bytes());
  ibw::fabric::Fabric f = ibw::fabric::load_ibnd_cache(path);
  std::filesystem::remove(path);
  REQUIRE(f.nodes().size() == 1);
  const auto& ports = f.nodes()[0].ports;
  REQUIRE(ports.size() == 3);
  CHECK(ports[1].present);
  CHECK(ports[1].lid == 5);
  CHECK_FALSE(ports[1].has_peer());
  CHECK_FALSE(ports[2].present);
  CHECK(f.link_count() == 0);
  for (const auto& e : std::filesystem::directory_iterator("/tmp"))  // the repaired copy is gone
    CHECK(e.path().filename().string().rfind("ibwarden-cache.", 0) != 0);
}

}  // namespace fuzz_regression
