// UFM's view of each port, as the daemon keeps it (store table ufm_ports, the "ufm" object of
// `ibwarden ports`), built from GET /resources/ports and GET /resources/links, and what
// changes between two polls. Pure (no I/O, no clock).
//
// Sources (../shared/reference/ufm-api.md): ports §3.3 [H] (name "<guid>_<num>", systemID,
// logical_state, physical_state, active_speed, active_width, high_ber_severity "N/A" /
// warning / error [H/M], peer fields [H/M]); links §3.4 [H] (source_* / destination_* guid
// and port). A port's peer is taken from the links list when it holds the port (UFM's own
// link table), else from the port record's peer fields; peer_from says which.
//
// Key: the GUID of UFM's port name (a node or system GUID, §3.3) and the port number. The
// caller may re-key a state to the GUID the discovered fabric uses (see UfmSource).
//
// Changes between polls (UfmPortStates::update):
//  - a port that is new, or whose view differs (any field but since_us), is upserted with
//    since_us = now; a port no longer listed is removed;
//  - high_ber_severity becoming set or changing (warning <-> error) gives a `high_ber` event,
//    the kind UFM's BER events 917/918 map to, with UFM's severity (at least warning);
//    becoming unset gives an info `high_ber_cleared` event. Dedup keys carry the port name,
//    the new severity and the time, so a change is stored once with its port row;
//  - logical/physical state changes give no event: UFM reports every link change as events
//    329/328 already (stored as link_down/link_up), and a second report of the same change
//    would count flaps twice. The state is only recorded.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ingest/event.h"
#include "ingest/ufm/resources.h"

namespace ibw::ingest {

struct UfmPortState {
  uint64_t node_guid = 0;  // key: GUID of UFM's port name (or the fabric's, when re-keyed)
  int port = 0;            // key: port number
  std::string name;        // UFM's port name "<guid>_<num>"
  uint64_t system_guid = 0;
  std::string system_name;        // UFM's system name (a host's name for HCA ports)
  std::string dname;              // UFM's label ("1/17/1", or the number)
  std::string logical_state;      // Active, Down, Init, Armed (as UFM writes it)
  std::string physical_state;     // "Link Up", Polling, Disabled, ...
  std::string speed;              // active speed; "" when down
  std::string width;              // active width ("4x"); "" when down
  std::string high_ber_severity;  // "" (UFM's "N/A"), warning, error
  std::string severity;           // UFM's port severity (Info, Warning, ...)
  uint64_t peer_guid = 0;         // 0 when UFM knows no peer
  int peer_port = 0;
  std::string peer_node;  // UFM's name of the peer
  std::string peer_from;  // "links", "ports" or "" (no peer)
  int64_t since_us = 0;   // when ibwarden first saw the port as it is now

  // Equal in everything but since_us.
  bool same_view(const UfmPortState& o) const;
};

// The states of a ports list (records without a number are skipped), peers completed from
// links when given. since_us = now_us.
std::vector<UfmPortState> ufm_port_states(const std::vector<UfmPort>& ports,
                                          const std::vector<UfmLink>* links, int64_t now_us);
// The same in two steps, for a list read record by record: the state of one port (nullopt
// when it has no GUID or no number in 1..255), then the peers of all of them from links.
std::optional<UfmPortState> ufm_port_state(const UfmPort& port, int64_t now_us);
void apply_ufm_links(std::vector<UfmPortState>& states, const std::vector<UfmLink>& links);

// The event for a change of high_ber_severity from `before` to s.high_ber_severity (see the
// header comment); node/port/node from s; time now_us.
Event ufm_high_ber_event(const UfmPortState& s, const std::string& before, int64_t now_us);

struct UfmPortChanges {
  std::vector<UfmPortState> upsert;               // new or changed
  std::vector<std::pair<uint64_t, int>> removed;  // no longer listed
  std::vector<Event> events;                      // high_ber / high_ber_cleared
  size_t unchanged = 0;
};

// The last view of every port; one thread uses it.
class UfmPortStates {
 public:
  // The view stored before a restart (no events).
  void seed(const std::vector<UfmPortState>& stored);
  // Applies a complete poll (every port UFM lists); returns what to store.
  UfmPortChanges update(std::vector<UfmPortState> current, int64_t now_us);
  const UfmPortState* find(uint64_t guid, int port) const;
  size_t size() const { return ports_.size(); }

 private:
  struct Known {
    UfmPortState state;
    uint32_t poll = 0;  // the last update() that listed it (seed(): the current one)
  };
  std::map<std::pair<uint64_t, int>, Known> ports_;
  uint32_t poll_ = 0;
};

}  // namespace ibw::ingest
