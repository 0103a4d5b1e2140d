// Integration: the live OpenSM log of a real ibsim + OpenSM fabric, followed with FileTailer
// and parsed with the OpenSM log parser. Unlinking a leaf's uplink must produce one trap-128
// event carrying that switch's GUID and LID within 2 s, and SUBNET UP records must be parsed.
#include <catch2/catch.hpp>

#include <chrono>
#include <ctime>
#include <sstream>
#include <thread>

#include "ingest/clock.h"
#include "ingest/file_tailer.h"
#include "ingest/opensm_log.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"

using namespace ibw::ingest;
using namespace ibw::lab;

namespace {

// OpenSM logs local time: the machine's current UTC offset.
int local_utc_offset_s() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  return static_cast<int>(tm.tm_gmtoff);
}

struct Seen {
  std::vector<OsmRecord> records;
  std::vector<Event> events;
};

// Reads what the tailer has and parses it.
void pump(FileTailer& tailer, Seen& seen) {
  OsmLogContext ctx{SystemClock().now_us(), local_utc_offset_s()};
  for (const auto& line : tailer.poll()) {
    auto record = parse_opensm_line(line.text, ctx);
    if (!record) continue;
    seen.records.push_back(*record);
    if (auto event = to_event(*record)) {
      event->dedup_key = "opensm:" + line.after.serialize();
      seen.events.push_back(*event);
    }
  }
}

int count_kind(const Seen& seen, std::string_view kind) {
  int n = 0;
  for (const auto& e : seen.events) n += e.kind == kind;
  return n;
}

}  // namespace

TEST_CASE("opensm log lab: trap 128 for an unlinked leaf port - SUBNET UP", "[opensm][lab]") {
  FatTreeSpec spec;
  spec.leaves = 2;
  spec.spines = 2;
  spec.hosts_per_leaf = 2;
  Lab lab = make_fat_tree(spec);
  int leaf = -1, uplink = 0;
  for (size_t i = 0; i < lab.nodes.size(); ++i)
    if (lab.nodes[i].name == "leaf001") leaf = static_cast<int>(i);
  REQUIRE(leaf >= 0);
  for (const auto& w : lab.wires) {
    if (w.a.node == leaf && lab.nodes[w.b.node].tier == 2) uplink = w.a.port;
    if (w.b.node == leaf && lab.nodes[w.a.node].tier == 2) uplink = w.b.port;
  }
  REQUIRE(uplink > 0);
  const uint64_t leaf_guid = lab.nodes[leaf].guid;

  SimLab sim({to_ibsim_net(lab)});
  FileTailer tailer(sim.dir() + "/opensm.log", std::nullopt);
  Seen seen;
  pump(tailer, seen);
  CHECK(tailer.error().empty());
  REQUIRE(count_kind(seen, kind::subnet_up) >= 1);  // SimLab waited for it

  // The switch's LID, independently of the log.
  auto addr = sim.run({"ibaddr", "-G", "0x" + [&] {
                         std::ostringstream s;
                         s << std::hex << leaf_guid;
                         return s.str();
                       }()});
  REQUIRE(addr.status == 0);
  size_t at = addr.out.find("LID start 0x");
  REQUIRE(at != std::string::npos);
  const auto leaf_lid = static_cast<uint16_t>(std::stoul(addr.out.substr(at + 12), nullptr, 16));

  const size_t before = seen.events.size();
  const int ups_before = count_kind(seen, kind::subnet_up);
  sim.console("Unlink \"leaf001\"[" + std::to_string(uplink) + "]");
  const auto sent = std::chrono::steady_clock::now();
  const int64_t sent_us = SystemClock().now_us();
  std::optional<Event> trap;
  std::chrono::milliseconds waited{0};
  while (!trap && std::chrono::steady_clock::now() - sent < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pump(tailer, seen);
    for (size_t i = before; i < seen.events.size() && !trap; ++i)
      if (seen.events[i].kind == kind::trap && seen.events[i].node_guid == leaf_guid)
        trap = seen.events[i];
    waited = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - sent);
  }
  INFO("OpenSM log:\n" << sim.opensm_log());
  REQUIRE(trap);
  CHECK(waited <= std::chrono::seconds(2));
  CHECK(trap->trap_number == 128);
  CHECK(trap->lid == leaf_lid);
  CHECK(trap->severity == Severity::warning);
  CHECK(trap->source == EventSource::opensm);
  CHECK(trap->time_us >= sent_us - 1'000'000);  // year and UTC offset resolved
  CHECK(trap->time_us <= SystemClock().now_us() + 1'000'000);
  CHECK_FALSE(trap->dedup_key.empty());

  // The resweep that follows comes up again; one event per physical trap: as many trap
  // events for the leaf as log_trap_info lines from its LID.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (count_kind(seen, kind::subnet_up) <= ups_before &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pump(tailer, seen);
  }
  CHECK(count_kind(seen, kind::subnet_up) > ups_before);
  int trap_lines = 0, trap_events = 0;
  for (const auto& r : seen.records)
    trap_lines += r.kind == OsmRecordKind::trap && r.trap_number == 128 && r.lid == leaf_lid;
  for (const auto& e : seen.events)
    trap_events += e.kind == kind::trap && e.node_guid == leaf_guid && e.lid == leaf_lid;
  CHECK(trap_lines >= 1);
  CHECK(trap_events == trap_lines);
}
