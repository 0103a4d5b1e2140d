// Integration: `ibwarden run` on a real ibsim + OpenSM fabric. Link changes injected through
// the ibsim console become link_down/link_up events naming the port, its peer and its
// cable, first from the link check (PortInfo of the trapping switch) and without waiting
// for a re-discovery; PerformanceSet values show up in `ibwarden ports` with their deltas; a
// restart of the daemon neither repeats nor loses events.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include "ingest/opensm_log.h"
#include "store/record_json.h"
#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"

using nlohmann::json;
using namespace ibw::test;

namespace watch_lab {

struct WatchLab {
  ibw::lab::Lab lab;
  std::unique_ptr<ibw::lab::SimLab> sim;
  std::string config;

  explicit WatchLab(const std::string& counters_interval = "1s",
                    const std::string& rediscover_delay = "200ms") {
    lab = ibw::lab::two_tier_lab(2, 2, 3);
    ibw::lab::SimLabOptions options{ibw::lab::to_ibsim_net(lab)};
    options.opensm_args = {"-D", "0x43"};  // also write opensm-lfts.dump into the lab dir
    sim = std::make_unique<ibw::lab::SimLab>(options);
    std::string d = sim->dir();
    std::ofstream(d + "/plan.csv") << ibw::lab::plan_csv(lab);
    config = d + "/ibwarden.yaml";
    ibw::lab::live_lab_config()
        .set("opensm", {{"rediscover_delay", rediscover_delay}, {"read_existing", "true"}})
        .set("counters", {{"interval", counters_interval}, {"jump_threshold", "100"}})
        .null("rules")
        .write(config);
  }
  Daemon daemon(const std::string& log_name = "daemon.log") {
    return Daemon({config, sim->dir(), sim->sockname(), sim->dir() + "/" + log_name});
  }
};

bool has_event(const json& events, const std::string& kind, const std::string& node, int port) {
  for (const auto& e : events)
    if (e["kind"] == kind && e["node"] == node && e["port"] == port) return true;
  return false;
}

const json* find_port(const json& ports, const std::string& node, int port) {
  for (const auto& p : ports)
    if (p["node"] == node && p["port"] == port) return &p;
  return nullptr;
}

TEST_CASE("watch: Unlink/ReLink become link_down/link_up naming port - peer and cable",
          "[integration][watch]") {
  WatchLab w;
  Daemon d = w.daemon();
  d.start();
  REQUIRE(d.wait_log("fabric discovered", 1, std::chrono::seconds(20)));
  auto t0 = std::chrono::steady_clock::now();
  w.sim->console("Unlink \"leaf001\"[2]");
  auto events = wait_query(
      "events", w.config, {"--port", "leaf001/2"},
      [](const json& j) { return has_event(j, "link_down", "leaf001", 2); },
      std::chrono::seconds(10));
  auto latency =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  INFO(d.log());
  REQUIRE(has_event(events, "link_down", "leaf001", 2));
  WARN("Unlink -> link_down stored after " << latency.count() << " ms");
  for (const auto& e : events) {
    if (e["kind"] != "link_down" || e["node"] != "leaf001") continue;
    CHECK(e["peer_node"] == "node0002 mlx5_0");
    CHECK(e["peer_port"] == 1);
    CHECK(e["cable_id"] == "C-leaf001-2");
    CHECK(e["source"] == "opensm");
  }
  // The host end of the link is reported too, naming the leaf as its peer.
  CHECK(has_event(events, "link_down", "node0002 mlx5_0", 1));

  w.sim->console("ReLink \"leaf001\"[2]");
  events = wait_query(
      "events", w.config, {"--port", "leaf001/2"},
      [](const json& j) { return has_event(j, "link_up", "leaf001", 2); },
      std::chrono::seconds(10));
  CHECK(has_event(events, "link_up", "leaf001", 2));
  CHECK(d.log().find("\"routing tables loaded\"") != std::string::npos);  // opensm-lfts.dump
  auto ports = query_json("ports", w.config, {"--node", "leaf001"});
  const json* p = find_port(ports, "leaf001", 2);
  REQUIRE(p);
  CHECK((*p)["peer_node"] == "node0002 mlx5_0");
  CHECK((*p)["cable_id"] == "C-leaf001-2");
  CHECK(d.stop() == 0);
}

TEST_CASE("watch: the link check reports a flap of both ends before any re-discovery",
          "[integration][watch]") {
  WatchLab w("1s", "1h");  // after the first discovery, none for an hour: only the check reports
  Daemon d = w.daemon();
  d.start();
  REQUIRE(d.wait_log("fabric discovered", 1, std::chrono::seconds(20)));
  auto down = [](const json& j) { return has_event(j, "link_down", "leaf001", 4); };
  w.sim->console("Unlink \"leaf001\"[4]");  // an uplink: leaf001/4 - a spine
  auto events = wait_query("events", w.config, {}, down, std::chrono::seconds(10));
  INFO(d.log());
  REQUIRE(down(events));
  std::string spine;
  int spine_port = 0;
  for (const auto& e : events)
    if (e["kind"] == "link_down" && e["node"] == "leaf001" && e["port"] == 4)
      spine = e["peer_node"].get<std::string>(), spine_port = e["peer_port"].get<int>();
  REQUIRE(spine.rfind("spine", 0) == 0);
  CHECK(has_event(events, "link_down", spine, spine_port));  // the far end, same reading
  w.sim->console("ReLink \"leaf001\"[4]");
  auto up = [](const json& j) { return has_event(j, "link_up", "leaf001", 4); };
  events = wait_query("events", w.config, {}, up, std::chrono::seconds(10));
  REQUIRE(up(events));
  CHECK(has_event(events, "link_up", spine, spine_port));
  // The port view has the link back, named by the peer the check restored.
  json ports = query_json("ports", w.config, {"--node", "leaf001"});
  const json* p = find_port(ports, "leaf001", 4);
  REQUIRE(p);
  CHECK((*p)["peer_node"] == spine);
  std::string log = d.log();
  CHECK(log.find("\"link check\"") != std::string::npos);
  size_t discoveries = 0;
  for (size_t at = log.find("fabric discovered"); at != std::string::npos;
       at = log.find("fabric discovered", at + 1))
    ++discoveries;
  CHECK(discoveries == 1);
  CHECK(d.stop() == 0);
}

TEST_CASE("watch: PerformanceSet values - saturation and resets reach `ibwarden ports`",
          "[integration][watch]") {
  // Sweeps 2 s apart: the delta is checked on the first reading that shows the new value, and
  // `ibwarden ports` must answer before the next sweep (slower under sanitizers).
  WatchLab w("2s");
  Daemon d = w.daemon();
  d.start();
  REQUIRE(d.wait_log("fabric discovered", 1, std::chrono::seconds(20)));
  auto counter = [&](const std::string& name) -> json {
    auto ports = query_json("ports", w.config, {"--node", "leaf001"});
    const json* p = find_port(ports, "leaf001", 4);
    if (!p || !(*p)["counters"].contains(name)) return json();
    return *p;
  };
  auto wait_value = [&](const std::string& name, uint64_t want) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    json p;
    while (std::chrono::steady_clock::now() < until) {
      p = counter(name);
      if (!p.is_null() && p["counters"][name] == want) return p;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    INFO(d.log());
    FAIL("counter " << name << " never reached " << want << "; last: " << p.dump());
    return p;
  };
  w.sim->console("PerformanceSet \"leaf001\"[4] PortCounters.SymbolErrorCounter=500");
  json p = wait_value("SymbolErrorCounter", 500);
  w.sim->console("PerformanceSet \"leaf001\"[4] PortCounters.SymbolErrorCounter=1500");
  p = wait_value("SymbolErrorCounter", 1500);
  CHECK(p["deltas"]["SymbolErrorCounter"] == 1000);
  CHECK(p["rates"]["SymbolErrorCounter"].get<double>() > 0);

  w.sim->console("PerformanceSet \"leaf001\"[4] PortCounters.SymbolErrorCounter=65535");
  p = wait_value("SymbolErrorCounter", 65535);
  CHECK(p["saturated"].dump().find("SymbolErrorCounter") != std::string::npos);

  w.sim->console("PerformanceSet \"leaf001\"[4] PortCounters.SymbolErrorCounter=7");
  p = wait_value("SymbolErrorCounter", 7);
  CHECK(p["deltas"]["SymbolErrorCounter"] == 7);  // reset: counts from zero again
  auto events = wait_query(
      "events", w.config, {"--port", "leaf001/4"},
      [](const json& j) { return has_event(j, "counter_reset", "leaf001", 4); },
      std::chrono::seconds(5));
  CHECK(has_event(events, "counter_jump", "leaf001", 4));
  CHECK(has_event(events, "counter_reset", "leaf001", 4));
  CHECK(d.stop() == 0);
}

TEST_CASE("watch: a restart mid-stream neither repeats nor loses events", "[integration][watch]") {
  WatchLab w("1s");
  {
    Daemon d = w.daemon("daemon1.log");
    d.start();
    REQUIRE(d.wait_log("fabric discovered", 1, std::chrono::seconds(20)));
    w.sim->console("Unlink \"leaf002\"[1]");
    wait_query(
        "events", w.config, {},
        [](const json& j) { return has_event(j, "link_down", "leaf002", 1); },
        std::chrono::seconds(10));
    CHECK(d.stop() == 0);
  }
  // While the daemon is down the fabric changes and OpenSM keeps logging.
  w.sim->console("ReLink \"leaf002\"[1]");
  w.sim->console("Unlink \"leaf002\"[2]");
  REQUIRE(w.sim->wait_for_log("SUBNET UP", 3, std::chrono::seconds(20)));
  {
    Daemon d = w.daemon("daemon2.log");
    d.start();
    REQUIRE(d.wait_log("fabric discovered", 1, std::chrono::seconds(20)));
    w.sim->console("ReLink \"leaf002\"[2]");
    auto events = wait_query(
        "events", w.config, {}, [](const json& j) { return has_event(j, "link_up", "leaf002", 2); },
        std::chrono::seconds(10));
    CHECK(has_event(events, "link_up", "leaf002", 1));    // happened while down
    CHECK(has_event(events, "link_down", "leaf002", 2));  // happened while down
    CHECK(has_event(events, "link_up", "leaf002", 2));
    CHECK(d.stop() == 0);
  }
  // Every OpenSM log record that maps to an event is stored exactly once: between the first
  // and the last stored one, the stored events equal the log's records, restart included.
  auto events = query_json("events", w.config);
  std::multiset<std::string> stored;
  std::string first, last;
  for (const auto& e : events) {
    static const std::set<std::string> derived = {
        // ibwarden's own, derived from the log's
        "link_down", "link_up", "incident", "credit_loop", "routing_fallback", "unreachable"};
    if (e["source"] != "opensm" || derived.count(e["kind"].get<std::string>())) continue;
    std::string t = e["time"];
    stored.insert(e["kind"].get<std::string>() + "@" + t);
    if (first.empty() || t < first) first = t;
    if (last.empty() || t > last) last = t;
  }
  REQUIRE(!stored.empty());
  std::multiset<std::string> expected;
  std::ifstream log(w.sim->dir() + "/opensm.log");
  ibw::ingest::OsmLogContext ctx{std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count(),
                                 0};
  for (std::string line; std::getline(log, line);) {
    auto rec = ibw::ingest::parse_opensm_line(line, ctx);
    if (!rec) continue;
    auto ev = ibw::ingest::to_event(*rec);
    std::string t = ev ? ibw::store::iso_time(ev->time_us) : "";
    if (ev && t >= first && t <= last) expected.insert(ev->kind + "@" + t);
  }
  CHECK(stored == expected);
  std::set<int64_t> ids;
  for (const auto& e : events) ids.insert(e["id"].get<int64_t>());
  CHECK(ids.size() == events.size());
}

}  // namespace watch_lab
