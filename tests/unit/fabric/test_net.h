// Fabrics built in code for the fabric/ unit tests: NetBase adds nodes with consecutive GUIDs
// and links them; LftNet adds LIDs and LFTs; lose_link() forgets a link on both ends, as a
// discovery that lost its SMP does.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <utility>

#include "fabric/model.h"
#include "fabric/node_name_map.h"
#include "fabric/routing.h"

namespace ibw::test_net {

struct NetBase {
  fabric::Fabric fab;
  uint64_t next_guid = 0x0002c90300001000ULL;

  // A node named `name` with `ports` ports and the next GUID; its index.
  uint32_t add_node(fabric::NodeType type, const std::string& name, int ports) {
    fabric::Node n;
    n.type = type;
    n.guid = next_guid++;
    n.description = name;
    n.num_ports = ports;
    return fab.add_node(std::move(n));
  }
  void link(uint32_t a, int ap, uint32_t b, int bp) { fab.connect(a, ap, b, bp); }
};

// Forgets the link at (name, port) on both ends; the port at (name, port).
inline fabric::Port& lose_link(fabric::Fabric& f, const char* name, int port) {
  fabric::Port* p = f.node(f.resolve(name)).port(port);
  REQUIRE(p);
  REQUIRE(p->has_peer());
  fabric::Port* far = f.node(p->peer_node).port(p->peer_port);
  far->peer_node = fabric::kNoNode, far->peer_port = 0;
  p->peer_node = fabric::kNoNode, p->peer_port = 0;
  return *p;
}

// A fabric with LIDs and LFTs built in code (the routing analyses' tests): switch LFTs start
// empty; route() sets one entry.
struct LftNet : NetBase {
  fabric::RoutingTables tables;
  uint16_t next_lid = 1;

  // The node, with LIDs: a switch one for all its ports (and an empty LFT), a CA one per port.
  uint32_t add(fabric::NodeType type, const std::string& name, int ports) {
    uint32_t i = add_node(type, name, ports);
    fabric::Node& added = fab.node(i);
    if (type == fabric::NodeType::sw) {
      for (fabric::Port& p : added.ports) p.lid = next_lid;
      ++next_lid;
      tables.by_switch[added.guid] = fabric::Lft{added.guid, added.ports[0].lid, {}};
    } else {
      for (int p = 1; p <= ports; ++p) added.ports[p].lid = next_lid++;
    }
    return i;
  }
  uint32_t sw(const std::string& name, int ports = 8) {
    return add(fabric::NodeType::sw, name, ports);
  }
  uint32_t ca(const std::string& name, int ports = 1) {
    return add(fabric::NodeType::ca, name, ports);
  }
  uint16_t lid(uint32_t node, int port = 1) const {
    const fabric::Node& n = fab.node(node);
    return n.ports[n.type == fabric::NodeType::sw ? 0 : port].lid;
  }
  fabric::Lft& lft(uint32_t node) { return tables.by_switch[fab.node(node).guid]; }
  void route(uint32_t sw_node, uint16_t dlid, int port) {
    auto& v = lft(sw_node).out_port;
    if (v.size() <= dlid) v.resize(dlid + 1, fabric::kNoLftEntry);
    v[dlid] = static_cast<uint8_t>(port);
  }
  void done() { fabric::apply_node_names(fab, nullptr); }
};

}  // namespace ibw::test_net
