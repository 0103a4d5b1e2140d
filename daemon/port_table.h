// PortTable: the daemon's merged, in-memory state of every port (what `ibwarden ports`
// shows), fed by two producers: topology (peer, state, width, speed) and counters (values,
// deltas, rates). It keeps the last known peer of every port, so link changes are found here:
// a port whose peer differs yields link_down / link_up events (ingest/link_events.h), both at
// runtime and against the state stored before a restart. A third producer is the link check
// (daemon/sources/link_check.h): link states read straight from a trapping switch, ahead of the
// next discovery. Thread-safe (one mutex).
#pragma once

#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "daemon/topology.h"
#include "fabric/flat_table.h"
#include "ingest/counter_tracker.h"
#include "store/store.h"

namespace ibw::daemon {

// One port's link state as a PortInfo Get read it (the link check).
struct LinkStateReading {
  uint64_t node_guid = 0;
  int port = 0;
  int state = 0;       // PortInfo.PortState: 1 Down, 2 Init, 3 Armed, 4 Active
  int phys_state = 0;  // PortInfo.PortPhysicalState
};

class PortTable {
 public:
  // Loads the state stored before a restart (no events).
  void seed(std::vector<store::PortRecord> records);
  // Applies a (re)discovery that started at now_us. Returns changed records; appends link
  // events to *events. A port the link check read after now_us keeps the peer and state the
  // check gave it: that reading is newer than what this discovery saw.
  std::vector<store::PortRecord> apply_topology(const Topology& topo, int64_t now_us,
                                                std::vector<ingest::Event>* events);
  // Applies link states read at now_us. A port with a peer that reads Down loses its link,
  // and so does the peer's end (one cable: both ends go down together): link_down for both.
  // A port without a peer that reads up (Init or better) gets back the peer it last lost,
  // both ends again, with link_up for both; a port with no lost peer on record is left to the
  // next discovery, which names the new peer. Returns changed records.
  std::vector<store::PortRecord> apply_link_states(const std::vector<LinkStateReading>& readings,
                                                   int64_t now_us,
                                                   std::vector<ingest::Event>* events);
  // Applies counter readings (store::set_counters) to the ports it knows; returns how many.
  // The store takes the same readings as WriteBatch::port_counters: no record is copied.
  size_t apply_counters(const std::vector<ingest::CounterDelta>& deltas);
  size_t size() const;
  std::optional<store::PortRecord> get(uint64_t guid, int port) const;
  // The display name last seen for a node (any of its ports on record), empty when none.
  std::string node_name(uint64_t guid) const;

 private:
  static uint64_t key(uint64_t guid, int port) { return guid * 256 + static_cast<uint64_t>(port); }
  mutable std::mutex mutex_;
  // Drops r's link (peer, state Down) with a link_down event; remembers the peer in lost_.
  void drop_link(store::PortRecord& r, int64_t now_us, std::vector<ingest::Event>* events);
  // Gives r back the peer both ends last lost (link_up for both); false when they differ.
  bool restore_link(store::PortRecord& r, const LinkStateReading& x, int64_t now_us,
                    std::vector<ingest::Event>* events, std::vector<store::PortRecord>* changed);
  fabric::FlatTable<store::PortRecord> ports_;  // one lookup per reading in every scrape
  struct LostPeer {
    uint64_t guid = 0;
    int port = 0;
    std::string node;
  };
  std::unordered_map<uint64_t, LostPeer> lost_;    // the peer each port last lost
  std::unordered_map<uint64_t, int64_t> checked_;  // when the link check last read it
};

}  // namespace ibw::daemon
