// CrossingWalker: per destination LID, how many hops each switch's LFT path takes until it
// first uses one given link (either direction), memoised over the functional graph the LFTs
// form per destination. Internal to fabric/: pairs_crossing (routing_path.cpp) and
// hosts_crossing (link_hosts.cpp) share it so that they agree on which routes use a link.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "fabric/routing_step.h"

namespace ibw::fabric::routing_detail {

constexpr uint32_t kNever = UINT32_MAX;  // the path from here never uses the link

// pairs_crossing's state for one query: the switches in compact order with their tables, and
// per destination the number of hops from each switch until its path first uses the link.
class CrossingWalker {
 public:
  CrossingWalker(const Fabric& fabric, const RoutingTables& tables, uint32_t node, int port)
      : fabric_(fabric), sw_index_(fabric.size(), kNoNode) {
    for (uint32_t i = 0; i < fabric.size(); ++i) {
      const Node& n = fabric.node(i);
      if (n.type != NodeType::sw) continue;
      sw_index_[i] = static_cast<uint32_t>(switches_.size());
      switches_.push_back(i);
      lfts_.push_back(tables.find(n.guid));
    }
    end_a_ = {node, port};
    const Port* p = fabric.node(node).port(port);
    if (p && p->has_peer()) end_b_ = {p->peer_node, p->peer_port};
    dist_.resize(switches_.size());
    state_.resize(switches_.size());
    stack_.reserve(switches_.size());
  }

  // True when a hop at node leaving through out_port uses the link.
  bool uses_link(uint32_t node, int out_port) const {
    return out_port != 0 && ((node == end_a_.first && out_port == end_a_.second) ||
                             (node == end_b_.first && out_port == end_b_.second));
  }

  uint32_t switch_index(uint32_t node) const { return sw_index_[node]; }
  uint32_t dist(uint32_t sw) const { return dist_[sw]; }

  // Fills dist() for destination d: one walk per unvisited switch along its next-switch
  // chain, stopping at a switch already done, at a terminal step, at a switch whose own hop
  // uses the link (distance 0), or at a switch on the current walk (a cycle that never uses
  // the link, since the walk would have stopped at such a switch). O(switches). With
  // `starts` (compact indices), only the switches on their paths are walked (and dist() is
  // valid only for those): each hop reads one LFT entry, a cache miss on a large fabric.
  void compute(const Destination& d, const std::vector<uint32_t>* starts = nullptr) {
    std::fill(state_.begin(), state_.end(), kUnvisited);
    size_t n = starts ? starts->size() : switches_.size();
    for (size_t i = 0; i < n; ++i) {
      uint32_t start = starts ? (*starts)[i] : static_cast<uint32_t>(i);
      if (state_[start] != kUnvisited) continue;
      stack_.clear();
      uint32_t tail = kNever;
      uint32_t x = start;
      while (true) {
        if (state_[x] == kDone) {
          tail = dist_[x];
          break;
        }
        if (state_[x] == kOnWalk) break;  // a loop without the link
        Step s = step_from(fabric_, lfts_[x], switches_[x], /*in_port=*/1, 0, d);
        if (uses_link(switches_[x], s.out_port)) {
          dist_[x] = 0;
          state_[x] = kDone;
          tail = 0;
          break;
        }
        uint32_t next = s.status == StepStatus::forward ? sw_index_[s.next_node] : kNoNode;
        state_[x] = kOnWalk;
        stack_.push_back(x);
        if (next == kNoNode) break;  // arrived, broken, or handed to a CA: never crosses
        x = next;
      }
      for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
        tail = tail == kNever ? kNever : tail + 1;
        dist_[*it] = tail;
        state_[*it] = kDone;
      }
    }
  }

 private:
  static constexpr uint8_t kUnvisited = 0, kOnWalk = 1, kDone = 2;
  const Fabric& fabric_;
  std::vector<uint32_t> sw_index_;  // fabric node -> compact switch index, kNoNode otherwise
  std::vector<uint32_t> switches_;  // compact index -> fabric node
  std::vector<const Lft*> lfts_;
  std::pair<uint32_t, int> end_a_{kNoNode, 0}, end_b_{kNoNode, 0};
  std::vector<uint32_t> dist_;
  std::vector<uint8_t> state_;
  std::vector<uint32_t> stack_;
};

}  // namespace ibw::fabric::routing_detail
