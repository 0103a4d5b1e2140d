// A lab fat tree served by the UFM emulator and known to the daemon as a Topology (with the
// lab's cabling plan), for the unit tests of the daemon's UFM parts (tests/unit/daemon/): the
// same GUIDs and names on both sides, like a daemon next to a real UFM.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "daemon/topology.h"
#include "fabric/ibnetdiscover_parser.h"
#include "fabric/node_name_map.h"
#include "fabric/plan.h"
#include "tests/lab/fat_tree.h"
#include "tests/ufm_emulator/emulator_fixture.h"

namespace ibw::test {

class UfmFabric {
 public:
  static constexpr int64_t kNow = 1'800'000'000'000'000;

  // A two-tier fat tree (lab::two_tier_lab).
  UfmFabric(int leaves, int spines, int hosts_per_leaf)
      : fat_tree_(lab::two_tier_lab(leaves, spines, hosts_per_leaf)),
        topology_file_(write(fat_tree_)) {
    emu = std::make_unique<UfmEmulator>(std::vector<std::string>{"--topology", topology_file_});
    plan = fabric::parse_plan_csv(lab::plan_csv(fat_tree_), "plan.csv");
    fabric::Fabric f = fabric::parse_ibnetdiscover(lab::to_ibnetdiscover(fat_tree_), "t.txt");
    fabric::apply_node_names(f, nullptr);
    topo = daemon::make_topology(std::move(f), &plan, kNow);
  }
  ~UfmFabric() { std::remove(topology_file_.c_str()); }
  UfmFabric(const UfmFabric&) = delete;
  UfmFabric& operator=(const UfmFabric&) = delete;

  uint64_t guid(const std::string& name) const {
    return topo->fabric.node(topo->fabric.resolve(name)).guid;
  }

 private:
  lab::Lab fat_tree_;
  std::string topology_file_;

 public:
  std::unique_ptr<UfmEmulator> emu;
  fabric::Plan plan;
  std::shared_ptr<const daemon::Topology> topo;

 private:
  static std::string write(const lab::Lab& lab) {
    static int n = 0;
    std::string path =
        "/tmp/ibw-ut-ufm-fabric-" + std::to_string(getpid()) + "-" + std::to_string(++n) + ".txt";
    std::ofstream(path) << lab::to_ibnetdiscover(lab);
    return path;
  }
};

}  // namespace ibw::test
