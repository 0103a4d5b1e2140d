// Fat-tree construction: 2-tier leaf/spine or 3-tier k-ary (Al-Fares) topologies.
#include <cstdio>
#include <stdexcept>

#include "tests/lab/fat_tree.h"

namespace ibw::lab {
namespace {

constexpr uint64_t kSwitchGuidBase = 0xb83fd20300000000ULL;
constexpr uint64_t kCaGuidBase = 0x0c42a10300000000ULL;

std::string fmt(const char* pattern, int v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, pattern, v);
  return buf;
}

struct Builder {
  Lab lab;
  int switches = 0, cas = 0;

  int add_switch(std::string name, int ports, int tier, std::string location) {
    LabNode n{std::move(name),     true, ports, kSwitchGuidBase + static_cast<uint64_t>(++switches),
              std::move(location), tier, true};
    lab.nodes.push_back(std::move(n));
    return static_cast<int>(lab.nodes.size() - 1);
  }
  int add_host(int number, std::string location) {
    LabNode n{fmt(number > 9999 ? "node%05d mlx5_0" : "node%04d mlx5_0", number),
              false,
              1,
              kCaGuidBase + 2 * static_cast<uint64_t>(++cas),
              std::move(location),
              0,
              true};
    lab.nodes.push_back(std::move(n));
    return static_cast<int>(lab.nodes.size() - 1);
  }
  void cable(int a, int ap, int b, int bp, const char* kind) {
    std::string id = "C-" + lab.nodes[a].name + "-" + std::to_string(ap);
    lab.plan.push_back({id, {a, ap}, {b, bp}, kind});
    lab.wires.push_back({{a, ap}, {b, bp}, 4});
  }
};

// Hosts first so that nodes[0] (where ibsim attaches the SM) is a host, as on real fabrics.
Lab two_tier(const FatTreeSpec& s) {
  if (s.leaves < 1 || s.spines < 1 || s.hosts_per_leaf < 1 || s.links_per_pair < 1)
    throw std::runtime_error("2-tier fat tree needs at least one leaf, spine, host and link");
  Builder b;
  std::vector<int> hosts, leaves, spines;
  for (int l = 0; l < s.leaves; ++l)
    for (int h = 0; h < s.hosts_per_leaf; ++h)
      hosts.push_back(
          b.add_host(l * s.hosts_per_leaf + h + 1, fmt("R%02d", l + 1) + fmt("-U%02d", h + 2)));
  int leaf_ports = s.hosts_per_leaf + s.spines * s.links_per_pair + s.spare_ports;
  int spine_ports = s.leaves * s.links_per_pair + s.spare_ports;
  for (int l = 0; l < s.leaves; ++l)
    leaves.push_back(b.add_switch(fmt("leaf%03d", l + 1), leaf_ports, 1, fmt("R%02d-U40", l + 1)));
  for (int p = 0; p < s.spines; ++p)
    spines.push_back(
        b.add_switch(fmt("spine%03d", p + 1), spine_ports, 2, fmt("N01-U%02d", p + 1)));
  for (int l = 0; l < s.leaves; ++l) {
    for (int h = 0; h < s.hosts_per_leaf; ++h)
      b.cable(leaves[l], h + 1, hosts[l * s.hosts_per_leaf + h], 1, "host");
    for (int p = 0; p < s.spines; ++p)
      for (int r = 0; r < s.links_per_pair; ++r)
        b.cable(leaves[l], s.hosts_per_leaf + p * s.links_per_pair + r + 1, spines[p],
                l * s.links_per_pair + r + 1, "leaf-spine");
  }
  return std::move(b.lab);
}

// k-ary fat tree: k pods of k/2 leaves and k/2 spines, (k/2)^2 cores, k^3/4 hosts.
Lab three_tier(const FatTreeSpec& s) {
  if (s.k < 2 || s.k % 2) throw std::runtime_error("3-tier fat tree needs an even k >= 2");
  int half = s.k / 2;
  Builder b;
  b.lab.nodes.reserve(static_cast<size_t>(s.k) * s.k * s.k / 4 + 5 * s.k * s.k / 4);
  std::vector<int> hosts, leaves, spines, cores;
  for (int p = 0; p < s.k; ++p)
    for (int e = 0; e < half; ++e)
      for (int h = 0; h < half; ++h)
        hosts.push_back(b.add_host(static_cast<int>(hosts.size()) + 1,
                                   fmt("P%02d", p + 1) + fmt("-R%02d", e + 1)));
  int radix = s.k + s.spare_ports;
  for (int p = 0; p < s.k; ++p)
    for (int e = 0; e < half; ++e)
      leaves.push_back(b.add_switch(fmt("leaf%04d", p * half + e + 1), radix, 1,
                                    fmt("P%02d", p + 1) + fmt("-R%02d-U40", e + 1)));
  for (int p = 0; p < s.k; ++p)
    for (int a = 0; a < half; ++a)
      spines.push_back(b.add_switch(fmt("spine%04d", p * half + a + 1), radix, 2,
                                    fmt("P%02d", p + 1) + fmt("-N01-U%02d", a + 1)));
  for (int c = 0; c < half * half; ++c)
    cores.push_back(b.add_switch(fmt("core%04d", c + 1), radix, 3, fmt("C%02d", c / half + 1)));
  for (int p = 0; p < s.k; ++p) {
    for (int e = 0; e < half; ++e) {
      int leaf = leaves[p * half + e];
      for (int h = 0; h < half; ++h)
        b.cable(leaf, h + 1, hosts[(p * half + e) * half + h], 1, "host");
      for (int a = 0; a < half; ++a)
        b.cable(leaf, half + a + 1, spines[p * half + a], e + 1, "leaf-spine");
    }
    for (int a = 0; a < half; ++a)
      for (int j = 0; j < half; ++j)
        b.cable(spines[p * half + a], half + j + 1, cores[a * half + j], p + 1, "spine-core");
  }
  return std::move(b.lab);
}

}  // namespace

std::string Lab::label(const End& e) const {
  return nodes[e.node].name + "/" + std::to_string(e.port);
}

std::string Lab::description(int node) const {
  const LabNode& n = nodes[node];
  if (!opaque_names || !n.is_switch) return n.name;
  char buf[64];
  std::snprintf(buf, sizeof buf, "MF0;sw-%012llx:MQM8700/U1",
                static_cast<unsigned long long>(n.guid & 0xffffffffffffULL));
  return buf;
}

Lab two_tier_lab(int leaves, int spines, int hosts) {
  FatTreeSpec spec;
  spec.leaves = leaves, spec.spines = spines, spec.hosts_per_leaf = hosts;
  return make_fat_tree(spec);
}

Lab make_fat_tree(const FatTreeSpec& spec) {
  if (spec.spare_ports < 0) throw std::runtime_error("spare_ports must be >= 0");
  Lab lab = spec.tiers == 3 ? three_tier(spec) : two_tier(spec);
  lab.opaque_names = spec.opaque_names;
  return lab;
}

}  // namespace ibw::lab
