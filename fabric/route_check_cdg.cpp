// ChannelIndex and ChannelGraph: the credit loops are the strongly connected components of
// the channel-dependency graph that contain a cycle; each is reported as one cycle found by a
// breadth-first search inside the component.
#include "fabric/route_check_cdg.h"

#include <algorithm>

#include "fabric/routing_step.h"

namespace ibw::fabric::route_check_detail {

ChannelIndex::ChannelIndex(const Fabric& fabric) : fab_(fabric), offset_(fabric.size(), 0) {
  for (uint32_t i = 0; i < fabric.size(); ++i) {
    const Node& n = fabric.node(i);
    offset_[i] = static_cast<uint32_t>(from_.size());
    max_ports_ = std::max(max_ports_, n.num_ports);
    for (int p = 1; p <= n.num_ports; ++p) {
      from_.emplace_back(i, p);
      const Port* port = n.port(p);
      head_.push_back(port && port->has_peer() ? port->peer_node : kNoNode);
      head_port_.push_back(port && port->has_peer() ? port->peer_port : 0);
      live_head_.push_back(head_.back() != kNoNode && usable(i, p) ? head_.back() : kNoNode);
    }
  }
}

DirectedLink ChannelIndex::link(uint32_t node, int port) const {
  const Port* p = fab_.node(node).port(port);
  if (!p || !p->has_peer()) return {node, port, kNoNode, 0};
  return {node, port, p->peer_node, p->peer_port};
}

bool ChannelIndex::usable(uint32_t node, int port) const {
  const Port* p = fab_.node(node).port(port);
  if (!p || !p->has_peer()) return false;
  return routing_detail::port_active_or_unknown(p) &&
         routing_detail::port_active_or_unknown(fab_.node(p->peer_node).port(p->peer_port));
}

ChannelGraph::ChannelGraph(const ChannelIndex& chans, int vls)
    : chans_(chans),
      vls_(static_cast<size_t>(std::max(vls, 1))),
      stride_((static_cast<size_t>(chans.max_ports()) * vls_ + 63) / 64 * 64) {
  bits_.assign(chans.size() * vls_ * stride_ / 64 + 1, 0);
}

std::vector<CreditLoop> ChannelGraph::cycles() const {
  // Adjacency in compressed rows, from the bits; vertex = channel * VLs + VL.
  size_t n = chans_.size() * vls_;
  std::vector<uint32_t> start(n + 1, 0), succ;
  size_t words = stride_ / 64;
  for (uint32_t c = 0; c < n; ++c) {
    start[c] = static_cast<uint32_t>(succ.size());
    uint32_t head = chans_.head(static_cast<uint32_t>(c / vls_));
    for (size_t w = 0; w < words; ++w) {
      uint64_t word = bits_[c * words + w];
      while (word) {
        auto bit = static_cast<size_t>(__builtin_ctzll(word)) + w * 64;
        word &= word - 1;
        if (vls_ == 1) {
          succ.push_back(chans_.id(head, static_cast<int>(bit) + 1));
          continue;
        }
        uint32_t next = chans_.id(head, static_cast<int>(bit / vls_) + 1);
        succ.push_back(static_cast<uint32_t>(next * vls_ + bit % vls_));
      }
    }
  }
  start[n] = static_cast<uint32_t>(succ.size());

  // Tarjan, iterative: index, lowlink, the component stack and the call stack (vertex, next
  // successor position).
  constexpr uint32_t kUnset = UINT32_MAX;
  std::vector<uint32_t> index(n, kUnset), low(n, 0), comp(n, kUnset), stack;
  std::vector<uint8_t> on_stack(n, 0);
  std::vector<std::pair<uint32_t, uint32_t>> calls;
  std::vector<std::vector<uint32_t>> components;  // those with a cycle
  uint32_t counter = 0;
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] != kUnset || start[root] == start[root + 1]) continue;
    calls.push_back({root, start[root]});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!calls.empty()) {
      auto& [v, pos] = calls.back();
      if (pos < start[v + 1]) {
        uint32_t w = succ[pos++];
        if (index[w] == kUnset) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = 1;
          calls.push_back({w, start[w]});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      uint32_t done = v;
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[done]);
      if (low[done] != index[done]) continue;
      std::vector<uint32_t> members;
      uint32_t w = kUnset;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack[w] = 0;
        comp[w] = static_cast<uint32_t>(components.size());
        members.push_back(w);
      } while (w != done);
      bool self_loop = std::find(succ.begin() + start[done], succ.begin() + start[done + 1],
                                 done) != succ.begin() + start[done + 1];
      if (members.size() > 1 || self_loop) {
        components.push_back(std::move(members));
      } else {
        comp[done] = kUnset - 1;  // a single vertex without a cycle
      }
    }
  }

  // One cycle per component: breadth first from its smallest channel back to it.
  std::vector<CreditLoop> loops;
  std::vector<uint32_t> parent(n, kUnset);
  for (size_t k = 0; k < components.size(); ++k) {
    const auto& members = components[k];
    uint32_t v0 = *std::min_element(members.begin(), members.end());
    std::vector<uint32_t> queue = {v0}, touched;
    uint32_t last = kUnset;
    for (size_t h = 0; h < queue.size() && last == kUnset; ++h) {
      uint32_t u = queue[h];
      for (uint32_t p = start[u]; p < start[u + 1]; ++p) {
        uint32_t w = succ[p];
        if (comp[w] != k) continue;
        if (w == v0) {
          last = u;
          break;
        }
        if (parent[w] != kUnset) continue;
        parent[w] = u;
        touched.push_back(w);
        queue.push_back(w);
      }
    }
    std::vector<uint32_t> path;
    for (uint32_t u = last; u != v0; u = parent[u]) path.push_back(u);
    path.push_back(v0);
    std::reverse(path.begin(), path.end());
    CreditLoop loop;
    loop.channels = members.size();
    for (uint32_t v : path) {
      loop.links.push_back(chans_.link(static_cast<uint32_t>(v / vls_)));
      loop.vls.push_back(static_cast<uint8_t>(v % vls_));
    }
    loops.push_back(std::move(loop));
    for (uint32_t t : touched) parent[t] = kUnset;
  }
  return loops;
}

}  // namespace ibw::fabric::route_check_detail
