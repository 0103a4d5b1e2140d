// hosts_crossing (static, over the LFTs) and hosts_crossing_adaptive (minimal routes between
// leaves), and hosts_of_link choosing between them; see link_hosts.h.
#include "fabric/link_hosts.h"

#include <algorithm>
#include <thread>

#include "fabric/crossing_walker.h"
#include "fabric/dest_tables.h"

namespace ibw::fabric {
namespace link_hosts_detail {

// A CA LID kept as an endpoint (inside `among`), with the switch its link leads to.
struct End {
  uint16_t lid = 0;
  uint32_t node = kNoNode;
  int port = 0;
};

std::vector<End> ca_ends(const Fabric& fabric, const LidIndex& lids,
                         const std::vector<uint8_t>* among) {
  std::vector<End> out;
  for (uint16_t lid : lids.lids()) {
    auto at = lids.find(lid);
    if (fabric.node(at->first).type == NodeType::sw) continue;
    if (among && (at->first >= among->size() || !(*among)[at->first])) continue;
    out.push_back({lid, at->first, at->second});
  }
  return out;
}

// True when the end is one side of the link at (node, port) (p: that port).
bool is_link_end(const End& e, uint32_t node, int port, const Port* p) {
  return (e.node == node && e.port == port) ||
         (p && p->has_peer() && e.node == p->peer_node && e.port == p->peer_port);
}

LinkHosts finish(std::vector<uint8_t>& marked, uint64_t pairs) {
  LinkHosts out;
  out.pairs = pairs;
  for (uint32_t i = 0; i < marked.size(); ++i)
    if (marked[i]) out.cas.push_back(i);
  return out;
}

}  // namespace link_hosts_detail

LinkHosts hosts_crossing(const Fabric& fabric, const RoutingTables& tables, const LidIndex& lids,
                         uint32_t node, int port, const std::vector<uint8_t>* among) {
  using namespace link_hosts_detail;
  using routing_detail::Destination;
  using routing_detail::Step;
  if (node >= fabric.size() || port < 1 || port > fabric.node(node).num_ports) return {};
  routing_detail::CrossingWalker walker(fabric, tables, node, port);
  std::vector<End> ends = ca_ends(fabric, lids, among);
  std::vector<uint8_t> marked(fabric.size(), 0);
  uint64_t pairs = 0;

  // Sources: those whose own hop uses the link (its host end) cross towards every other end;
  // the rest are grouped by the switch their link leads to.
  size_t nsw = 0;
  for (const Node& n : fabric.nodes()) nsw += n.type == NodeType::sw;
  std::vector<std::vector<uint32_t>> at_switch(nsw);  // indices into ends
  std::vector<uint32_t> switch_of(ends.size(), kNoNode);
  std::vector<uint32_t> source_switches;
  bool host_link = false;
  for (uint32_t i = 0; i < ends.size(); ++i) {
    const End& e = ends[i];
    Step s = routing_detail::step_from(fabric, nullptr, e.node, 0, e.port, Destination{});
    if (walker.uses_link(e.node, s.out_port)) {
      pairs += ends.size() - 1;
      host_link = ends.size() > 1;
      continue;
    }
    if (s.status != routing_detail::StepStatus::forward) continue;
    uint32_t sw = walker.switch_index(s.next_node);
    if (sw == kNoNode) continue;
    if (at_switch[sw].empty()) source_switches.push_back(sw);
    at_switch[sw].push_back(i);
    switch_of[i] = sw;
  }
  if (host_link)  // every other end is the far end of one of its pairs
    for (const End& e : ends) marked[e.node] = 1;

  // Destinations: only those that one end of the link forwards over it can be crossed.
  auto leads_over = [&](uint32_t n, int p, uint16_t lid) {
    const Node& sw = fabric.node(n);
    if (sw.type != NodeType::sw) return false;
    const Lft* lft = tables.find(sw.guid);
    return lft && lft->port_for(lid) == p;
  };
  const Port* link = fabric.node(node).port(port);
  std::vector<uint32_t> dests;  // indices into ends
  for (uint32_t di = 0; di < ends.size(); ++di)
    if (leads_over(node, port, ends[di].lid) ||
        (link && link->has_peer() && leads_over(link->peer_node, link->peer_port, ends[di].lid)))
      dests.push_back(di);

  // The destinations in contiguous shares, one per thread, each with its own walker and marks
  // (the walk is bound by LFT reads that miss the cache), merged at the end.
  struct Share {
    std::vector<uint8_t> marked, switch_marked;
    uint64_t pairs = 0;
  };
  size_t threads =
      dests.size() < 256 ? 1 : std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
  std::vector<Share> shares(threads);
  auto run = [&](Share& sh, size_t from, size_t to) {
    routing_detail::CrossingWalker w = walker;  // a copy: its own state
    sh.marked.assign(fabric.size(), 0);
    sh.switch_marked.assign(nsw, 0);
    for (size_t k = from; k < to; ++k) {
      uint32_t di = dests[k];
      const End& d = ends[di];
      w.compute(Destination{d.lid, d.node, d.port}, &source_switches);
      uint64_t into = 0;
      for (uint32_t sw : source_switches) {
        uint32_t rest = w.dist(sw);
        if (rest == routing_detail::kNever || rest + 1 >= uint32_t{kMaxPathHops}) continue;
        const std::vector<uint32_t>& here = at_switch[sw];
        if (switch_of[di] != sw) {
          into += here.size();
          sh.switch_marked[sw] = 1;
          continue;
        }
        for (uint32_t i : here)  // the destination's own switch: every source but itself
          if (i != di) ++into, sh.marked[ends[i].node] = 1;
      }
      sh.pairs += into;
      if (into) sh.marked[d.node] = 1;
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t)
    pool.emplace_back(run, std::ref(shares[t]), dests.size() * t / threads,
                      dests.size() * (t + 1) / threads);
  run(shares[0], 0, dests.size() / threads);
  for (auto& th : pool) th.join();
  for (const Share& sh : shares) {
    pairs += sh.pairs;
    for (size_t i = 0; i < marked.size(); ++i) marked[i] |= sh.marked[i];
    for (uint32_t sw : source_switches)
      if (sh.switch_marked[sw])
        for (uint32_t i : at_switch[sw]) marked[ends[i].node] = 1;
  }
  return finish(marked, pairs);
}

LinkHosts hosts_crossing_adaptive(const RouteModel& model, uint32_t node, int port,
                                  const std::vector<uint8_t>* among) {
  using namespace link_hosts_detail;
  const Fabric& fabric = model.fabric();
  if (node >= fabric.size() || port < 1 || port > fabric.node(node).num_ports) return {};
  LidIndex lids(fabric);
  std::vector<End> ends = ca_ends(fabric, lids, among);
  std::vector<uint8_t> marked(fabric.size(), 0);
  const Port* link = fabric.node(node).port(port);

  // A host's own link carries every route from and to it, whatever the routing.
  for (const End& e : ends)
    if (is_link_end(e, node, port, link)) {
      if (ends.size() < 2) return {};
      for (const End& o : ends) marked[o.node] = 1;
      return finish(marked, 2 * (ends.size() - 1));
    }

  // Switch-to-switch: the leaves (switch ordinals) and their CA ends.
  std::vector<uint64_t> weight(model.switches(), 0);
  std::vector<uint32_t> leaves;
  for (const End& e : ends) {
    auto at = model.attach(Endpoint{e.node, e.port});
    if (!at) continue;
    uint32_t o = model.ordinal(at->first);
    if (weight[o]++ == 0) leaves.push_back(o);
  }
  std::vector<std::pair<uint32_t, int>> both{{node, port}};
  if (link && link->has_peer()) both.emplace_back(link->peer_node, link->peer_port);
  std::vector<uint8_t> mask = model.edge_mask(both);
  if (std::none_of(mask.begin(), mask.end(), [](uint8_t m) { return m != 0; })) return {};
  DestTables tables(model);
  tables.prepare(leaves);
  DestTables::Crossing crosses(tables, std::move(mask));
  std::vector<uint8_t> leaf_marked(model.switches(), 0);
  uint64_t pairs = 0;
  for (uint32_t b : leaves)
    for (uint32_t a : leaves)
      if (a != b && crosses(a, b)) {
        pairs += weight[a] * weight[b];
        leaf_marked[a] = leaf_marked[b] = 1;
      }
  for (const End& e : ends) {
    auto at = model.attach(Endpoint{e.node, e.port});
    if (at && leaf_marked[model.ordinal(at->first)]) marked[e.node] = 1;
  }
  return finish(marked, pairs);
}

LinkHosts hosts_of_link(const Fabric& fab, const RoutingTables* tables, uint32_t node, int port,
                        const std::vector<uint8_t>* among, bool* asked_up) {
  auto up = [](const Port* p) {
    return !p || ((p->state == 0 || p->state == 4) && p->phys_state != kPhysDisabled);
  };
  const Port* p = fab.node(node).port(port);
  const Port* far = p && p->has_peer() ? fab.node(p->peer_node).port(p->peer_port) : nullptr;
  bool is_up = up(p) && up(far);
  if (asked_up) *asked_up = !is_up;
  if (is_up && tables) return hosts_crossing(fab, *tables, LidIndex(fab), node, port, among);
  if (is_up) return hosts_crossing_adaptive(RouteModel(fab, nullptr), node, port, among);
  Fabric restored = fab;
  restored.reindex();
  for (Port* q : {restored.node(node).port(port),
                  far ? restored.node(p->peer_node).port(p->peer_port) : nullptr})
    if (q) q->state = 0, q->phys_state = 0;
  return hosts_crossing_adaptive(RouteModel(restored, nullptr), node, port, among);
}

}  // namespace ibw::fabric
