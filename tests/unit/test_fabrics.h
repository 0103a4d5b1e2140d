// Small hand-built fabrics for unit tests of the guard and remediation: hosts, leaves and
// spines with fixed GUIDs and names, every link Active/LinkUp, switches with a port-0 LID.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fabric/model.h"

namespace ibw::test_fabric {

using fabric::Fabric;
using fabric::Node;
using fabric::NodeType;
using fabric::Port;

inline uint64_t host_guid(int i) {
  return 0x100 + static_cast<uint64_t>(i);
}
inline uint64_t leaf_guid(int i) {
  return 0x200 + static_cast<uint64_t>(i);
}
inline uint64_t spine_guid(int i) {
  return 0x300 + static_cast<uint64_t>(i);
}
inline uint64_t core_guid(int i) {
  return 0x400 + static_cast<uint64_t>(i);
}

inline std::string name_of(const char* stem, int i) {
  std::string n = std::to_string(i);
  return stem + std::string(3 - std::min<size_t>(3, n.size()), '0') + n;
}

// Switches answer on their port-0 LID (the GUID's low 12 bits); CA port p has LID
// 0x1000 + low bits * 4 + p.
inline uint32_t add(Fabric& f, uint64_t guid, NodeType type, const std::string& name, int ports) {
  Node n;
  n.guid = guid;
  n.type = type;
  n.id = name;
  n.description = name;
  n.name = name;
  n.num_ports = ports;
  uint32_t at = f.add_node(std::move(n));
  auto low = static_cast<uint16_t>(guid & 0xfff);
  Node& node = f.node(at);
  for (int p = 0; p <= ports; ++p)
    if (Port* port = node.port(p))
      port->lid = type == NodeType::sw ? low : static_cast<uint16_t>(0x1000 + low * 4 + p);
  return at;
}

inline void link(Fabric& f, uint32_t a, int ap, uint32_t b, int bp) {
  f.connect(a, ap, b, bp);
  for (auto [n, p] : {std::pair{a, ap}, std::pair{b, bp}}) {
    Port* port = f.node(n).port(p);
    port->present = true;
    port->state = 4;       // Active
    port->phys_state = 5;  // LinkUp
  }
}

// Two tiers: host h is on leaf h / hosts_per_leaf at port 1 + h % hosts_per_leaf; leaf l
// reaches spine s at port hosts_per_leaf + 1 + s; spine s reaches leaf l at its port 1 + l.
inline Fabric two_tier(int leaves, int spines, int hosts_per_leaf) {
  Fabric f;
  std::vector<uint32_t> hosts, leaf, spine;
  for (int h = 0; h < leaves * hosts_per_leaf; ++h)
    hosts.push_back(add(f, host_guid(h), NodeType::ca, name_of("host", h), 2));
  for (int l = 0; l < leaves; ++l)
    leaf.push_back(add(f, leaf_guid(l), NodeType::sw, name_of("leaf", l), 16));
  for (int s = 0; s < spines; ++s)
    spine.push_back(add(f, spine_guid(s), NodeType::sw, name_of("spine", s), 16));
  for (int h = 0; h < leaves * hosts_per_leaf; ++h)
    link(f, hosts[h], 1, leaf[h / hosts_per_leaf], 1 + h % hosts_per_leaf);
  for (int l = 0; l < leaves; ++l)
    for (int s = 0; s < spines; ++s) link(f, leaf[l], hosts_per_leaf + 1 + s, spine[s], 1 + l);
  f.reindex();
  return f;
}

}  // namespace ibw::test_fabric
