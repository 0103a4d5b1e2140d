// RuleRunner: the daemon's rule evaluation. Counter deltas (from each sweep) and link events
// (from re-discovery) go into a rules::History; after each, the rule set is evaluated over the
// links of the current topology that have something in their window. Only confirmed verdicts
// whose rule acts (action != none) are returned: those go to the action worker, which
// de-duplicates them against the store (one open order per link).
// Thread-safe (one mutex): the counter thread and the watcher thread both feed it.
#pragma once

#include <mutex>
#include <unordered_map>
#include <vector>

#include "app/topology.h"
#include "rules/history.h"
#include "rules/rules.h"

namespace ibw::app {

class RuleRunner {
 public:
  explicit RuleRunner(rules::RuleSet rules);
  void add_deltas(const std::vector<ingest::CounterDelta>& deltas);
  // Keeps link_down / link_up events of ports; others are ignored. Two sources can report
  // the same end of one flap (OpenSM re-discovery and UFM event 329): an event is dropped
  // when another source already gave the same port the same direction within
  // kLinkDedupUs, so each flap counts once. Events of one source are never dropped.
  void add_events(const std::vector<ingest::Event>& events);
  static constexpr int64_t kLinkDedupUs = 5'000'000;
  std::vector<rules::Verdict> evaluate(const Topology& topo, int64_t now_us);
  const rules::RuleSet& rules() const { return rules_; }

 private:
  struct SeenLink {
    int64_t time_us = 0;
    ingest::EventSource source = ingest::EventSource::opensm;
    bool down = false;
  };
  bool seen_from_other_source(const ingest::Event& e, bool down);

  rules::RuleSet rules_;
  std::mutex mutex_;
  rules::History history_;
  std::unordered_map<uint64_t, std::vector<SeenLink>> recent_links_;  // guid * 256 + port
};

}  // namespace ibw::app
