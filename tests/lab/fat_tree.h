// Test lab generator: fat-tree fabrics with a matching cabling plan, optional injected
// cabling mistakes, and the audit findings those mistakes must produce.
//
// Used by integration tests (ibsim net files), the demo and the benchmark (ibnetdiscover
// text at 65,536 endpoints). Deterministic for a given spec and seed.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ibw::lab {

struct End {
  int node = 0;  // index into Lab::nodes
  int port = 0;
};

struct LabNode {
  std::string name;  // NodeDescription, e.g. "leaf003" or "node0042 mlx5_0"
  bool is_switch = false;
  int ports = 0;
  uint64_t guid = 0;
  std::string location;
  int tier = 0;         // 0 host, 1 leaf, 2 spine, 3 core
  bool planned = true;  // false for nodes injected as "unknown"
};

struct Cable {
  std::string id;
  End a, b;
  std::string kind;
};

struct Wire {  // what is really plugged in
  End a, b;
  int width = 4;
};

struct ExpectedFinding {
  std::string kind;
  std::vector<std::string> cables;
  std::vector<std::pair<std::string, std::string>> planned;  // port labels NODE/PORT
  std::vector<std::pair<std::string, std::string>> found;
};

struct Lab {
  std::vector<LabNode> nodes;  // nodes[0] is the SM/management host
  std::vector<Cable> plan;
  std::vector<Wire> wires;
  std::vector<int> absent;  // node indices removed from the real fabric
  std::vector<ExpectedFinding> expected;
  std::string speed = "HDR";
  bool partitioned = false;
  int second_view_host = -1;  // with a partition: a host on the far side
  bool opaque_names = false;

  std::string label(const End& e) const;
  // NodeDescription as the fabric reports it (opaque for switches when opaque_names).
  std::string description(int node) const;
};

struct FatTreeSpec {
  int tiers = 2;  // 2: leaves+spines; 3: k-ary fat tree (uses k)
  int leaves = 4;
  int spines = 2;
  int hosts_per_leaf = 4;
  int links_per_pair = 1;     // parallel leaf-spine links
  int k = 8;                  // 3-tier radix
  int spare_ports = 2;        // unused ports per switch (room for misplugs and extra links)
  bool opaque_names = false;  // switch descriptions "MF0;switch-<guid>" (needs a name map)
};

struct Mistakes {
  int swap = 0, drop = 0, misplug = 0, extra = 0, degrade = 0, unknown = 0, missing_node = 0;
  bool partition = false;
  uint32_t seed = 1;
};

Lab make_fat_tree(const FatTreeSpec& spec);
// make_fat_tree() of a 2-tier spec: `leaves` leaves, `spines` spines, `hosts` hosts per leaf.
Lab two_tier_lab(int leaves, int spines, int hosts);
// Applies mistakes to lab.wires and records the findings they must produce.
// Throws std::runtime_error when the fabric is too small for the requested mistakes.
void inject_mistakes(Lab& lab, const Mistakes& m);

// Writers.
std::string to_ibsim_net(const Lab& lab);      // ibsim -s input; nodes[0] first
std::string to_ibnetdiscover(const Lab& lab);  // as `ibnetdiscover` prints it
std::string plan_csv(const Lab& lab);
std::string plan_yaml(const Lab& lab);
std::string plan_ndt(const Lab& lab);
std::string node_name_map(const Lab& lab);  // 0xGUID "name" for every node
std::string expected_json(const Lab& lab);

}  // namespace ibw::lab
