#include "ingest/link_events.h"

namespace ibw::ingest {

Event link_event(std::string_view kind, const LinkEnd& self, const LinkPeer& peer, int64_t now_us) {
  Event e;
  e.time_us = now_us;
  e.source = EventSource::opensm;
  e.kind = std::string(kind);
  e.severity = kind == kind::link_down ? Severity::warning : Severity::info;
  e.node_guid = self.node_guid;
  e.port = self.port;
  e.lid = self.lid;
  e.node = self.node;
  e.peer_guid = peer.guid;
  e.peer_port = peer.port;
  e.peer_node = peer.node;
  e.cable_id = self.cable_id;
  e.message = std::string(kind == kind::link_down ? "link down: " : "link up: ") + self.node + "/" +
              std::to_string(self.port) + " - " + peer.node + "/" + std::to_string(peer.port);
  e.dedup_key = "topo:" + e.kind + ":" + std::to_string(self.node_guid) + ":" +
                std::to_string(self.port) + ":" + std::to_string(now_us);
  return e;
}

void append_link_changes(const LinkEnd& self, const LinkPeer& before, const LinkPeer& after,
                         int64_t now_us, std::vector<Event>* events) {
  if (before == after) return;
  if (before.guid) events->push_back(link_event(kind::link_down, self, before, now_us));
  if (after.guid) events->push_back(link_event(kind::link_up, self, after, now_us));
}

}  // namespace ibw::ingest
