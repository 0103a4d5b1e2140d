// The route check's channel-dependency graph (internal to fabric/route_check.cpp): one vertex
// per directed link (channel: a node's port towards its peer) and virtual lane, edges stored
// as one bit per (channel, VL, out port of the channel's head node, VL there), and the credit
// loops as one cycle per strongly connected component (Tarjan's algorithm, iterative). With
// one VL (no SL-to-VL tables) a vertex is a channel: bits = channels x max ports; with V VLs
// the bits grow V x V fold.
#pragma once

#include <cstdint>
#include <vector>

#include "fabric/model.h"
#include "fabric/route_check.h"

namespace ibw::fabric::route_check_detail {

// Numbers the channels: id(node, port) = offset of node + port - 1, for every port 1..N of
// every node (ports without a link get an id too, never used).
class ChannelIndex {
 public:
  explicit ChannelIndex(const Fabric& fabric);
  uint32_t id(uint32_t node, int port) const { return offset_[node] + port - 1; }
  size_t size() const { return from_.size(); }
  int max_ports() const { return max_ports_; }
  // The directed link of a channel (to_node kNoNode when the port has no peer).
  DirectedLink link(uint32_t node, int port) const;
  DirectedLink link(uint32_t chan) const { return link(from_[chan].first, from_[chan].second); }
  uint32_t head(uint32_t chan) const { return head_[chan]; }  // the peer node, or kNoNode
  // The peer node when the link is usable (a route may cross it), else kNoNode; its port.
  uint32_t live_head(uint32_t chan) const { return live_head_[chan]; }
  int head_port(uint32_t chan) const { return head_port_[chan]; }
  // Whether both ends of the link are Active (or of unknown state).
  bool usable(uint32_t node, int port) const;

 private:
  const Fabric& fab_;
  std::vector<uint32_t> offset_;
  std::vector<std::pair<uint32_t, int>> from_;  // channel -> (node, port)
  std::vector<uint32_t> head_, live_head_;
  std::vector<int> head_port_;
  int max_ports_ = 0;
};

class ChannelGraph {
 public:
  explicit ChannelGraph(const ChannelIndex& chans, int vls = 1);
  // The edge chan -> (the channel leaving chan's head node through head_out_port), on VL 0
  // (the one-VL graph).
  void add(uint32_t chan, int head_out_port) {
    size_t bit = size_t{chan} * stride_ + static_cast<size_t>(head_out_port - 1);
    bits_[bit >> 6] |= uint64_t{1} << (bit & 63);
  }
  // The edge (chan, vl) -> (the channel leaving chan's head through head_out_port, next_vl).
  void add(uint32_t chan, int vl, int head_out_port, int next_vl) {
    size_t v = size_t{chan} * static_cast<size_t>(vls_) + static_cast<size_t>(vl);
    size_t bit = v * stride_ + static_cast<size_t>(head_out_port - 1) * static_cast<size_t>(vls_) +
                 static_cast<size_t>(next_vl);
    bits_[bit >> 6] |= uint64_t{1} << (bit & 63);
  }
  // Adds every edge of `other` (a graph over the same channels).
  void merge(const ChannelGraph& other) {
    for (size_t i = 0; i < bits_.size(); ++i) bits_[i] |= other.bits_[i];
  }
  // One cycle per strongly connected component that has one, ordered by its first link (and
  // VL); CreditLoop::vls holds each link's VL.
  std::vector<CreditLoop> cycles() const;

 private:
  const ChannelIndex& chans_;
  size_t vls_;
  size_t stride_;  // bits per vertex: max ports x VLs, rounded up to 64
  std::vector<uint64_t> bits_;
};

}  // namespace ibw::fabric::route_check_detail
