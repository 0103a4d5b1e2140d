// UfmInventory: the UFM source's polls of UFM's resources, besides its events
// (daemon/sources/ufm.h). It runs on the events thread, through the same UfmClient (so the same
// breaker and health).
//
// Cadence (constants in daemon/sources/ufm.cpp, no configuration key):
//  - GET /app/alarms every ufm.poll_interval, after the events poll (the list holds open
//    alarms only: small);
//  - GET /resources/ports and GET /resources/links on the first poll and then every
//    kInventoryEvery-th poll (6: once a minute at the default 10 s interval), before the
//    events poll, and again on the next poll after a failed read. They are the fabric's size
//    (a 10,000-port fabric answers megabytes), hence the lower rate.
//
// Alarms (ingest/ufm/alarm_tracker.h): new or re-graded alarms become ufm_alarm events and
// cleared ones ufm_alarm_cleared events, named and correlated like UFM events (fabric names,
// peer and cable from the topology and plan; where the topology lacks the port, the peer from
// UFM's own view below). The open set goes to the store as cursor "ufm_alarms" in the same
// batch, so an alarm that stays open is stored once, also across restarts.
//
// Ports and links (ingest/ufm/port_state.h): UFM's view of every port is kept in the store
// (ufm_ports, the "ufm" object of `ibwarden ports`), written when it changes; a port is keyed
// by the fabric's node GUID when the topology knows UFM's system GUID for it but not the GUID
// of UFM's port name. high_ber_severity changes become high_ber / high_ber_cleared events in
// the same batch. State changes are recorded, not turned into link events (UFM reports those
// as events 329/328). The ports list also refreshes the index that turns port labels in event
// text into numbers (ingest/ufm/event_poller.h).
// Not thread-safe: the events thread owns it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/topology.h"
#include "ingest/ufm/alarm_tracker.h"
#include "ingest/ufm/client.h"
#include "ingest/ufm/port_state.h"
#include "store/store.h"

namespace ibw::daemon {

struct UfmInventoryResult {
  bool ok = false;
  std::string error;        // what failed ("GET .../resources/links: HTTP 503"); "" when none
  store::WriteBatch batch;  // to store; empty when nothing changed
  size_t listed = 0;        // ports or alarms in UFM's answer
  size_t links = 0;         // links in UFM's answer (ports poll)
  size_t changed = 0;       // ports upserted / alarms raised
  size_t removed = 0;       // ports removed / alarms cleared
};

class UfmInventory {
 public:
  // client must outlive it. alarm_cursor: the stored "ufm_alarms" cursor; stored_ports: the
  // store's ufm_ports (Store::ufm_ports()), so that a restart reports only real changes.
  UfmInventory(ingest::UfmClient& client, ingest::UfmTimeContext time,
               const std::optional<std::string>& alarm_cursor,
               const std::vector<ingest::UfmPortState>& stored_ports);

  // GET /resources/ports, then GET /resources/links. ok when the ports were read; after a
  // failed links read the last links read (else the ports' own peer fields) give the peers,
  // and error says so.
  UfmInventoryResult poll_ports(const Topology* topo, int64_t now_us);
  // GET /app/alarms.
  UfmInventoryResult poll_alarms(const Topology* topo, int64_t now_us);

  // The latest ports list as an index for the event poller; null before the first read.
  std::shared_ptr<const ingest::UfmPortIndex> index() const { return index_; }
  // Events whose port has no peer yet get the peer UFM's view gives it (named from the
  // fabric when the topology knows that GUID), and the plan's cable at the port.
  void fill_peers(const Topology* topo, std::vector<ingest::Event>& events) const;

 private:
  ingest::UfmClient& client_;
  ingest::UfmTimeContext time_;
  ingest::UfmAlarmTracker alarms_;
  ingest::UfmPortStates ports_;
  std::shared_ptr<const ingest::UfmPortIndex> index_;
  std::vector<ingest::UfmLink> links_;  // the last links read
  bool have_links_ = false;
};

}  // namespace ibw::daemon
