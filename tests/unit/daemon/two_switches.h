// A two-switch fabric for the daemon's unit tests: leafA (GUID 0xa) and spineB (0xb), 4 ports
// each, linked port 1 - port 1 and 2 - 2 (or only 2 - 2 with link1 false), linked ports
// Active/LinkUp and the others Down.
#pragma once

#include "fabric/model.h"

namespace ibw::test {

inline fabric::Fabric two_switches(bool link1) {
  fabric::Fabric f;
  for (uint64_t guid : {0xa, 0xb}) {
    fabric::Node n;
    n.guid = guid;
    n.type = fabric::NodeType::sw;
    n.name = guid == 0xa ? "leafA" : "spineB";
    n.num_ports = 4;
    f.add_node(std::move(n));
  }
  for (uint32_t i = 0; i < 2; ++i)
    for (auto& p : f.node(i).ports) p.present = true, p.state = p.number ? 1 : 4;
  if (link1) f.connect(0, 1, 1, 1);
  f.connect(0, 2, 1, 2);
  for (uint32_t i = 0; i < 2; ++i)
    for (auto& p : f.node(i).ports)
      if (p.has_peer()) p.state = 4, p.phys_state = 5;
  f.reindex();
  return f;
}

}  // namespace ibw::test
