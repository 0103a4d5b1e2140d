// Integration: `ibwarden route` on a live ibsim + OpenSM fat tree: a traced path runs from
// the source host through its leaf to the destination host, and every pair listed as
// crossing a host's port has that host at one end.
#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "fabric/ibnetdiscover_parser.h"
#include "fabric/node_name_map.h"
#include "tests/lab/daemon_config.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using nlohmann::json;

namespace route_cli {

uint16_t lid_of(const ibw::fabric::Fabric& fab, const std::string& name) {
  uint32_t n = fab.resolve(name);
  REQUIRE(n != ibw::fabric::kNoNode);
  return fab.node(n).ports[1].lid;
}

TEST_CASE("route: trace and crossing pairs through the CLI - LFTs read live",
          "[integration][route]") {
  auto lab = ibw::lab::two_tier_lab(3, 2, 2);
  ibw::lab::SimLab sim({ibw::lab::to_ibsim_net(lab)});
  std::string config = sim.dir() + "/ibwarden.yaml";
  ibw::lab::DaemonConfig()
      .set("opensm", "dump_dir", sim.dir() + "/none")
      .set("store", "path", "x.db")
      .write(config);
  auto disc = sim.run({"ibnetdiscover"});
  REQUIRE(disc.status == 0);
  auto fab = ibw::fabric::parse_ibnetdiscover(disc.out, "disc");
  ibw::fabric::apply_node_names(fab, nullptr);
  uint16_t a = lid_of(fab, "node0001 mlx5_0"), b = lid_of(fab, "node0006 mlx5_0");

  auto r = sim.run({IBW_BINARY, "route", "--config", config, "--from", std::to_string(a), "--to",
                    std::to_string(b), "--format", "json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  json path = json::parse(r.out);
  REQUIRE(path["hops"].size() == 5);  // host, leaf, spine, leaf, host
  CHECK(path["hops"][0]["node"] == "node0001 mlx5_0");
  CHECK(path["hops"][1]["node"] == "leaf001");
  CHECK(path["hops"][2]["node"].get<std::string>().rfind("spine", 0) == 0);
  CHECK(path["hops"][3]["node"] == "leaf003");
  CHECK(path["hops"][4]["node"] == "node0006 mlx5_0");
  CHECK(path["error"] == "");

  r = sim.run(
      {IBW_BINARY, "route", "--config", config, "--crossing", "leaf001/1", "--format", "json"});
  REQUIRE(r.status == 0);
  json crossing = json::parse(r.out);
  size_t hosts = 6;
  CHECK(crossing["pairs"] == 2 * (hosts - 1));  // node0001 to every other host and back
  for (const auto& p : crossing["crossing"]) CHECK((p["src_lid"] == a || p["dst_lid"] == a));

  CHECK(sim.run({IBW_BINARY, "route", "--config", config, "--from", "1"}).status == 2);
}

}  // namespace route_cli
