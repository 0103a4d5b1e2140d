// Incidents: one cause behind a burst of link events, reported once instead of as N link
// findings. IncidentTracker is fed events in time order (the daemon's publish sequence, or
// `ibwarden incidents` / `replay` from the store) and the links of the topology, and groups:
//  - switch_reboot: a switch that lost most of its links at once (more than half of its
//    linked ports, at least 2, going down within `burst`), every later down/up of those links
//    folded in; each time they go down together again is one more cycle (a crash loop is one
//    incident with N cycles, not N x links flaps);
//  - switch_down: the same switch with those links still down after `down_for`;
//  - host_down: a host (not a switch) whose every link went down, not explained by a switch;
//  - sm_resweep: a subnet-manager sweep (OpenSM sweep / SUBNET UP) followed within `burst` by
//    links reported up that were never seen down, on at least `resweep_links` links: the SM
//    re-initialising ports, not faults;
//  - hosts_unreachable: counter queries of at least 2 hosts behind one switch failing within
//    `burst` (port_unresponsive), when no other incident explains them: one lossy or down
//    link in front of them, not N broken hosts. port_unresponsive of ports that another
//    incident covers are folded into it.
// The ports of an incident (both ends of its links) give no rule verdict of their own while
// it lasts (RuleRunner drops them while covers() holds); a real fault on another link at the
// same time is untouched. A link of a switch_reboot that goes down alone after the reboot
// (not with most of the switch's links within `burst`) is no further cycle: once `burst` has
// passed it leaves the incident, so a cable that keeps flapping after a reboot is judged by
// the flap rule rather than held, and never counts as the switch rebooting again. A link in
// more than one active incident (between two switches that both rebooted lately) is seen by
// each; a down of it while another holder's switch loses most of its links, or that such a
// cycle then explains, is not alone in any of them. A link of an sm_resweep that goes down
// leaves it at once (the SM's re-initialising is ups only). A switch that keeps rebooting
// (order_cycles) or stays down gets one node-level work-order verdict (port 0) naming the
// switch (orders()). Node types: LinkInfo::switch_node / peer_switch (from the
// topology's node types). Thread-safe (one mutex): the daemon's sources feed it, the web API lists
// it.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "ingest/event.h"
#include "rules/evaluate.h"
#include "rules/history.h"

namespace ibw::rules {

// One end of a link: a node GUID and a port number.
struct PortRef {
  uint64_t guid = 0;
  int port = 0;
  auto operator<=>(const PortRef&) const = default;
};
struct PortRefHash {
  size_t operator()(const PortRef& p) const {
    return std::hash<uint64_t>()(p.guid * 257 + static_cast<uint64_t>(p.port));
  }
};

struct IncidentPort {
  uint64_t guid = 0;
  int port = 0;
  std::string node;  // display name (the GUID when unknown)
};

struct Incident {
  std::string id;    // "<node GUID>-<first event, Unix seconds>": the same wherever replayed
  std::string kind;  // switch_reboot | switch_down | host_down | sm_resweep | hosts_unreachable
  uint64_t node_guid = 0;   // the switch or host; 0 for sm_resweep (the subnet manager)
  std::string node;         // display name, filled by list() ("subnet manager" for sm_resweep)
  std::set<PortRef> links;  // the links it covers (each by its lower end)
  std::vector<IncidentPort> ports;  // both ends of every link, filled by list()
  int64_t first_us = 0;
  int64_t last_us = 0;
  int events = 0;             // events folded into it
  int cycles = 0;             // times its links went down together (reboots)
  int down = 0;               // its links down now
  int64_t down_since_us = 0;  // since when all its links are down (0: some are up)
  std::string state;          // active | resolved, as of the list() call
  // The tracker's bookkeeping: whether the links' current time down began as a burst (a
  // reboot cycle, counted), and the links of a switch_reboot that went down alone since the
  // last one (when): after `burst` such a link leaves the incident, its flaps its own.
  bool cycle_counted = true;
  std::map<PortRef, int64_t> lone;
};

struct IncidentOptions {
  int64_t burst_us = 10'000'000;      // link downs this close count as "at once"
  int64_t quiet_us = 120'000'000;     // links all up and nothing new this long: resolved
  int64_t down_for_us = 120'000'000;  // a switch still down this long: switch_down
  int order_cycles = 3;               // reboots after which the switch gets a work order
  int resweep_links = 4;
};

class IncidentTracker {
 public:
  explicit IncidentTracker(IncidentOptions options = {});
  // Learns the links of the current topology (both ends and whether each is a switch). Links
  // stay known after they go down; a port that gets a new peer is re-linked. Cheap when the
  // same vector (topology) is passed again.
  void learn(const std::vector<LinkInfo>& links);
  // Whether add() looks at e's kind (link_down/up, port_unresponsive, sweep, subnet_up).
  static bool wants(const ingest::Event& e);
  // Feeds events in time order (other kinds are ignored); link events also teach the links
  // their correlated peers name. Returns one "incident" event per incident opened and per new
  // reboot cycle, for the feed and the store.
  std::vector<ingest::Event> add(const std::vector<ingest::Event>& events);
  // Incidents still active at now_us or with an event at or after since_us, oldest first.
  std::vector<Incident> list(int64_t since_us, int64_t now_us) const;
  // Whether (guid, port) is an end of a link of an incident with an event at or after since_us.
  bool covers(uint64_t guid, int port, int64_t since_us) const;
  // Node-level work-order verdicts (port 0, action work_order, rule "incident_<kind>") for
  // active switch incidents that rebooted order_cycles times or are switch_down.
  std::vector<Verdict> orders(int64_t now_us) const;
  // Incidents opened since start by kind; active ones at now_us by kind; resolved ones dropped
  // at the cap (1024 kept) before their day was over (metrics).
  std::map<std::string, uint64_t> opened() const;
  std::map<std::string, int> active(int64_t now_us) const;
  uint64_t dropped() const;

 private:
  using End = PortRef;
  void connect(End a, End b);
  End link_id(End e) const;
  void on_link(const ingest::Event& e, bool down, std::vector<ingest::Event>& out);
  void on_unresponsive(const ingest::Event& e, std::vector<ingest::Event>& out);
  // Drops from inc the links that went down alone more than `burst` before now_us.
  // A link event for one of the incidents that hold the link. `bursting`: a down while inc's
  // switch loses most of its links (burst_of); `explained`: that holds for some holder (the
  // link is not down alone).
  void on_held_link(Incident& inc, End id, const ingest::Event& e, bool down, bool was_down,
                    bool bursting, bool explained, std::vector<ingest::Event>& out);
  // How many of inc's links are down now (from down_at_: right whichever incident saw them go).
  int links_down(const Incident& inc) const;
  void release_lone(Incident& inc, int64_t now_us);
  bool burst_of(uint64_t node, int64_t now_us) const;
  bool all_down(uint64_t node) const;
  Incident* incident_of(End link, int64_t now_us);
  bool open(const std::string& kind, uint64_t node, const ingest::Event& e,
            std::vector<ingest::Event>& out);
  Incident& make(const std::string& kind, uint64_t node, const ingest::Event& e);
  void prune(int64_t now_us);
  ingest::Event feed_event(const Incident& inc, const ingest::Event& cause) const;
  std::string state_of(const Incident& inc, int64_t now_us) const;
  std::string kind_now(const Incident& inc, int64_t now_us) const;
  std::string name(uint64_t guid) const;

  IncidentOptions opt_;
  mutable std::mutex mutex_;
  const void* learned_ = nullptr;
  size_t learned_size_ = 0;
  std::unordered_map<End, End, PortRefHash> peer_;
  std::unordered_map<uint64_t, std::vector<End>> node_ports_;  // GUID -> its linked ports
  std::unordered_map<uint64_t, bool> switch_;                  // GUID -> is a switch
  std::unordered_map<uint64_t, std::string> names_;
  std::unordered_map<End, int64_t, PortRefHash> down_at_;  // link -> went down (0: up)
  std::unordered_map<End, int64_t, PortRefHash> up_at_;    // link -> last came up from down
  std::vector<Incident> incidents_;
  std::unordered_map<uint64_t, std::vector<std::pair<int64_t, End>>> unresponsive_;  // by switch
  int64_t last_sweep_us_ = 0;
  std::set<End> resweep_;  // links reported up (never down) since that sweep
  std::map<std::string, uint64_t> opened_;
  uint64_t dropped_ = 0;
};

// One incident as GET /api/v1/incidents and `ibwarden incidents --format json` show it:
// {"id", "kind", "node", "node_guid", "ports": ["node/port", ...], "first", "last", "events",
// "cycles", "state"} (times ISO-8601 UTC).
nlohmann::json incident_json(const Incident& inc);

}  // namespace ibw::rules
