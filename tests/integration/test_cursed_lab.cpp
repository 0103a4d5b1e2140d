// Integration: cursed routes on real ibsim + OpenSM. ibsim's console `Error "node"[port] RATE`
// drops RATE% of the packets received on that port (LID-routed and directed-route alike).
//  - `ibwarden probe` from two vantage points + `ibwarden localize` name the lossy link, for
//    random switch-to-switch links and rates of 15-60%; a clean fabric gives no suspects;
//  - `ibwarden run` in enforce mode with probes: on disables the cursed link, opens its work
//    order with the cursed_path evidence, disables nothing else, and the next rounds are clean;
//    its web API serves /suspects, /routes/health and takes POST /probes.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "fabric/ibnetdiscover_parser.h"
#include "fabric/node_name_map.h"
#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using nlohmann::json;
using namespace ibw::test;
using namespace std::chrono_literals;

namespace cursed_lab {

const std::string kViewer = "viewer-token-cursed-0123456789";
const std::string kOperator = "operator-token-cursed-0123456789";

struct Link {
  std::string a, b;  // "node/port", in either order
  bool has(const json& end) const {
    std::string s = end["node"].get<std::string>() + "/" + std::to_string(end["port"].get<int>());
    return s == a || s == b;
  }
};

// localize's JSON for the probe files, with its exit status.
std::pair<int, json> localize(const ibw::lab::SimLab& sim, const std::string& config,
                              const std::vector<std::string>& files) {
  std::vector<std::string> argv = {IBW_BINARY, "localize", "--config", config, "--format", "json"};
  for (const auto& f : files) argv.insert(argv.end(), {"--probes", f});
  auto r = sim.run(argv, "", 120s);
  INFO("localize stderr: " << r.err);
  REQUIRE((r.status == 0 || r.status == 1));
  return {r.status, json::parse(r.out)};
}

void probe_to(const ibw::lab::SimLab& sim, const std::string& config, const std::string& host,
              const std::string& out) {
  auto r = sim.run({IBW_BINARY, "probe", "--config", config, "--count", "50", "--output", out},
                   host, 120s);
  INFO("probe stderr: " << r.err);
  REQUIRE(r.status == 0);
}

TEST_CASE("cursed lab: probe and localize name a lossy link from two vantage points",
          "[integration][cursed]") {
  auto gen = ibw::lab::two_tier_lab(4, 2, 2);
  ibw::lab::SimLab sim({ibw::lab::to_ibsim_net(gen)});
  auto disc = sim.run({"ibnetdiscover"});
  REQUIRE(disc.status == 0);
  std::ofstream(sim.dir() + "/topology.txt") << disc.out;
  auto fab = ibw::fabric::parse_ibnetdiscover(disc.out, "disc");
  ibw::fabric::apply_node_names(fab, nullptr);
  std::string config = sim.dir() + "/ibwarden.yaml";
  DaemonConfig()
      .set("fabric", "discovery", "topology.txt")
      .set("opensm", "dump_dir", ".")
      .set("probes", {{"timeout", "2s"}, {"max_rate", "20000"}})
      .write(config);

  // Clean: no suspects.
  probe_to(sim, config, "", sim.dir() + "/clean-a.jsonl");
  probe_to(sim, config, "node0005 mlx5_0", sim.dir() + "/clean-b.jsonl");
  auto [clean_rc, clean] =
      localize(sim, config, {sim.dir() + "/clean-a.jsonl", sim.dir() + "/clean-b.jsonl"});
  CHECK(clean_rc == 0);
  CHECK(clean["suspects"].empty());
  CHECK(clean["observations"] > 0);

  // Random switch-to-switch links and rates, receiving at either end.
  std::vector<std::pair<std::string, int>> uplinks;  // (switch, port) of every switch-switch port
  for (const auto& n : fab.nodes())
    if (n.type == ibw::fabric::NodeType::sw)
      for (const auto& p : n.ports)
        if (p.number && p.has_peer() && fab.node(p.peer_node).type == ibw::fabric::NodeType::sw)
          uplinks.push_back({n.name, p.number});
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 2; ++round) {
    auto [node, port] = uplinks[rng() % uplinks.size()];
    int rate = 15 + static_cast<int>(rng() % 46);
    uint32_t n = fab.resolve(node);
    const auto& p = fab.node(n).ports[port];
    Link lossy{node + "/" + std::to_string(port),
               fab.node(p.peer_node).name + "/" + std::to_string(p.peer_port)};
    INFO("Error \"" << node << "\"[" << port << "] " << rate);
    sim.console("Error \"" + node + "\"[" + std::to_string(port) + "] " + std::to_string(rate));
    std::string a = sim.dir() + "/a" + std::to_string(round) + ".jsonl";
    std::string b = sim.dir() + "/b" + std::to_string(round) + ".jsonl";
    probe_to(sim, config, "", a);
    probe_to(sim, config, "node0005 mlx5_0", b);
    sim.console("Error \"" + node + "\"[" + std::to_string(port) + "] 0");
    auto [rc, j] = localize(sim, config, {a, b});
    INFO(j.dump(1));
    CHECK(rc == 1);
    REQUIRE(!j["suspects"].empty());
    const json& top = j["suspects"][0];
    CHECK(top["rank"] == 1);
    CHECK(top["loss"] > 0.05);
    CHECK(top["bad_observations"] > 0);
    for (const auto& l : top["links"]) {  // pinned: only the lossy link, either direction
      CHECK(lossy.has(l["from"]));
      CHECK(lossy.has(l["to"]));
    }
  }
}

TEST_CASE("cursed lab: the daemon disables a cursed link and opens its work order - nothing else",
          "[integration][cursed]") {
  // 2 leaves x 4 spines, 2 hosts each: leafNNN ports 3-6 go to spine001-004.
  auto lab = ibw::lab::two_tier_lab(2, 4, 2);
  ibw::lab::SimLab sim({ibw::lab::to_ibsim_net(lab)});
  std::ofstream(sim.dir() + "/plan.csv") << ibw::lab::plan_csv(lab);
  std::string config = sim.dir() + "/ibwarden.yaml";
  remedy_lab_config()
      .unset("fabric", "name")
      .set("probes", {{"interval", "2s"}, {"count", "20"}, {"timeout", "1s"}})
      .set("web", {{"listen", "127.0.0.1:0"}, {"tokens_file", "tokens"}})
      .write(config);
  std::ofstream(sim.dir() + "/tokens")
      << "viewer " << kViewer << "\noperator " << kOperator << "\n";
  chmod((sim.dir() + "/tokens").c_str(), 0600);
  Daemon d({config, sim.dir(), sim.sockname(), sim.dir() + "/daemon.log"});
  d.start();
  REQUIRE(d.wait_log("web API listening", 1, 30s));
  auto early = http_call(web_port(d), "GET", "/api/v1/suspects", kViewer);  // before or after
  CHECK(early.status == 200);                                               // the first round
  CHECK(early.body["suspects"].is_array());
  REQUIRE(d.wait_log("\"probe round\"", 2, 60s));
  CHECK(query_json("decisions", config).empty());  // clean rounds: nothing decided

  sim.console("Error \"spine002\"[2] 40");  // spine002/2 receives from leaf002/4
  auto decisions = wait_query(
      "decisions", config, {},
      [](const json& j) {
        for (const auto& x : j)
          if (x["rule"] == "cursed_path" && x["status"] == "executed") return true;
        return false;
      },
      90s);
  INFO(d.log());
  json disabled = json::array();
  for (const auto& x : decisions)
    if (x["status"] == "executed" && x["action"] == "disable") disabled.push_back(x);
  REQUIRE(disabled.size() == 1);  // nothing else disabled
  const json& dec = disabled[0];
  CHECK(dec["rule"] == "cursed_path");
  CHECK(dec["action"] == "disable");
  std::set<std::string> ends = {
      dec["node"].get<std::string>() + "/" + std::to_string(dec["port"].get<int>()),
      dec["peer_node"].get<std::string>() + "/" + std::to_string(dec["peer_port"].get<int>())};
  CHECK(ends == std::set<std::string>{"spine002/2", "leaf002/4"});
  const json& ev = dec["evidence"]["cursed_path"];
  CHECK(ev["loss"] > 0.05);
  CHECK(ev["bad_observations"] > 0);
  CHECK(ev["dr_confirmation"]["lost"] > 0);
  CHECK(dec["evidence"]["readback"]["after"]["phys_state"] == "Disabled");

  // The port state, read back over MADs by the stock tools: leaf001/4 -> spine002, then port 2.
  auto r = sim.run({"smpquery", "-D", "portinfo", "0,1,4", "2"}, "", 60s);
  auto r2 = sim.run({"smpquery", "-D", "portinfo", "0,1,4,2", "4"}, "", 60s);
  INFO(r.out << r2.out);
  std::smatch m;
  std::string both = r.out + r2.out;
  CHECK(std::regex_search(both, m, std::regex("PhysLinkState:\\.+Disabled")));

  auto orders = query_json("workorders", config);
  REQUIRE(orders.size() >= 1);
  bool found = false;
  for (const auto& o : orders)
    if (o["cable_id"] == "C-leaf002-4") {
      found = true;
      CHECK(o["port_disabled"] == true);
      CHECK(o["locations"].size() == 2);
    }
  CHECK(found);

  // The API: the suspects, the leaf x leaf matrix, and observations posted by an operator.
  int port = web_port(d);
  REQUIRE(port > 0);
  auto sus = http_call(port, "GET", "/api/v1/suspects", kViewer);
  CHECK(sus.status == 200);
  CHECK(sus.body.contains("observations"));
  CHECK(sus.body["rounds"].get<int>() >= 1);
  auto health = http_call(port, "GET", "/api/v1/routes/health", kViewer);
  CHECK(health.status == 200);
  CHECK(health.body["switches"] == json::array({"leaf001", "leaf002"}));
  REQUIRE(health.body["loss"].size() == 2);
  CHECK(health.body["loss"][0].size() == 2);
  std::string good = "src,dst,sent,lost\nleaf001,leaf002,100,0\n";
  CHECK(http_call(port, "POST", "/api/v1/probes", kViewer, good, "text/csv").status == 403);
  auto posted = http_call(port, "POST", "/api/v1/probes", kOperator, good, "text/csv");
  CHECK(posted.status == 200);
  CHECK(posted.body["accepted"] == 1);
  std::string bad =
      "{\"src\":\"leaf001\",\"dst\":\"leaf002\",\"sent\":10,\"lost\":1}\n"
      "{\"src\":\"nosuchnode\",\"dst\":\"leaf002\",\"sent\":10,\"lost\":0}\n"
      "{\"src\":\"leaf001\",\"dst\":\"leaf002\",\"sent\":10,\"lost\":11}\n";
  auto rejected = http_call(port, "POST", "/api/v1/probes", kOperator, bad, "application/x-ndjson");
  CHECK(rejected.status == 400);
  INFO(rejected.body.dump());
  REQUIRE(rejected.body["errors"].is_array());
  std::string errors = rejected.body["errors"].dump();
  CHECK(errors.find("POST /api/v1/probes:2: src:") != std::string::npos);
  CHECK(errors.find("POST /api/v1/probes:3: lost:") != std::string::npos);
  CHECK(http_call(port, "POST", "/api/v1/probes", kOperator, good, "image/png").status == 415);

  auto metrics = run_cmd({"curl", "-s", "-H", "Authorization: Bearer " + kViewer,
                          "http://127.0.0.1:" + std::to_string(port) + "/api/v1/metrics"});
  CHECK(metrics.out.find("\nibwarden_cursed_route_suspects{fabric=\"fabric\"} ") !=
        std::string::npos);
  CHECK(metrics.out.find(
            "ibwarden_source_status{fabric=\"fabric\",source=\"probes\",status=\"ok\"} 1") !=
        std::string::npos);

  // The next rounds show the fabric clean.
  sim.console("Error \"spine002\"[2] 0");
  CHECK(d.wait_log("\"suspects\":0", 1, 60s));
}

}  // namespace cursed_lab
