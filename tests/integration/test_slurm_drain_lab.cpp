// Integration (issue 33 item 3): `ibwarden run` in enforce mode with slurm.enabled drains and
// resumes real Slurm nodes (tests/lab/slurm_lab.h) for a real ibsim + OpenSM fabric. Fabric:
// 2 leaves x 4 spines, 2 hosts per leaf (node0001-0002 on leaf001/1-2, node0003-0004 on
// leaf002/1-2). The SM and the daemon run on node0001, so the host cut off here is node0003
// (the Slurm lab's slurmd node): its only link is cut at the leaf with ibsim's Unlink, as a
// failing cable would (the guard never disables a host's last link itself). node0004 is
// drained by an operator first and must keep its reason throughout. The second case gives
// node0004 a second rail and has ibwarden disable one (see there).
#include <catch2/catch.hpp>

#include "tests/test_paths.h"

#include <chrono>
#include <fstream>

#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/lab/slurm_lab.h"

using nlohmann::json;
using namespace ibw::test;
using namespace std::chrono_literals;

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Polls `scontrol show node -o NODE` until pred(line) or timeout; returns the last line.
template <typename Pred>
std::string wait_node(const ibw::lab::SlurmLab& slurm, const std::string& node, Pred pred,
                      std::chrono::milliseconds timeout) {
  auto until = std::chrono::steady_clock::now() + timeout;
  std::string line;
  while (true) {
    line = slurm.show_node(node);
    if (pred(line) || std::chrono::steady_clock::now() > until) return line;
    std::this_thread::sleep_for(100ms);
  }
}

bool drained(const std::string& line) {
  return has(line, "+DRAIN");
}

// `ibwarden run` on the lab with `config`, a client of `slurm`, after two counter sweeps.
Daemon start_daemon(ibw::lab::SimLab& sim, const std::string& config,
                    const ibw::lab::SlurmLab& slurm) {
  return started(Daemon({config,
                         sim.dir(),
                         sim.sockname(),
                         sim.dir() + "/d.log",
                         {{"SLURM_CONF", slurm.conf()}}}),
                 "\"counter sweep\"", 2, 30s);
}

}  // namespace

TEST_CASE("slurm drain lab: a cut-off host is drained and resumed - an operator drain is kept",
          "[integration][slurm]") {
  ibw::lab::SlurmLab slurm({"node0003", "node0004", "node0001", "node0002"});
  slurm.drain("node0004", "operator: bad DIMM");
  ibw::lab::Lab lab = ibw::lab::two_tier_lab(2, 4, 2);
  ibw::lab::SimLab sim(ibw::lab::SimLabOptions{ibw::lab::to_ibsim_net(lab)});
  std::ofstream(sim.dir() + "/plan.csv") << ibw::lab::plan_csv(lab);
  const std::string config = sim.dir() + "/ibwarden.yaml";
  remedy_lab_config("enforce")
      .set("opensm", "rediscover_delay", "200ms")
      .set("slurm", {{"enabled", "true"}, {"clean_window", "3s"}, {"max_drains_per_hour", "4"}})
      .write(config);
  Daemon d = start_daemon(sim, config, slurm);
  INFO(d.log());

  // The host link of node0003 goes down; the daemon drains node0003 within 5 s.
  auto cut = std::chrono::steady_clock::now();
  sim.console("Unlink \"leaf002\"[1]");
  std::string line = wait_node(slurm, "node0003", drained, 10s);
  auto delay =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - cut);
  WARN("node0003 drained " << delay.count() << " ms after its link was cut");
  INFO(line << "\n" << d.log());
  REQUIRE(drained(line));
  CHECK(delay < 5s);
  CHECK(has(line, "Reason=ibwarden: "));
  CHECK(has(line, "leaf002/1"));
  // The operator's drain of node0004 is untouched.
  CHECK(has(slurm.show_node("node0004"), "Reason=operator: bad DIMM"));

  // The decision rows: a done drain of node0003, nothing for node0004 (its host is whole).
  auto rows = wait_query(
      "decisions", config, {},
      [](const json& j) {
        for (const auto& x : j)
          if (x["rule"] == "slurm" && x["status"] == "done") return true;
        return false;
      },
      10s);
  json drains = json::array();
  for (const auto& x : rows)
    if (x["rule"] == "slurm") drains.push_back(x);
  REQUIRE(drains.size() == 1);
  CHECK(drains[0]["node"] == "node0003");
  CHECK(drains[0]["action"] == "slurm_drain");
  CHECK(drains[0]["status"] == "done");

  // The link is back; clean for the window (3 s) and no open order: node0003 is resumed.
  sim.console("ReLink \"leaf002\"[1]");
  line = wait_node(
      slurm, "node0003", [](const std::string& l) { return !drained(l); }, 20s);
  INFO(line << "\n" << d.log());
  CHECK_FALSE(drained(line));
  CHECK(has(slurm.show_node("node0004"), "Reason=operator: bad DIMM"));
  CHECK(has(d.log(), "\"slurm resume\""));

  // Metrics and health show Slurm.
  int port = web_port(d);
  if (port) {
    auto h = http_call(port, "GET", "/api/v1/health", "");
    CHECK(h.body.dump().find("\"slurm\"") != std::string::npos);
  }
  CHECK(d.stop() == 0);
}

TEST_CASE("slurm drain lab: a rail ibwarden disables drains its two-rail host until enabled",
          "[integration][slurm]") {
  // node0004 has a second port cabled to leaf002/7 (a spare port): two rails. The guard lets
  // ibwarden disable one of them (not the host's last link), and the host, short of a rail, is
  // drained as degraded; the reason names the disable's work order.
  ibw::lab::SlurmLab slurm({"node0004", "node0001", "node0002", "node0003"});
  ibw::lab::Lab lab = ibw::lab::two_tier_lab(2, 4, 2);
  int host = -1, leaf = -1;
  for (int i = 0; i < static_cast<int>(lab.nodes.size()); ++i) {
    if (lab.nodes[i].name == "node0004 mlx5_0") host = i;
    if (lab.nodes[i].name == "leaf002") leaf = i;
  }
  REQUIRE(host >= 0);
  REQUIRE(leaf >= 0);
  lab.nodes[host].ports = 2;
  lab.plan.push_back({"C-node0004-2", {leaf, 7}, {host, 2}, "host"});
  lab.wires.push_back({{leaf, 7}, {host, 2}, 4});
  ibw::lab::SimLab sim(ibw::lab::SimLabOptions{ibw::lab::to_ibsim_net(lab)});
  std::ofstream(sim.dir() + "/plan.csv") << ibw::lab::plan_csv(lab);
  const std::string config = sim.dir() + "/ibwarden.yaml";
  remedy_lab_config("enforce")
      .set("slurm", {{"enabled", "true"}, {"clean_window", "3s"}})
      .set("web", "listen", "127.0.0.1:0")
      .write(config);
  Daemon d = start_daemon(sim, config, slurm);
  INFO(d.log());
  CHECK_FALSE(drained(slurm.show_node("node0004")));  // two rails up: whole

  auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), IBW_BINARY);
    args.push_back("--config");
    args.push_back(config);
    return sim.run(args, "", 60s);
  };
  auto r = run({"disable", "--port", "leaf002/2", "--reason", "rail test"});
  auto done = std::chrono::steady_clock::now();
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  std::string line = wait_node(slurm, "node0004", drained, 10s);
  auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - done);
  WARN("node0004 drained " << delay.count() << " ms after ibwarden disabled leaf002/2");
  INFO(line);
  REQUIRE(drained(line));
  CHECK(delay < 5s);
  // The reason names the order the disable opened (updated if the drain came first).
  line = wait_node(
      slurm, "node0004", [](const std::string& l) { return has(l, "Reason=ibwarden: WO-"); }, 10s);
  CHECK(has(line, "Reason=ibwarden: WO-"));
  CHECK(has(line, "leaf002/2 manual"));
  for (const char* other : {"node0001", "node0002", "node0003"})
    CHECK_FALSE(drained(slurm.show_node(other)));  // 0 nodes drained that were not cut

  // Enabled again (the order resolved): after the clean window node0004 is resumed.
  r = run({"enable", "--port", "leaf002/2", "--reason", "rail test done"});
  REQUIRE(r.status == 0);
  line = wait_node(
      slurm, "node0004", [](const std::string& l) { return !drained(l); }, 30s);
  INFO(line << "\n" << d.log());
  CHECK_FALSE(drained(line));

  // /metrics counts what happened.
  int port = web_port(d);
  REQUIRE(port);
  auto metrics = run_cmd({"curl", "-s", "http://127.0.0.1:" + std::to_string(port) + "/metrics"});
  INFO(metrics.out);
  CHECK(has(metrics.out, "ibwarden_slurm_resumes_total{fabric=\"lab\",status=\"done\"} 1"));
  CHECK(has(metrics.out, "ibwarden_slurm_drains_total{fabric=\"lab\",status=\"failed\"} 0"));
  CHECK(has(metrics.out, "ibwarden_slurm_errors_total{fabric=\"lab\"} 0"));
  CHECK(d.stop() == 0);
}
