// Integration: the pipelined PMA counter poller on a real ibsim + OpenSM fat tree. The poller
// must run under umad2sim, so the test drives it through ibw-bench-counter_sweep (JSON lines)
// and feeds the samples to an in-process CounterTracker. Counters are set with ibsim's
// PerformanceSet console command; ibsim's `Error` command makes a port drop every MAD.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "ingest/counter_tracker.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using namespace ibw::lab;
using nlohmann::json;
namespace ingest = ibw::ingest;

namespace {

// <build>/cli/ibwarden -> <build>/bench/ibw-bench-counter_sweep (not a declared dependency of
// the test binary: build the target, or everything, first).
std::string sweep_binary() {
  return (std::filesystem::path(IBW_BINARY).parent_path().parent_path() / "bench" /
          "ibw-bench-counter_sweep")
      .string();
}

struct Run {
  std::vector<json> samples, unresponsive, failed, events;
  json summary, discovery;
};

// ibsim hands a dropped MAD back at once with status ETIMEDOUT (as the kernel does after the
// timeout), so a long timeout costs nothing and keeps a loaded machine from faking silence.
Run sweep(const SimLab& sim, std::vector<std::string> args) {
  std::vector<std::string> argv = {sweep_binary(), "--timeout-ms", "2000"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = sim.run(argv, "", std::chrono::seconds(60));
  INFO("ibw-bench-counter_sweep stderr: " << r.err);
  REQUIRE(r.status == 0);
  Run out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line);
    std::string type = j["type"];
    if (type == "sample") out.samples.push_back(j);
    if (type == "unresponsive") out.unresponsive.push_back(j);
    if (type == "failed") out.failed.push_back(j);
    if (type == "event") out.events.push_back(j);
    if (type == "summary") out.summary = j;
    if (type == "discovery") out.discovery = j;
  }
  REQUIRE(out.summary.is_object());
  return out;
}

uint64_t guid_of(const json& j) {
  return std::stoull(j["guid"].get<std::string>(), nullptr, 16);
}

ingest::CounterSample to_sample(const json& j) {
  ingest::CounterSample s;
  s.time_us = j["time_us"];
  s.node_guid = guid_of(j);
  s.port = j["port"];
  s.extended = j["extended"];
  for (auto& [name, value] : j["counters"].items()) {
    auto c = ingest::parse_counter(name);
    REQUIRE(c);
    auto i = static_cast<unsigned>(*c);
    s.value[i] = value.get<uint64_t>();
    s.valid |= 1u << i;
  }
  for (const auto& name : j["saturated"]) {
    s.saturated |= 1u << static_cast<unsigned>(*ingest::parse_counter(name.get<std::string>()));
  }
  return s;
}

const json* find_port(const Run& r, const std::string& node, int port) {
  for (const auto& s : r.samples)
    if (s.value("node", "") == node && s["port"] == port) return &s;
  return nullptr;
}

std::vector<ingest::Event> track(ingest::CounterTracker& tracker, const Run& r) {
  std::vector<ingest::Event> events;
  for (const auto& s : r.samples) tracker.update(to_sample(s), &events);
  for (const auto& u : r.unresponsive)
    tracker.unresponsive(guid_of(u), u["port"], r.summary["started_us"], &events);
  return events;
}

std::vector<ingest::Event> of_kind(const std::vector<ingest::Event>& events,
                                   std::string_view kind) {
  std::vector<ingest::Event> out;
  for (const auto& e : events)
    if (e.kind == kind) out.push_back(e);
  return out;
}

// ibsim reads its console between packets; a new client process connects long after the write,
// but give it a moment anyway.
void settle() {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

}  // namespace

TEST_CASE("counters: pipelined sweep of a live fat tree", "[integration][counters]") {
  REQUIRE(std::filesystem::exists(sweep_binary()));
  FatTreeSpec spec;
  spec.leaves = 4, spec.spines = 2, spec.hosts_per_leaf = 4;  // 22 nodes, 24 links
  Lab lab = make_fat_tree(spec);
  SimLab sim({to_ibsim_net(lab)});
  std::string cache = sim.dir() + "/fabric.cache";
  REQUIRE(sim.run({"ibnetdiscover", "--cache", cache}).status == 0);

  // Every linked port answers; both ends of the 24 links are targets.
  Run first = sweep(sim, {"--all", "--window", "16"});
  CHECK(first.discovery["targets"] == 48);
  CHECK(first.samples.size() == 48);
  CHECK(first.unresponsive.empty());
  CHECK(first.failed.empty());
  std::set<int> lids;
  for (const auto& s : first.samples) {
    lids.insert(s["lid"].get<int>());
    CHECK(s["extended"] == true);                   // ibsim's PMA advertises CapabilityMask bit 9
    CHECK(s["counters"].contains("PortXmitWait"));  // ... and bit 12
  }
  const json& sum = first.summary;
  CHECK(sum["class_port_info"] == lids.size());     // once per LID
  CHECK(sum["mads_sent"] == lids.size() + 2 * 48);  // + PortCounters and PortCountersExtended
  CHECK(sum["retries"] == 0);
  // Pipelining: the window is filled (22 ClassPortInfo queries are ready at once).
  CHECK(sum["max_outstanding"] == 16);
  Run serial = sweep(sim, {"--cache", cache, "--window", "1", "--quiet"});
  CHECK(serial.summary["samples"] == 48);
  CHECK(serial.summary["max_outstanding"] == 1);

  const json* leaf_port = find_port(first, "leaf002", 3);
  REQUIRE(leaf_port);
  int leaf_lid = (*leaf_port)["lid"];
  // A port of leaf002 with no cable: no traffic moves its counters.
  int leaf = -1;
  for (size_t n = 0; n < lab.nodes.size(); ++n)
    if (lab.nodes[n].name == "leaf002") leaf = static_cast<int>(n);
  REQUIRE(leaf >= 0);
  int spare = lab.nodes[leaf].ports;
  REQUIRE(find_port(first, "leaf002", spare) == nullptr);

  ingest::CounterTracker tracker;
  CHECK(track(tracker, first).empty());

  // Exact values, saturation, 64-bit extended data, a jump and a reset. (One flow rather than
  // SECTIONs: each SECTION would start its own simulator.)
  {
    std::string p = "PerformanceSet \"leaf002\"[3] PortCounters.";
    for (const char* field :
         {"SymbolErrorCounter=500", "LinkErrorRecoveryCounter=3", "LinkDownedCounter=7",
          "PortRcvErrors=42", "PortRcvRemotePhysicalErrors=11", "PortXmitDiscards=9",
          "PortXmitConstraintErrors=2", "PortRcvConstraintErrors=1", "LocalLinkIntegrityErrors=15",
          "ExcessiveBufferOverrunErrors=4", "VL15Dropped=6"})
      sim.console(p + field);
    std::string q = "PerformanceSet \"leaf002\"[" + std::to_string(spare) + "] ";
    sim.console(q + "PortCounters.PortXmitData=1234");
    sim.console(q + "PortCountersExtended.PortXmitData=5000000000");
    sim.console(q + "PortCountersExtended.PortRcvPkts=4294967301");
    settle();

    Run second = sweep(sim, {"--cache", cache, "--window", "16"});
    CHECK(second.summary["class_port_info"] == lids.size());  // a new process: cold cache
    const json* s = find_port(second, "leaf002", 3);
    REQUIRE(s);
    const json& c = (*s)["counters"];
    CHECK(c["SymbolErrorCounter"] == 500);
    CHECK(c["LinkErrorRecoveryCounter"] == 3);
    CHECK(c["LinkDownedCounter"] == 7);
    CHECK(c["PortRcvErrors"] == 42);
    CHECK(c["PortRcvRemotePhysicalErrors"] == 11);
    CHECK(c["PortXmitDiscards"] == 9);
    CHECK(c["PortXmitConstraintErrors"] == 2);
    CHECK(c["PortRcvConstraintErrors"] == 1);
    CHECK(c["LocalLinkIntegrityErrors"] == 15);
    CHECK(c["ExcessiveBufferOverrunErrors"] == 4);
    CHECK(c["VL15Dropped"] == 6);
    CHECK((*s)["saturated"] == json::array({"LocalLinkIntegrityErrors"}));  // 4-bit at 15

    Run wide = sweep(sim, {"--lid", std::to_string(leaf_lid), "--port", std::to_string(spare)});
    REQUIRE(wide.samples.size() == 1);
    CHECK(wide.samples[0]["extended"] == true);
    CHECK(wide.samples[0]["counters"]["PortXmitData"] == 5000000000ull);  // not the 32-bit 1234
    CHECK(wide.samples[0]["counters"]["PortRcvPkts"] == 4294967301ull);
    CHECK(wide.samples[0]["saturated"].empty());
    // A port the switch does not have: its PMA answers with an error status.
    Run bad = sweep(sim, {"--lid", std::to_string(leaf_lid), "--port", "3,99"});
    CHECK(bad.samples.size() == 1);
    REQUIRE(bad.failed.size() == 1);
    CHECK(bad.failed[0]["port"] == 99);
    CHECK(bad.unresponsive.empty());

    auto events = track(tracker, second);
    auto jumps = of_kind(events, ingest::kind::counter_jump);
    REQUIRE(jumps.size() == 1);  // only SymbolErrorCounter crossed the default threshold of 100
    CHECK(jumps[0].node_guid == guid_of(*s));
    CHECK(jumps[0].port == 3);
    CHECK(jumps[0].severity == ingest::Severity::warning);
    CHECK(jumps[0].message.find("SymbolErrorCounter rose by 500") != std::string::npos);
    CHECK(of_kind(events, ingest::kind::counter_reset).empty());

    // Someone clears the counter to a lower value: a reset, not a negative delta.
    sim.console(p + "SymbolErrorCounter=20");
    settle();
    Run third = sweep(sim, {"--cache", cache});
    events = track(tracker, third);
    auto resets = of_kind(events, ingest::kind::counter_reset);
    REQUIRE(resets.size() == 1);
    CHECK(resets[0].node_guid == guid_of(*s));
    CHECK(resets[0].port == 3);
    CHECK(resets[0].message.find("SymbolErrorCounter 500 -> 20") != std::string::npos);
    CHECK(of_kind(events, ingest::kind::counter_jump).empty());
  }

  // A port that drops every MAD is unresponsive while the others answer.
  {
    const json* host = find_port(first, "node0006 mlx5_0", 1);
    REQUIRE(host);
    sim.console("Error \"node0006 mlx5_0\"[1] 100");  // the rate is a percentage
    settle();
    std::vector<std::string> args = {"--cache", cache, "--retries", "1"};
    Run dark = sweep(sim, args);
    REQUIRE(dark.unresponsive.size() == 1);
    CHECK(dark.unresponsive[0]["guid"] == (*host)["guid"]);
    CHECK(dark.unresponsive[0]["port"] == 1);
    CHECK(dark.samples.size() == 47);
    CHECK(dark.summary["retries"].get<int>() >= 1);
    auto events = track(tracker, dark);
    auto silent = of_kind(events, ingest::kind::port_unresponsive);
    REQUIRE(silent.size() == 1);
    CHECK(silent[0].node_guid == guid_of(*host));
    CHECK(silent[0].port == 1);

    // Still dark on the next sweep: no second event.
    Run still = sweep(sim, args);
    CHECK(still.unresponsive.size() == 1);
    CHECK(of_kind(track(tracker, still), ingest::kind::port_unresponsive).empty());

    // It answers again, and a later silence is reported again.
    sim.console("Error \"node0006 mlx5_0\"[1] 0");
    settle();
    Run back = sweep(sim, args);
    CHECK(back.unresponsive.empty());
    CHECK(back.samples.size() == 48);
    CHECK(track(tracker, back).empty());
    sim.console("Error \"node0006 mlx5_0\"[1] 100");
    settle();
    CHECK(of_kind(track(tracker, sweep(sim, args)), ingest::kind::port_unresponsive).size() == 1);
  }
}
