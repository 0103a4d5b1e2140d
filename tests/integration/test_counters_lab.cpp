// Integration: the pipelined PMA counter poller on a real ibsim + OpenSM fat tree. The poller
// must run under umad2sim, so the test drives it through ibw-bench-counter_sweep (JSON lines)
// and feeds the samples to an in-process CounterTracker. Counters are set with ibsim's
// PerformanceSet console command; ibsim's `Error` command makes a port drop every MAD. The
// second test covers the switch sums (AllPortSelect) of errors sweeps.
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
  std::vector<json> samples, unresponsive, failed, events, summaries;
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
    if (type == "summary") out.summary = j, out.summaries.push_back(j);
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
  CHECK(sum["class_port_info"] == lids.size());  // once per LID
  // + the AllPortSelect sum of each of the 6 switches, then PortCounters and
  // PortCountersExtended of every port (a full sweep, the default of the bench binary)
  CHECK(sum["mads_sent"] == lids.size() + 6 + 2 * 48);
  CHECK(sum["switch_sums"] == 6);
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

// Issue 32 item 4: errors sweeps read one AllPortSelect sum per switch and one PortCounters per
// CA port; a moved sum has its switch's ports read in the same sweep; full sweeps on a slower
// cadence keep the data rates.
TEST_CASE("counters: switch sums on a clean fat tree and an error found in the same sweep",
          "[integration][counters][sums]") {
  REQUIRE(std::filesystem::exists(sweep_binary()));
  FatTreeSpec spec;
  spec.leaves = 4, spec.spines = 2, spec.hosts_per_leaf = 4;  // 6 switches, 16 CA ports
  Lab lab = make_fat_tree(spec);
  SimLab sim({to_ibsim_net(lab)});
  std::string cache = sim.dir() + "/fabric.cache";
  REQUIRE(sim.run({"ibnetdiscover", "--cache", cache}).status == 0);
  const int switches = 6, ca_ports = 16, lids = switches + ca_ports, ports = 48;

  // Sweeps 0, 1, 3, 4: errors; 2 and 5: full.
  Run clean =
      sweep(sim, {"--cache", cache, "--sweeps", "6", "--data-every", "3", "--interval-ms", "200"});
  REQUIRE(clean.summaries.size() == 6);
  for (const auto& s : clean.summaries) {
    INFO(s.dump());
    CHECK(s["samples"] == ports);
    CHECK(s["switch_sums"] == switches);
    CHECK(s["retries"] == 0);
    bool full = s["kind"] == "full";
    CHECK(full == (s["sweep"] == 2 || s["sweep"] == 5));
    int cpi = s["sweep"] == 0 ? lids : 0;
    // Clean: about one MAD per switch and one per CA port; full: every port, both attributes.
    CHECK(s["mads_sent"] == cpi + switches + (full ? 2 * ports : ca_ports));
    CHECK(s["switches_read"] == (full ? switches : 0));
  }
  // Errors sweeps carry every error counter and PortXmitWait but no data counters.
  ingest::CounterTracker tracker;
  std::map<int, std::vector<ingest::CounterDelta>> by_sweep;
  for (const auto& j : clean.samples) {
    ingest::CounterSample s = to_sample(j);
    bool full = j["sweep"] == 2 || j["sweep"] == 5;
    CHECK(s.has(ingest::Counter::SymbolErrorCounter));
    CHECK(s.has(ingest::Counter::PortXmitWait));
    CHECK(s.has(ingest::Counter::PortXmitData) == full);
    by_sweep[j["sweep"]].push_back(tracker.update(s, nullptr));
  }
  // Rates: the second full sweep has data rates (our own MADs cross the switches); the errors
  // sweeps before it carry the first full sweep's (none known yet: only one data reading).
  auto xmit = static_cast<size_t>(ingest::Counter::PortXmitData);
  int moving = 0;
  for (const auto& d : by_sweep[5]) {
    CHECK((d.valid >> xmit & 1u) == 1u);
    if (d.rate[xmit] > 0) ++moving;
    CHECK(d.rate_carried == 0);
  }
  CHECK(moving > 0);
  for (const auto& d : by_sweep[4]) CHECK((d.valid >> xmit & 1u) == 0u);

  // An error set on one switch port while a process sweeps every 1.5 s: the sweep that first
  // sees it reads that switch port by port and attributes it to exactly that port.
  std::thread injector([&sim] {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    sim.console("PerformanceSet \"leaf002\"[3] PortCounters.SymbolErrorCounter=5000");
  });
  Run run = sweep(
      sim, {"--cache", cache, "--sweeps", "4", "--data-every", "100", "--interval-ms", "1500"});
  injector.join();
  REQUIRE(run.summaries.size() == 4);
  int first = -1;
  for (const auto& j : run.samples) {
    uint64_t errors = j["counters"]["SymbolErrorCounter"];
    bool target = j["node"] == "leaf002" && j["port"] == 3;
    if (!target) CHECK(errors == 0);
    if (target && errors > 0) {
      CHECK(errors == 5000);
      if (first < 0) first = j["sweep"];
    }
    if (target && first >= 0) CHECK(errors == 5000);  // and in every later sweep
  }
  REQUIRE(first >= 0);
  CHECK(run.summaries[first]["switches_read"] == 1);  // only leaf002
  CHECK(run.summaries[first]["mads_sent"].get<int>() ==
        (first == 0 ? lids : 0) + switches + ca_ports + 6);  // + leaf002's 6 linked ports
  for (int s = first + 1; s < 4; ++s) {
    CHECK(run.summaries[s]["switches_read"] == 0);  // its sum is unchanged: known
    CHECK(run.summaries[s]["mads_sent"] == switches + ca_ports);
  }
}
