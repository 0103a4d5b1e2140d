// RuleRunner: the stateful rule engine of the daemon and of `ibwarden replay`. Counter deltas
// (from each sweep), link events (from re-discovery, OpenSM and UFM) and UFM's BER verdicts
// (high_ber / high_ber_cleared, from UFM events 917/918 and the ports poll) go into a
// rules::History, each event kind only when a loaded rule uses it (rules::event_needs); after
// each, the rule set is evaluated over the given links that have something in their window.
// Only confirmed verdicts whose rule acts (action != none) are returned: the daemon hands them
// to its action worker, which de-duplicates them against the store (one open order per link).
// The rest that is worth telling goes to the caller's `reports` list when it gives one, never
// to an action: every verdict of a congestion rule (the fabric's load: feed, port grid,
// metrics), and confirmed verdicts that must not act (action none, or about PortXmitWait /
// PortXmitDiscards: rules::is_congestion_verdict) on ports no incident holds.
// Thread-safe (one mutex): the daemon's counter thread and watcher thread both feed it.
#pragma once

#include <mutex>
#include <unordered_map>
#include <vector>

#include "rules/history.h"
#include "rules/incidents.h"
#include "rules/rules.h"

namespace ibw::rules {

// Where one RuleRunner::evaluate() spent its time (microseconds): waiting for the runner's lock
// (another thread feeding or evaluating it), History::prune, History::windows, the rules.
struct EvaluateTimes {
  int64_t wait_us = 0, prune_us = 0, windows_us = 0, rules_us = 0;
};

class RuleRunner {
 public:
  explicit RuleRunner(RuleSet rules);
  void add_deltas(const std::vector<ingest::CounterDelta>& deltas);
  // A repair of the port at since_us (History::set_floor): its past is forgotten and what
  // began before since_us is dropped from now on. False when it was floored there already.
  bool set_floor(uint64_t node_guid, int port, int64_t since_us);
  // Whether add_events would keep e: it names a port and its kind is one the loaded rules
  // use. Lets sources hand over only those events. Lock-free (the needs never change).
  bool wants(const ingest::Event& e) const { return needed(e, needs_); }
  // Keeps the wanted events (link_down / link_up, high_ber / high_ber_cleared); others are
  // ignored. Returns how many were kept. Two sources can report the same end of one flap
  // (OpenSM re-discovery and UFM event 329): a link event is dropped when another source
  // already gave the same port the same direction within kLinkDedupUs, so each flap counts
  // once. Events of one source are never dropped; BER events are never merged (each is
  // evidence of its own).
  size_t add_events(const std::vector<ingest::Event>& events);
  static constexpr int64_t kLinkDedupUs = 5'000'000;
  // links: the ports of the current topology as rule windows need them (daemon::Topology's
  // links, or those rebuilt from a store by replay).
  std::vector<Verdict> evaluate(const std::vector<LinkInfo>& links, int64_t now_us,
                                std::vector<Verdict>* reports = nullptr,
                                EvaluateTimes* times = nullptr);
  const RuleSet& rules() const { return rules_; }
  // The incidents whose ports give no verdicts of their own while they last (a verdict is
  // dropped when its port is in an incident with an event within the rule's window), and whose
  // node-level work orders evaluate() adds. Fed by its owner (the daemon's publish sequence,
  // replay); null: no incidents. Set before the first evaluate().
  void set_incidents(const IncidentTracker* incidents) { incidents_ = incidents; }

 private:
  struct SeenLink {
    int64_t time_us = 0;
    ingest::EventSource source = ingest::EventSource::opensm;
    bool down = false;
  };
  bool seen_from_other_source(const ingest::Event& e, bool down);

  RuleSet rules_;
  EventNeeds needs_;
  const IncidentTracker* incidents_ = nullptr;
  std::mutex mutex_;
  History history_;
  std::unordered_map<uint64_t, std::vector<SeenLink>> recent_links_;  // guid * 256 + port
};

}  // namespace ibw::rules
