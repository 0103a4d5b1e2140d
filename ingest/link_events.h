// Link changes as events: when a port's peer differs from the last one known (a rediscovery,
// or the state stored before a restart), the old link went down and the new one came up.
// Pure: the daemon's PortTable (daemon/port_table.h) keeps the last known peers and calls this.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/event.h"

namespace ibw::ingest {

// The port whose link changed, as the fabric model and the cabling plan name it.
struct LinkEnd {
  uint64_t node_guid = 0;
  int port = 0;
  uint16_t lid = 0;
  std::string node;  // display name
  std::string cable_id;
};

// The far end of a link; guid 0 = no link.
struct LinkPeer {
  uint64_t guid = 0;
  int port = 0;
  std::string node;
  bool operator==(const LinkPeer& o) const { return guid == o.guid && port == o.port; }
};

// One link_down or link_up event (kind::link_down / kind::link_up) of `self` with `peer`, at
// now_us, source opensm (the topology is what OpenSM's traps make us rediscover). Its
// dedup_key is unique per port, kind and time.
Event link_event(std::string_view kind, const LinkEnd& self, const LinkPeer& peer, int64_t now_us);

// Appends the events of a peer change from `before` to `after`: link_down with the old peer
// (when there was one), then link_up with the new one (when there is one). Nothing when the
// peer is the same.
void append_link_changes(const LinkEnd& self, const LinkPeer& before, const LinkPeer& after,
                         int64_t now_us, std::vector<Event>* events);

}  // namespace ibw::ingest
