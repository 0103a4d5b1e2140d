// LidIndex, trace_path, pairs_crossing and format_path. trace_path and pairs_crossing share
// one step function (routing_detail::step_from), so the pairs a port "carries" are exactly the
// pairs whose traced hops use it, broken routes included.
#include <algorithm>

#include "fabric/crossing_walker.h"
#include "fabric/routing.h"
#include "fabric/routing_step.h"

namespace ibw::fabric {
namespace routing_detail {

constexpr uint8_t kPortActive = 4;

bool port_active_or_unknown(const Port* p) {
  return p && (p->state == 0 || p->state == kPortActive);
}

Step step_from(const Fabric& fabric, const Lft* lft, uint32_t node, int in_port, int src_port,
               const Destination& dst) {
  const Node& n = fabric.node(node);
  Step s;
  bool is_switch = n.type == NodeType::sw;
  if (node == dst.node && (is_switch || in_port == dst.port)) return s;  // arrived
  int out = 0;
  if (is_switch) {
    if (!lft) return {StepStatus::no_lft};
    uint8_t entry = lft->port_for(dst.lid);
    if (entry == kNoLftEntry) return {StepStatus::no_entry};
    if (entry == 0) return {StepStatus::port_zero};
    if (entry > n.num_ports) return {StepStatus::bad_port, entry};
    out = entry;
  } else {
    if (in_port != 0) return {StepStatus::not_destination};
    out = src_port;
  }
  const Port* p = n.port(out);
  if (!p || !p->has_peer()) return {StepStatus::no_link, out};
  const Port* peer = fabric.node(p->peer_node).port(p->peer_port);
  if (!port_active_or_unknown(p) || !port_active_or_unknown(peer))
    return {StepStatus::link_down, out};
  return {StepStatus::forward, out, p->peer_node, p->peer_port};
}

std::string step_error(const Fabric& fabric, uint32_t node, const Step& s, uint16_t dlid) {
  const Node& n = fabric.node(node);
  std::string name = n.name.empty() ? format_guid(n.guid) : n.name;
  std::string lid = "LID " + std::to_string(dlid);
  switch (s.status) {
    case StepStatus::no_lft:
      return "no forwarding table for switch " + name + " (" + format_guid(n.guid) + ")";
    case StepStatus::no_entry:
      return name + " has no forwarding entry for " + lid;
    case StepStatus::port_zero:
      return name + " forwards " + lid + " to its port 0 but does not own that LID";
    case StepStatus::bad_port:
      return "bad forwarding table entry at " + name + ": " + lid + " -> port " +
             std::to_string(s.out_port) + " of " + std::to_string(n.num_ports);
    case StepStatus::no_link:
      return fabric.port_label(node, s.out_port) + " (out port for " + lid + ") has no link";
    case StepStatus::link_down:
      return "the link at " + fabric.port_label(node, s.out_port) + " (out port for " + lid +
             ") is not Active";
    case StepStatus::not_destination:
      return "the path reaches " + name + ", which does not own " + lid;
    default:
      return {};
  }
}

}  // namespace routing_detail

LidIndex::LidIndex(const Fabric& fabric) {
  auto add = [&](uint16_t lid, uint32_t node, int port) {
    if (lid == 0) return;
    if (lid >= by_lid_.size()) by_lid_.resize(size_t{lid} + 1, {kNoNode, 0});
    if (by_lid_[lid].first != kNoNode) return;  // a duplicate LID: the first node keeps it
    by_lid_[lid] = {node, port};
    lids_.push_back(lid);
  };
  for (uint32_t i = 0; i < fabric.size(); ++i) {
    const Node& n = fabric.node(i);
    if (n.type == NodeType::sw) {
      for (const Port& p : n.ports)
        if (p.lid) {
          add(p.lid, i, 0);
          break;
        }
      continue;
    }
    for (size_t port = 1; port < n.ports.size(); ++port)
      add(n.ports[port].lid, i, static_cast<int>(port));
  }
  std::sort(lids_.begin(), lids_.end());
}

std::optional<std::pair<uint32_t, int>> LidIndex::find(uint16_t lid) const {
  if (lid >= by_lid_.size() || by_lid_[lid].first == kNoNode) return std::nullopt;
  return by_lid_[lid];
}

PathResult trace_path(const Fabric& fabric, const RoutingTables& tables, const LidIndex& lids,
                      uint16_t src_lid, uint16_t dst_lid) {
  PathResult r;
  auto src = lids.find(src_lid);
  auto dst = lids.find(dst_lid);
  if (!src) r.error = "source LID " + std::to_string(src_lid) + " is not assigned in the fabric";
  if (!dst && r.error.empty())
    r.error = "destination LID " + std::to_string(dst_lid) + " is not assigned in the fabric";
  if (!r.ok()) return r;
  if (src_lid == dst_lid) {
    r.hops.push_back({src->first, 0, 0});
    return r;
  }
  routing_detail::Destination d{dst_lid, dst->first, dst->second};
  uint32_t node = src->first;
  int in_port = 0;
  while (true) {
    if (r.hops.size() >= kMaxPathHops) {
      r.error = "no route from LID " + std::to_string(src_lid) + " to LID " +
                std::to_string(dst_lid) + " within " + std::to_string(kMaxPathHops) +
                " hops (routing loop)";
      break;
    }
    const Node& n = fabric.node(node);
    const Lft* lft = n.type == NodeType::sw ? tables.find(n.guid) : nullptr;
    routing_detail::Step s = routing_detail::step_from(fabric, lft, node, in_port, src->second, d);
    r.hops.push_back({node, in_port, s.out_port});
    if (s.status == routing_detail::StepStatus::arrived) break;
    if (s.status != routing_detail::StepStatus::forward) {
      r.error = routing_detail::step_error(fabric, node, s, dst_lid);
      break;
    }
    node = s.next_node;
    in_port = s.next_port;
  }
  return r;
}

namespace routing_detail {

// A source or destination LID, with the first step of a non-switch source (which does not
// depend on the destination: a CA only ever leaves through its own port).
struct Endpoint {
  uint16_t lid = 0;
  uint32_t node = kNoNode;
  int port = 0;
  bool is_switch = false;
  bool first_hop_crosses = false;   // the source's own hop uses the link
  uint32_t first_switch = kNoNode;  // compact index of the switch its link leads to, if any
};

}  // namespace routing_detail

std::vector<std::pair<uint16_t, uint16_t>> pairs_crossing(const Fabric& fabric,
                                                          const RoutingTables& tables,
                                                          const LidIndex& lids, uint32_t node,
                                                          int port, bool include_switches) {
  using routing_detail::Endpoint;
  std::vector<std::pair<uint16_t, uint16_t>> out;
  if (node >= fabric.size() || port < 1 || port > fabric.node(node).num_ports) return out;
  routing_detail::CrossingWalker walker(fabric, tables, node, port);

  std::vector<Endpoint> ends;
  for (uint16_t lid : lids.lids()) {
    auto at = lids.find(lid);
    Endpoint e{lid, at->first, at->second};
    e.is_switch = fabric.node(e.node).type == NodeType::sw;
    if (e.is_switch && !include_switches) continue;
    if (!e.is_switch) {
      // A CA's first hop: step_from with a destination it can never be (in_port 0).
      routing_detail::Step s = routing_detail::step_from(fabric, nullptr, e.node, 0, e.port,
                                                         routing_detail::Destination{});
      e.first_hop_crosses = walker.uses_link(e.node, s.out_port);
      if (s.status == routing_detail::StepStatus::forward)
        e.first_switch = walker.switch_index(s.next_node);
    }
    ends.push_back(e);
  }

  std::vector<uint32_t> packed;  // src << 16 | dst, sorted at the end
  for (const Endpoint& dst : ends) {
    routing_detail::Destination d{dst.lid, dst.node, dst.port};
    walker.compute(d);
    for (const Endpoint& src : ends) {
      if (src.lid == dst.lid) continue;
      bool crosses = false;
      if (src.is_switch) {
        crosses = walker.dist(walker.switch_index(src.node)) < uint32_t{kMaxPathHops};
      } else if (src.first_hop_crosses) {
        crosses = true;
      } else if (src.first_switch != kNoNode) {
        uint32_t rest = walker.dist(src.first_switch);
        crosses = rest != routing_detail::kNever && rest + 1 < uint32_t{kMaxPathHops};
      }
      if (crosses) packed.push_back(uint32_t{src.lid} << 16 | dst.lid);
    }
  }
  std::sort(packed.begin(), packed.end());
  out.reserve(packed.size());
  for (uint32_t p : packed)
    out.emplace_back(static_cast<uint16_t>(p >> 16), static_cast<uint16_t>(p & 0xffff));
  return out;
}

std::string format_path(const Fabric& fabric, const PathResult& path) {
  std::string out;
  for (size_t i = 0; i < path.hops.size(); ++i) {
    const Hop& h = path.hops[i];
    if (i > 0) out += " -> ";
    if (h.in_port) out += fabric.port_label(h.node, h.in_port);
    if (h.in_port && h.out_port) out += ' ';
    if (h.out_port) out += fabric.port_label(h.node, h.out_port);
    if (!h.in_port && !h.out_port) {
      const Node& n = fabric.node(h.node);
      out += n.name.empty() ? format_guid(n.guid) : n.name;
    }
  }
  if (!path.ok()) out += (out.empty() ? "" : "; ") + path.error;
  return out;
}

}  // namespace ibw::fabric
