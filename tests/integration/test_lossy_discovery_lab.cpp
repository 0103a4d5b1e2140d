// Integration: a lossy link never hides (issue 29). On ibsim + OpenSM, with the fault on while
// every command runs and the fabric discovered live (the one-shot commands have no previous
// discovery to lean on):
//  - a leaf's FIRST uplink dropping 30-60% of what it receives (the link the discovery crosses
//    first, and loses) is recovered by the discovery, probed, and named first, pinned to that
//    one link, by `probe` + `localize` from a host on another leaf and from a host behind it;
//  - 5% and 15% loss on a random switch-to-switch link are found by one `probe` run;
//  - a clean fabric gives no suspects and recovers nothing.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <memory>
#include <random>

#include <nlohmann/json.hpp>

#include "fabric/ibnetdiscover_parser.h"
#include "fabric/node_name_map.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using nlohmann::json;
using namespace std::chrono_literals;

namespace lossy_discovery_lab {

struct Lab {
  ibw::lab::SimLab sim;
  ibw::fabric::Fabric fab;
  std::string config;
};

std::unique_ptr<Lab> start() {
  ibw::lab::FatTreeSpec spec;
  spec.leaves = 6, spec.spines = 3, spec.hosts_per_leaf = 4;
  std::unique_ptr<Lab> lab(
      new Lab{ibw::lab::SimLab({ibw::lab::to_ibsim_net(ibw::lab::make_fat_tree(spec))}), {}, ""});
  auto disc = lab->sim.run({"ibnetdiscover"});
  REQUIRE(disc.status == 0);
  lab->fab = ibw::fabric::parse_ibnetdiscover(disc.out, "disc");
  ibw::fabric::apply_node_names(lab->fab, nullptr);
  lab->config = lab->sim.dir() + "/ibwarden.yaml";
  // Live discovery (the default); OpenSM writes its dumps (opensm-subnet.lst) into the lab dir.
  std::ofstream(lab->config) << "opensm:\n  dump_dir: .\n"
                             << "probes:\n  timeout: 2s\n  max_rate: 20000\n";
  return lab;
}

// `ibwarden probe` from `host` into `out`; its stderr.
std::string probe(const Lab& lab, const std::string& host, const std::string& out) {
  auto r = lab.sim.run({IBW_BINARY, "probe", "--config", lab.config, "--output", out}, host, 180s);
  INFO("probe stderr: " << r.err);
  REQUIRE(r.status == 0);
  return r.err;
}

// `ibwarden localize` over `files` from `host` (the fault still on), as JSON with its status.
std::pair<int, json> localize(const Lab& lab, const std::string& host,
                              const std::vector<std::string>& files) {
  std::vector<std::string> argv = {IBW_BINARY, "localize", "--config",
                                   lab.config, "--format", "json"};
  for (const auto& f : files) argv.insert(argv.end(), {"--probes", f});
  auto r = lab.sim.run(argv, host, 180s);
  INFO("localize stderr: " << r.err);
  REQUIRE((r.status == 0 || r.status == 1));
  return {r.status, json::parse(r.out)};
}

// The top suspect is the link between a and b and nothing else.
void check_named_first(int rc, const json& j, const std::string& a, const std::string& b) {
  INFO(j.dump(1));
  CHECK(rc == 1);
  REQUIRE(!j["suspects"].empty());
  const json& top = j["suspects"][0];
  CHECK(top["rank"] == 1);
  REQUIRE(!top["links"].empty());
  for (const auto& l : top["links"]) {
    for (const auto* end : {&l["from"], &l["to"]}) {
      std::string s =
          (*end)["node"].get<std::string>() + "/" + std::to_string((*end)["port"].get<int>());
      CHECK((s == a || s == b));
    }
  }
}

std::string peer_of(const ibw::fabric::Fabric& fab, const std::string& node, int port) {
  const auto& p = fab.node(fab.resolve(node)).ports[port];
  return fab.node(p.peer_node).name + "/" + std::to_string(p.peer_port);
}

TEST_CASE("lossy discovery lab: a leaf's first uplink dropping 30-60% is recovered and named",
          "[integration][lossy]") {
  auto lab = start();
  std::mt19937 rng(std::random_device{}());
  const int leaf = 2 + static_cast<int>(rng() % 5);  // leaf002..leaf006
  char name[16];
  std::snprintf(name, sizeof name, "leaf%03d", leaf);
  const int rate = 30 + static_cast<int>(rng() % 31);
  const std::string near = std::string(name) + "/5", far = peer_of(lab->fab, name, 5);
  INFO("Error \"" << name << "\"[5] " << rate);
  lab->sim.console("Error \"" + std::string(name) + "\"[5] " + std::to_string(rate));
  char behind[32];
  std::snprintf(behind, sizeof behind, "node%04d mlx5_0", (leaf - 1) * 4 + 2);

  // From a host on another leaf, and from one behind the lossy leaf.
  for (const std::string& host : {std::string("node0001 mlx5_0"), std::string(behind)}) {
    INFO("vantage " << host);
    std::string out = lab->sim.dir() + "/p.jsonl";
    std::string err = probe(*lab, host, out);
    INFO(err);
    CHECK(err.find("probed again") != std::string::npos);
    auto [rc, j] = localize(*lab, host, {out});
    check_named_first(rc, j, near, far);
  }
}

TEST_CASE("lossy discovery lab: 5% and 15% loss are found by one probe run and clean stays clean",
          "[integration][lossy]") {
  auto lab = start();
  std::vector<std::pair<std::string, int>> uplinks;
  for (const auto& n : lab->fab.nodes())
    if (n.type == ibw::fabric::NodeType::sw)
      for (const auto& p : n.ports)
        if (p.number && p.has_peer() &&
            lab->fab.node(p.peer_node).type == ibw::fabric::NodeType::sw)
          uplinks.push_back({n.name, p.number});
  std::mt19937 rng(std::random_device{}());
  for (int rate : {5, 15}) {
    auto [node, port] = uplinks[rng() % uplinks.size()];
    char host[32];
    std::snprintf(host, sizeof host, "node%04d mlx5_0", 1 + static_cast<int>(rng() % 24));
    INFO("Error \"" << node << "\"[" << port << "] " << rate << " from " << host);
    std::string cmd = "Error \"" + node + "\"[" + std::to_string(port) + "] ";
    lab->sim.console(cmd + std::to_string(rate));
    std::string out = lab->sim.dir() + "/w" + std::to_string(rate) + ".jsonl";
    probe(*lab, host, out);
    auto [rc, j] = localize(*lab, host, {out});
    lab->sim.console(cmd + "0");
    check_named_first(rc, j, node + "/" + std::to_string(port), peer_of(lab->fab, node, port));
  }
  std::string clean = lab->sim.dir() + "/clean.jsonl";
  std::string err = probe(*lab, "node0009 mlx5_0", clean);
  CHECK(err.find("lost link") == std::string::npos);  // nothing to recover
  auto [rc, j] = localize(*lab, "node0009 mlx5_0", {clean});
  INFO(j.dump(1));
  CHECK(rc == 0);
  CHECK(j["suspects"].empty());
}

}  // namespace lossy_discovery_lab
