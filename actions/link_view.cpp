// The link remediation acts on; see link_view.h.
#include "actions/link_view.h"

#include <cstdio>

#include "store/remedy_json.h"

namespace ibw::actions {

namespace link_view_detail {

uint16_t lid_of(const fabric::Fabric& f, uint32_t node, int port) {
  const fabric::Node& n = f.node(node);
  if (n.type == fabric::NodeType::sw) {
    if (const fabric::Port* p0 = n.port(0); p0 && p0->lid) return p0->lid;
  }
  if (const fabric::Port* p = n.port(port); p && p->lid) return p->lid;
  for (const auto& p : n.ports)
    if (p.lid) return p.lid;
  return 0;
}

void fill_end(const RemedyContext& ctx, core::LinkEnd& e) {
  if (ctx.correlator) e.node = ctx.correlator->node_name(e.guid);
  if (e.node.empty() && ctx.fabric) {
    uint32_t at = ctx.fabric->find_guid(e.guid);
    if (at != fabric::kNoNode) e.node = ctx.fabric->node(at).name;
  }
  if (e.node.empty() && ctx.known_name) e.node = ctx.known_name(e.guid);
  if (e.node.empty()) e.node = fabric::format_guid(e.guid);
}

}  // namespace link_view_detail

std::string end_text(const core::LinkEnd& e) {
  if (e.guid == 0 && e.node.empty()) return "";
  std::string name = e.node.empty() ? fabric::format_guid(e.guid) : e.node;
  return e.port == 0 ? name : name + "/" + std::to_string(e.port);  // port 0: the whole node
}

PortAddress node_address(const RemedyContext& ctx, uint64_t guid, int port,
                         const std::set<PortKey>& avoid) {
  PortAddress a;
  if (!ctx.fabric) return a;
  const fabric::Fabric& f = *ctx.fabric;
  uint32_t target = f.find_guid(guid);
  if (target == fabric::kNoNode) return a;
  a.lid = link_view_detail::lid_of(f, target, port);
  uint32_t start = ctx.local_port.guid ? f.find_guid(ctx.local_port.guid) : fabric::kNoNode;
  if (start == fabric::kNoNode) return a;
  if (start == target) return a.dr_path = "0", a;
  // Breadth first from the local node; only switches are passed through, and never the link
  // being acted on (a Set that disables the link it travelled over gets no answer back).
  auto usable = [&](uint32_t n, const fabric::Port& p) {
    if (n == target && p.number == port) return false;
    if (p.has_peer() && p.peer_node == target && p.peer_port == port) return false;
    if (!p.has_peer() || p.phys_state == fabric::kPhysDisabled || p.state == 1) return false;
    if (avoid.count(PortKey{f.node(n).guid, p.number})) return false;
    const fabric::Port* far = f.node(p.peer_node).port(p.peer_port);
    if (far && (far->phys_state == fabric::kPhysDisabled || far->state == 1)) return false;
    return !avoid.count(PortKey{f.node(p.peer_node).guid, p.peer_port});
  };
  std::vector<std::pair<uint32_t, int>> from(f.size(), {fabric::kNoNode, 0});
  std::vector<char> seen(f.size(), 0);
  std::vector<uint32_t> queue{start};
  seen[start] = 1;
  for (size_t head = 0; head < queue.size() && !seen[target]; ++head) {
    uint32_t at = queue[head];
    const fabric::Node& n = f.node(at);
    if (at != start && n.type != fabric::NodeType::sw) continue;
    for (const auto& p : n.ports) {
      if (p.number == 0 || (at == start && p.number != ctx.local_port.port)) continue;
      if (!usable(at, p) || seen[p.peer_node]) continue;
      seen[p.peer_node] = 1;
      from[p.peer_node] = {at, p.number};
      queue.push_back(p.peer_node);
    }
  }
  if (!seen[target]) return a;
  std::vector<int> hops;
  for (uint32_t at = target; at != start; at = from[at].first) hops.push_back(from[at].second);
  a.dr_path = "0";
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) a.dr_path += "," + std::to_string(*it);
  return a;
}

std::optional<std::pair<PortKey, PortKey>> parse_link_key(const std::string& key) {
  unsigned long long ga = 0, gb = 0;
  int pa = 0, pb = 0;
  if (std::sscanf(key.c_str(), "0x%llx/%d~0x%llx/%d", &ga, &pa, &gb, &pb) == 4)
    return std::pair{PortKey{ga, pa}, PortKey{gb, pb}};
  if (std::sscanf(key.c_str(), "0x%llx/%d", &ga, &pa) == 2)
    return std::pair{PortKey{ga, pa}, PortKey{}};
  return std::nullopt;
}

LinkView link_view(const RemedyContext& ctx, uint64_t guid, int port) {
  LinkView v;
  v.a.guid = guid, v.a.port = port;
  v.target = {guid, port};
  const fabric::Fabric* f = ctx.fabric;
  uint32_t node = f ? f->find_guid(guid) : fabric::kNoNode;
  if (node != fabric::kNoNode) {
    const fabric::Port* p = f->node(node).port(port);
    if (p && p->has_peer()) {
      const fabric::Node& peer = f->node(p->peer_node);
      v.b.guid = peer.guid, v.b.port = p->peer_port;
      if (f->node(node).type != fabric::NodeType::sw && peer.type == fabric::NodeType::sw)
        v.target = {peer.guid, p->peer_port};
    }
  }
  v.address = node_address(ctx, v.target.guid, v.target.port);
  link_view_detail::fill_end(ctx, v.a);
  if (v.b.guid) link_view_detail::fill_end(ctx, v.b);
  if (ctx.correlator) {
    v.cable_id = ctx.correlator->cable_at(guid, port);
    if (v.cable_id.empty() && v.b.guid) v.cable_id = ctx.correlator->cable_at(v.b.guid, v.b.port);
  }
  if (const fabric::PlannedLink* pl = ctx.plan ? ctx.plan->find(v.cable_id) : nullptr) {
    bool a_first = pl->a.node == v.a.node || pl->a.node == fabric::format_guid(v.a.guid);
    v.a.location = a_first ? pl->a.location : pl->b.location;
    v.b.location = a_first ? pl->b.location : pl->a.location;
    if (!v.b.guid && v.b.node.empty()) {  // peer not discovered: name it from the plan
      v.b.node = a_first ? pl->b.node : pl->a.node;
      v.b.port = a_first ? pl->b.port : pl->a.port;
    }
  }
  v.link_key = v.b.guid ? core::link_key(v.a.guid, v.a.port, v.b.guid, v.b.port)
                        : core::link_key(v.a.guid, v.a.port, 0, 0);
  return v;
}

std::set<PortKey> ports_to_avoid(const GuardState& state) {
  std::set<PortKey> avoid = state.disabled;
  for (const auto& [port, far] : state.peer_of) avoid.insert(far);
  return avoid;
}

core::DecisionRecord decision_for(const LinkView& l, const std::string& rule, int64_t now) {
  core::DecisionRecord d;
  d.time_us = now;
  d.rule = rule;
  d.node_guid = l.a.guid, d.node = l.a.node, d.port = l.a.port;
  d.peer_guid = l.b.guid, d.peer_node = l.b.node, d.peer_port = l.b.port;
  d.cable_id = l.cable_id;
  d.link_key = l.link_key;
  return d;
}

}  // namespace ibw::actions
