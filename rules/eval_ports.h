// The walk over a sweep's port windows in evaluate() (rules/evaluate.cpp): memory asked for
// ahead of the port being judged, and each port's peer window found among the others.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fabric/flat_map.h"
#include "fabric/prefetch.h"
#include "rules/evaluate.h"

namespace ibw::rules::eval_detail {

using fabric::prefetch_range;
using fabric::prefetch_read;

// How many ports ahead evaluate() asks for a port's data: a History-lent window's deltas and
// bounds lie apart from the window (one heap block per port), so walking them port after port
// waits on memory each time; asked for early, the loads of several ports overlap.
inline constexpr size_t kPrefetchAhead = 8;
inline void prefetch(const PortWindow& w) {
  auto ds = w.all_deltas();
  if (w.exact) {  // History's: sums over the longest window come from here, not the deltas
    prefetch_range(w.exact, sizeof(ExactStats));
  } else {
    for (const auto& d : ds) prefetch_read(&d.time_us);  // time, flags, first counters
  }
  if (w.bounds) prefetch_range(w.bounds, sizeof(DeltaBounds));
}

// The peer's window of ports[i] (where peer_at says, as PeerFinder looks first): link_flap
// reads every port's peer, whose window and bounds lie anywhere in the vector (in a k=64 lab
// those two misses were 88% of cannot_fire). Its window is asked for 2 x kPrefetchAhead ahead,
// its bounds kPrefetchAhead ahead (reading the window's pointer, in cache by then).
inline void prefetch_peer_window(const std::vector<PortWindow>& ports, size_t i) {
  if (i >= ports.size() || ports[i].peer_at >= ports.size()) return;
  prefetch_range(&ports[ports[i].peer_at], sizeof(PortWindow));
}
inline void prefetch_peer_bounds(const std::vector<PortWindow>& ports, size_t i) {
  if (i >= ports.size() || ports[i].peer_at >= ports.size()) return;
  if (const DeltaBounds* b = ports[ports[i].peer_at].bounds)  // its totals (link_flap's)
    prefetch_range(&b->total, sizeof(b->total));
}

inline uint64_t port_key(uint64_t guid, int port) {
  return guid * 257 + static_cast<uint64_t>(port);
}

// The window of a port's peer among `ports` (one window per port): where its peer_at says
// (History::windows sets it for links that know their peers), else a neighbour (a link's
// two ends often lie next to each other); the index (a random memory access per port on a
// large fabric) is built only when both miss.
class PeerFinder {
 public:
  explicit PeerFinder(const std::vector<PortWindow>& ports) : ports_(ports) {}
  const PortWindow* peer_of(size_t i) {
    const PortWindow& p = ports_[i];
    if (!p.peer_guid) return nullptr;
    uint64_t k = port_key(p.peer_guid, p.peer_port);
    if (k == kNoKey) return nullptr;  // as the index: that key is never stored
    if (p.peer_at < ports_.size() && key_at(p.peer_at) == k) return &ports_[p.peer_at];
    if (i + 1 < ports_.size() && key_at(i + 1) == k) return &ports_[i + 1];
    if (i && key_at(i - 1) == k) return &ports_[i - 1];
    if (!built_) {
      index_.reserve(ports_.size());
      for (size_t j = 0; j < ports_.size(); ++j)
        index_.emplace(key_at(j), static_cast<uint32_t>(j));
      built_ = true;
    }
    auto at = index_.find(k);
    return at ? &ports_[*at] : nullptr;
  }

 private:
  static constexpr uint64_t kNoKey = UINT64_MAX;
  uint64_t key_at(size_t j) const { return port_key(ports_[j].node_guid, ports_[j].port); }
  const std::vector<PortWindow>& ports_;
  fabric::FlatMap64 index_;
  bool built_ = false;
};

}  // namespace ibw::rules::eval_detail
