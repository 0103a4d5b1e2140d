#include "app/topology.h"

#include "fabric/ibnd_loader.h"
#include "fabric/topology.h"

#include <algorithm>
#include <unordered_map>

namespace ibw::app {

std::shared_ptr<const Topology> make_topology(fabric::Fabric fab, const fabric::Plan* plan,
                                              int64_t now_us) {
  auto topo = std::make_shared<Topology>();
  topo->fabric = std::move(fab);
  topo->correlator = std::make_unique<ingest::Correlator>(topo->fabric, plan);
  topo->discovered_us = now_us;
  std::unordered_map<std::string, const fabric::PlannedLink*> planned;
  if (plan)
    for (const auto& l : plan->links) planned.emplace(l.cable_id, &l);
  for (uint32_t i = 0; i < topo->fabric.size(); ++i) {
    const fabric::Node& n = topo->fabric.node(i);
    const fabric::Port* p0 = n.port(0);
    uint16_t sw_lid = (n.type == fabric::NodeType::sw && p0) ? p0->lid : 0;
    for (const fabric::Port& p : n.ports) {
      if (p.number == 0 || !p.has_peer()) continue;
      uint16_t lid = n.type == fabric::NodeType::sw ? sw_lid : p.lid;
      if (lid) topo->targets.push_back({n.guid, lid, p.number});
      const fabric::Node& peer = topo->fabric.node(p.peer_node);
      const fabric::Port* far = peer.port(p.peer_port);
      rules::LinkInfo l;
      l.node_guid = n.guid, l.port = p.number;
      l.peer_guid = peer.guid, l.peer_port = p.peer_port;
      l.active_width = p.width_active, l.active_speed = p.speed_active;
      if (far) {  // the best both ends have enabled
        l.enabled_width = std::min(p.width_enabled, far->width_enabled);
        l.enabled_speed = std::min(p.speed_enabled, far->speed_enabled);
      }
      if (auto it = planned.find(topo->correlator->cable_at(n.guid, p.number)); it != planned.end())
        l.plan_width = it->second->width, l.plan_speed = it->second->speed;
      topo->links.push_back(l);
    }
  }
  return topo;
}

std::shared_ptr<const Topology> discover_topology(const config::Config& cfg,
                                                  const fabric::Plan* plan,
                                                  const fabric::NodeNameMap* names,
                                                  int64_t now_us) {
  fabric::Fabric fab;
  if (cfg.fabric.discovery == "live") {
    fabric::LiveDiscoveryOptions opts;
    opts.ca = cfg.fabric.ca;
    opts.ca_port = cfg.fabric.ca_port;
    fab = fabric::discover_live(opts);
  } else {
    fab = fabric::load_topology_file(cfg.fabric.discovery);
  }
  fabric::apply_node_names(fab, names && !names->empty() ? names : nullptr);
  return make_topology(std::move(fab), plan, now_us);
}

}  // namespace ibw::app
