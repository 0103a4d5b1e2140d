// Fabrics built in code for the fabric/ unit tests: NetBase adds nodes with consecutive GUIDs
// and links them; lose_link() forgets a link on both ends, as a discovery that lost its SMP
// does.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <utility>

#include "fabric/model.h"

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

}  // namespace ibw::test_net
