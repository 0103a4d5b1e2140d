// Integration: `ibwarden route check` and the daemon's re-check on a ring of four switches
// (one host each) on real ibsim + OpenSM.
//  - `-R updn` without a root file: OpenSM logs "disabling UPDN algorithm, no root nodes were
//    found" and programs minhop; the check exits 1 with credit loops and the fallback, and the
//    daemon stores credit_loop and routing_fallback events (once each, however often the
//    dump is reloaded).
//  - `-R updn -a ROOTS` (one switch GUID): no credit loop, no fallback, exit 0.
//  - `-R minhop -Q` with SL 0 on VL 1 at the switch ports: the same loops, on VL 1, from
//    opensm-sl2vl.dump and from the tables read live (ibsim answers SLtoVLMappingTable);
//    the daemon's credit_loop events name VL 1.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/daemon_fixture.h"
#include "tests/lab/daemon_config.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using nlohmann::json;
using namespace ibw::test;
using namespace std::chrono_literals;

namespace route_check_lab {

constexpr const char* kRootGuid = "0x0002c90300000101";  // sw1

// H1 first: OpenSM runs on the first node of the net file.
std::string ring_net() {
  std::string out;
  for (int i = 1; i <= 4; ++i)
    out += "caguid=0x0002c9030000020" + std::to_string(i) + "\nHca\t1 \"H" + std::to_string(i) +
           "\"\n[1]\t\"sw" + std::to_string(i) + "\"[1]\n\n";
  for (int i = 1; i <= 4; ++i) {
    int next = i % 4 + 1, prev = (i + 2) % 4 + 1;
    out += "switchguid=0x0002c9030000010" + std::to_string(i) + "\nSwitch\t3 \"sw" +
           std::to_string(i) + "\"\n[1]\t\"H" + std::to_string(i) + "\"[1]\n[2]\t\"sw" +
           std::to_string(next) + "\"[3]\n[3]\t\"sw" + std::to_string(prev) + "\"[2]\n\n";
  }
  return out;
}

// A lab routed by `-R updn` (plus extra OpenSM arguments) whose LFT dump is written.
ibw::lab::SimLabOptions ring_options(std::vector<std::string> extra) {
  ibw::lab::SimLabOptions o{ring_net()};
  o.opensm_args = {"-R", "updn", "-D", "0x43"};  // ERROR + INFO + ROUTING: opensm-lfts.dump
  o.opensm_args.insert(o.opensm_args.end(), extra.begin(), extra.end());
  return o;
}

std::string write_config(const ibw::lab::SimLab& sim) {
  std::string config = sim.dir() + "/ibwarden.yaml";
  ibw::lab::DaemonConfig()
      .set("fabric", "discovery", "live")
      .set("opensm",
           {{"log", sim.dir() + "/opensm.log"}, {"dump_dir", sim.dir()}, {"poll", "100ms"}})
      .set("counters", "enabled", "false")
      .set("store", "path", sim.dir() + "/ibwarden.db")
      .set("rules", "file", shipped_rules())
      .write(config);
  return config;
}

void wait_dump(const ibw::lab::SimLab& sim) {
  REQUIRE(sim.wait_for_log("tables configured on all switches", 1, 60s));
  for (int i = 0; i < 100 && !std::filesystem::exists(sim.dir() + "/opensm-lfts.dump"); ++i)
    std::this_thread::sleep_for(100ms);
  REQUIRE(std::filesystem::exists(sim.dir() + "/opensm-lfts.dump"));
}

}  // namespace route_check_lab

using namespace route_check_lab;

TEST_CASE("route check lab: updn without a root falls back to minhop with credit loops",
          "[integration][route_check]") {
  ibw::lab::SimLab sim(ring_options({}));
  wait_dump(sim);
  REQUIRE(sim.opensm_log().find("disabling UPDN algorithm, no root nodes were found") !=
          std::string::npos);
  std::string config = write_config(sim);
  auto r = sim.run({IBW_BINARY, "route", "check", "--config", config, "--format", "json"});
  INFO(r.err);
  REQUIRE(r.status == 1);
  json j = json::parse(r.out);
  REQUIRE(j["credit_loops"].size() >= 1);
  for (const auto& loop : j["credit_loops"]) {
    REQUIRE(loop["links"].size() == 4);  // around the ring
    for (const auto& l : loop["links"]) {
      CHECK(l["from"]["node"].get<std::string>().rfind("sw", 0) == 0);
      CHECK(l["to"]["node"].get<std::string>().rfind("sw", 0) == 0);
    }
  }
  CHECK(j["engine"] == "minhop");
  CHECK(j["configured_engine"] == "updn");
  CHECK(j["fallback"] == true);
  CHECK(j["unreachable_pairs"] == 0);
  CHECK(j["sources"] == 4);
  auto text = sim.run({IBW_BINARY, "route", "check", "--config", config});
  CHECK(text.status == 1);
  CHECK(text.out.find("FALLBACK from updn") != std::string::npos);

  Daemon d({config, sim.dir(), sim.sockname(), sim.dir() + "/daemon.log"});
  d.start();
  bool checked = d.wait_log("\"route check\"", 1, 60s);
  INFO(d.log());
  REQUIRE(checked);
  auto kinds = [](const json& all) {
    std::map<std::string, int> n;
    for (const auto& e : all) ++n[e["kind"].get<std::string>()];
    return n;
  };
  auto events = wait_query(
      "events", config, {},
      [&](const json& all) {
        auto n = kinds(all);
        return n["credit_loop"] >= 1 && n["routing_fallback"] == 1;
      },
      30s);
  size_t loops = j["credit_loops"].size();
  // Re-writing the same dump (a new mtime) re-runs the check but reports nothing new.
  std::filesystem::last_write_time(sim.dir() + "/opensm-lfts.dump",
                                   std::filesystem::file_time_type::clock::now());
  REQUIRE(d.wait_log("\"route check\"", 2, 30s));
  std::this_thread::sleep_for(1s);
  auto again = wait_query(
      "events", config, {}, [](const json&) { return true; }, 10s);
  CHECK(kinds(again)["credit_loop"] == static_cast<int>(loops));
  CHECK(kinds(again)["routing_fallback"] == 1);
  CHECK(d.stop() == 0);
}

TEST_CASE("route check lab: updn with a root file has no credit loop",
          "[integration][route_check]") {
  std::string roots =
      std::filesystem::temp_directory_path() / ("ibw-roots-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(roots) << kRootGuid << "\n";
  ibw::lab::SimLab sim(ring_options({"-a", roots}));
  wait_dump(sim);
  std::string config = write_config(sim);
  auto r = sim.run({IBW_BINARY, "route", "check", "--config", config, "--format", "json"});
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  json j = json::parse(r.out);
  CHECK(j["credit_loops"].empty());
  CHECK(j["engine"] == "updn");
  CHECK(j["fallback"] == false);
  CHECK(j["unreachable_pairs"] == 0);
  std::filesystem::remove(roots);
}

TEST_CASE("route check lab: QoS SL-to-VL tables put the minhop loops on their VL",
          "[integration][route_check][sl2vl]") {
  // OpenSM -Q with switch external ports mapping SL 0 to VL 1 writes opensm-sl2vl.dump (as in
  // tests/data/routing/opensm-sl2vl.dump) and programs the tables, which ibsim answers.
  std::string conf =
      std::filesystem::temp_directory_path() / ("ibw-qos-" + std::to_string(::getpid()) + ".conf");
  std::ofstream(conf) << "qos TRUE\nqos_swe_sl2vl 1,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\n";
  ibw::lab::SimLab sim(ring_options({"-R", "minhop", "-Q", "-F", conf}));
  wait_dump(sim);
  for (int i = 0; i < 100 && !std::filesystem::exists(sim.dir() + "/opensm-sl2vl.dump"); ++i)
    std::this_thread::sleep_for(100ms);
  REQUIRE(std::filesystem::exists(sim.dir() + "/opensm-sl2vl.dump"));
  std::string config = write_config(sim);
  auto dump = sim.run({IBW_BINARY, "route", "check", "--config", config, "--format", "json"});
  auto live = sim.run(
      {IBW_BINARY, "route", "check", "--config", config, "--format", "json", "--live-lfts"});
  INFO(dump.err << live.err);
  REQUIRE(dump.status == 1);
  REQUIRE(live.status == 1);
  for (const auto& [source, run] : {std::pair{"opensm-sl2vl.dump", dump}, {"live", live}}) {
    json j = json::parse(run.out);
    INFO(source);
    CHECK(j["virtual_lanes"]["source"] == source);
    CHECK(j["virtual_lanes"]["count"] == 2);
    CHECK(j["virtual_lanes"]["switches"] == 4);
    CHECK(j["virtual_lanes"]["sl_source"] == "sl0");
    REQUIRE(j["credit_loops"].size() >= 1);
    for (const auto& loop : j["credit_loops"]) {
      CHECK(loop["vls"] == json::array({1}));
      for (const auto& l : loop["links"]) CHECK(l["vl"] == 1);
    }
  }
  CHECK(json::parse(dump.out)["credit_loops"] == json::parse(live.out)["credit_loops"]);
  auto text = sim.run({IBW_BINARY, "route", "check", "--config", config});
  CHECK(text.out.find("virtual lanes: 2 (SL-to-VL tables: opensm-sl2vl.dump, 4 switches") !=
        std::string::npos);
  CHECK(text.out.find("(VL 1)") != std::string::npos);
  // The daemon's watcher loads the same tables: its credit_loop events name VL 1.
  Daemon d({config, sim.dir(), sim.sockname(), sim.dir() + "/daemon.log"});
  d.start();
  REQUIRE(d.wait_log("\"SL-to-VL tables loaded\"", 1, 60s));
  auto on_vl1 = [](const json& all) {
    for (const auto& e : all)
      if (e["kind"] == "credit_loop" &&
          e["message"].get<std::string>().find("(VL 1)") != std::string::npos)
        return true;
    return false;
  };
  json events = wait_query("events", config, {}, on_vl1, 60s);
  INFO(d.log());
  CHECK(on_vl1(events));
  CHECK(d.stop() == 0);
  std::filesystem::remove(conf);
}
