// Integration: congestion is a signal, not a fault, on real ibsim + OpenSM with `ibwarden run`
// in enforce mode and the shipped config/rules.yaml. PortXmitDiscards climbing fast on a
// switch port (ibsim console PerformanceSet) gives a congestion finding (an event of kind
// congestion, GET /api/v1/congestion, /metrics) and no decision, no work order and no
// disable (the port still reads LinkUp over MADs, independently of ibwarden). When the far
// end goes down and comes back (ibsim Unlink / ReLink), the finding clears and the old burst is
// not reported again; new discards after it (the port's counter set lower than before: a
// reset, which ibsim's clipped AllPortSelect sum does not show) are a finding of their own.
// A rule with action none (report only) gives a `finding` event and, out of its window, a
// `finding_cleared` (counted in /metrics as ibwarden_rule_findings{,_total}), and nothing
// decided or ordered.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"

using nlohmann::json;
using namespace ibw::test;
using namespace std::chrono_literals;

TEST_CASE("congestion lab: discards climbing fast are a finding - never an order or a disable",
          "[integration][congestion]") {
  // 2 leaves x 4 spines, 2 hosts each: leafNNN ports 3-6 go to spine001-004.
  auto lab = ibw::lab::two_tier_lab(2, 4, 2);
  ibw::lab::SimLab sim({ibw::lab::to_ibsim_net(lab)});
  std::ofstream(sim.dir() + "/plan.csv") << ibw::lab::plan_csv(lab);
  std::string config = sim.dir() + "/ibwarden.yaml";
  remedy_lab_config().set("web", "listen", "127.0.0.1:0").write(config);
  Daemon d({config, sim.dir(), sim.sockname(), sim.dir() + "/daemon.log"});
  d.start();
  REQUIRE(d.wait_log("\"counter sweep\"", 2, 30s));
  int port = web_port(d);
  REQUIRE(port > 0);

  // 60,000 discards in one 1 s sweep: far over the shipped 100/s; under the old error_bursts
  // rule this was a cable work order.
  sim.console("PerformanceSet \"leaf001\"[4] PortCounters.PortXmitDiscards=60000");
  auto events = wait_query(
      "events", config, {"--port", "leaf001/4"},
      [](const json& all) {
        for (const auto& e : all)
          if (e["kind"] == "congestion") return true;
        return false;
      },
      20s);
  INFO(d.log());
  json finding;
  for (const auto& e : events)
    if (e["kind"] == "congestion") finding = e;
  REQUIRE(finding.is_object());
  CHECK(finding["node"] == "leaf001");
  CHECK(finding["port"] == 4);
  CHECK(finding["severity"] == "warning");
  CHECK(finding["message"].get<std::string>().find("PortXmitDiscards at") != std::string::npos);

  auto now = http_call(port, "GET", "/api/v1/congestion", "");
  REQUIRE(now.status == 200);
  REQUIRE(now.body["ports"].size() == 1);
  CHECK(now.body["ports"][0]["port"] == 4);
  CHECK(now.body["ports"][0]["discards_per_s"].get<double>() > 100);
  CHECK(now.body["findings_total"] == 1);
  auto metrics = run_cmd({"curl", "-s", "http://127.0.0.1:" + std::to_string(port) + "/metrics"});
  CHECK(metrics.out.find("ibwarden_congestion_ports{fabric=\"lab\"} 1\n") != std::string::npos);
  CHECK(metrics.out.find("ibwarden_congestion_findings_total{fabric=\"lab\"} 1\n") !=
        std::string::npos);

  // Three more sweeps with the finding in its window: still nothing decided, ordered or
  // disabled, by the API and over MADs.
  int sweeps = 0;
  for (std::istringstream in(d.log()); !in.eof();) {
    std::string line;
    std::getline(in, line);
    sweeps += line.find("\"counter sweep\"") != std::string::npos;
  }
  REQUIRE(d.wait_log("\"counter sweep\"", sweeps + 3, 30s));
  auto decisions = http_call(port, "GET", "/api/v1/decisions", "");
  REQUIRE(decisions.status == 200);
  CHECK(decisions.body["decisions"].empty());
  auto orders = http_call(port, "GET", "/api/v1/workorders", "");
  REQUIRE(orders.status == 200);
  CHECK(orders.body["workorders"].empty());
  CHECK(query_json("decisions", config).empty());
  CHECK(query_json("workorders", config).empty());
  auto r = sim.run({"smpquery", "-D", "portinfo", "0,1", "4"}, "", 60s);  // leaf001 from node0001
  REQUIRE(r.status == 0);
  CHECK(r.out.find("PhysLinkState:") != std::string::npos);
  CHECK(r.out.find("LinkUp") != std::string::npos);

  // The far end (spine002) goes down and comes back, as in a reboot: the link's finding
  // clears, and the burst from before is not reported again once the link is back; a burst
  // after it is a finding of its own.
  auto count = [](const json& all, const std::string& kind) {
    int n = 0;
    for (const auto& e : all) n += e["kind"] == kind;
    return n;
  };
  auto kinds = [&](const std::string& kind, int n) {
    return [&count, kind, n](const json& all) { return count(all, kind) >= n; };
  };
  sim.console("Unlink \"spine002\"");
  events =
      wait_query("events", config, {"--port", "leaf001/4"}, kinds("congestion_cleared", 1), 30s);
  REQUIRE(count(events, "congestion_cleared") == 1);
  sim.console("ReLink \"spine002\"");
  events = wait_query("events", config, {"--port", "leaf001/4"}, kinds("link_up", 1), 30s);
  REQUIRE(count(events, "link_up") >= 1);
  sweeps = 0;
  for (std::istringstream in(d.log()); !in.eof();) {
    std::string line;
    std::getline(in, line);
    sweeps += line.find("\"counter sweep\"") != std::string::npos;
  }
  REQUIRE(d.wait_log("\"counter sweep\"", sweeps + 3, 30s));
  events = query_json("events", config, {"--port", "leaf001/4"});
  CHECK(count(events, "congestion") == 1);
  CHECK(http_call(port, "GET", "/api/v1/congestion", "").body["ports"].empty());
  sim.console("PerformanceSet \"leaf001\"[4] PortCounters.PortXmitDiscards=30000");
  events = wait_query("events", config, {"--port", "leaf001/4"}, kinds("congestion", 2), 20s);
  CHECK(count(events, "congestion") == 2);
  CHECK(http_call(port, "GET", "/api/v1/congestion", "").body["findings_total"] == 2);
  CHECK(d.stop() == 0);
}

TEST_CASE("congestion lab: a rule with action none reports a finding - never an order",
          "[integration][congestion]") {
  // The shipped rules plus a report-only twin of error_bursts' LinkErrorRecoveryCounter (any
  // recovery in 10 s, where the shipped rule orders at 5 in a minute).
  auto lab = ibw::lab::two_tier_lab(2, 4, 2);
  ibw::lab::SimLab sim({ibw::lab::to_ibsim_net(lab)});
  std::ofstream(sim.dir() + "/plan.csv") << ibw::lab::plan_csv(lab);
  std::ofstream(sim.dir() + "/rules.yaml")
      << ibw::lab::slurp_file(shipped_rules())
      << "\n  - name: recovery_watch\n    type: error_counters\n"
      << "    action: none\n    severity: error\n    window: 10s\n"
      << "    counters:\n      LinkErrorRecoveryCounter: {delta: 1}\n";
  std::string config = sim.dir() + "/ibwarden.yaml";
  remedy_lab_config()
      .set("rules", "file", sim.dir() + "/rules.yaml")
      .set("web", "listen", "127.0.0.1:0")
      .write(config);
  Daemon d({config, sim.dir(), sim.sockname(), sim.dir() + "/daemon.log"});
  d.start();
  REQUIRE(d.wait_log("\"counter sweep\"", 2, 30s));
  int port = web_port(d);
  REQUIRE(port > 0);
  auto metrics = [port] {
    return run_cmd({"curl", "-s", "http://127.0.0.1:" + std::to_string(port) + "/metrics"}).out;
  };
  CHECK(metrics().find("ibwarden_rule_findings_total{fabric=\"lab\"} 0\n") != std::string::npos);

  sim.console("PerformanceSet \"leaf001\"[5] PortCounters.LinkErrorRecoveryCounter=2");
  auto has = [](const std::string& kind) {
    return [kind](const json& all) {
      for (const auto& e : all)
        if (e["kind"] == kind) return true;
      return false;
    };
  };
  auto events = wait_query("events", config, {"--port", "leaf001/5"}, has("finding"), 20s);
  INFO(d.log());
  json finding;
  for (const auto& e : events)
    if (e["kind"] == "finding") finding = e;
  REQUIRE(finding.is_object());
  CHECK(finding["severity"] == "error");
  CHECK(finding["node"] == "leaf001");
  CHECK(finding["message"].get<std::string>().starts_with("recovery_watch: "));
  CHECK(metrics().find("ibwarden_rule_findings_total{fabric=\"lab\"} 1\n") != std::string::npos);
  // Out of its 10 s window: cleared. Nothing was decided or ordered for it.
  events = wait_query("events", config, {"--port", "leaf001/5"}, has("finding_cleared"), 30s);
  int findings = 0;
  for (const auto& e : events) findings += e["kind"] == "finding";
  CHECK(findings == 1);
  CHECK(metrics().find("ibwarden_rule_findings{fabric=\"lab\"} 0\n") != std::string::npos);
  CHECK(metrics().find("ibwarden_rule_findings_total{fabric=\"lab\"} 1\n") != std::string::npos);
  CHECK(query_json("decisions", config).empty());
  CHECK(query_json("workorders", config).empty());
  CHECK(d.stop() == 0);
}
