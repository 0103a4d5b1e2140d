// PortTable: the daemon's merged, in-memory state of every port (what `ibwarden ports`
// shows), fed by two producers: topology (peer, state, width, speed) and counters (values,
// deltas, rates). It keeps the last known peer of every port, so link changes are found here:
// a port whose peer differs yields link_down / link_up events (ingest/link_events.h), both at
// runtime and against the state stored before a restart. Thread-safe (one mutex).
#pragma once

#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "daemon/topology.h"
#include "ingest/counter_tracker.h"
#include "store/store.h"

namespace ibw::daemon {

class PortTable {
 public:
  // Loads the state stored before a restart (no events).
  void seed(std::vector<store::PortRecord> records);
  // Applies a (re)discovery. Returns changed records; appends link events to *events.
  std::vector<store::PortRecord> apply_topology(const Topology& topo, int64_t now_us,
                                                std::vector<ingest::Event>* events);
  // Applies counter readings; returns the updated records.
  std::vector<store::PortRecord> apply_counters(const std::vector<ingest::CounterDelta>& deltas);
  size_t size() const;
  std::optional<store::PortRecord> get(uint64_t guid, int port) const;

 private:
  static uint64_t key(uint64_t guid, int port) { return guid * 256 + static_cast<uint64_t>(port); }
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, store::PortRecord> ports_;
};

}  // namespace ibw::daemon
