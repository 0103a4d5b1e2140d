// The fabric from a store's ports; see store_fabric.h.
#include "cli/store_fabric.h"

#include <algorithm>
#include <map>

namespace ibw::cli {

fabric::Fabric fabric_from_ports(const std::vector<store::PortRecord>& ports) {
  std::map<uint64_t, std::vector<const store::PortRecord*>> by_node;
  for (const auto& p : ports) by_node[p.node_guid].push_back(&p);
  fabric::Fabric f;
  std::map<uint64_t, uint32_t> index;
  for (const auto& [guid, list] : by_node) {
    fabric::Node n;
    n.guid = guid;
    n.name = n.description = n.id = list.front()->node;
    bool one_lid = list.size() >= 2;
    for (const auto* p : list) {
      one_lid &= p->lid == list.front()->lid;
      n.num_ports = std::max(n.num_ports, p->port);
    }
    n.type = one_lid ? fabric::NodeType::sw : fabric::NodeType::ca;
    n.ports.resize(n.num_ports + 1);
    for (int i = 0; i <= n.num_ports; ++i) n.ports[i].number = i;
    if (one_lid) n.ports[0].lid = list.front()->lid, n.ports[0].present = true;
    for (const auto* p : list) {
      fabric::Port& port = n.ports[p->port];
      port.present = true;
      port.lid = p->lid;
      port.state = static_cast<uint8_t>(p->state);
      port.phys_state = static_cast<uint8_t>(p->phys_state);
      port.width_active = static_cast<uint8_t>(p->width);
      port.speed_active = fabric::parse_speed(p->speed).value_or(fabric::Speed::unknown);
    }
    index[guid] = f.add_node(std::move(n));
  }
  for (const auto& p : ports)
    if (p.peer_guid && index.count(p.peer_guid) && p.node_guid < p.peer_guid)
      f.connect(index[p.node_guid], p.port, index[p.peer_guid], p.peer_port);
  f.reindex();
  return f;
}

}  // namespace ibw::cli
