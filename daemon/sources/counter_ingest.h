// CounterIngest: the one path counter readings take into the daemon, for both counter
// sources (the MAD sweep, daemon/sources/counters.cpp, and UFM Telemetry,
// daemon/sources/ufm_telemetry.cpp; only one of them runs): a CounterTracker turns readings into
// deltas, rates and counter events (counter_reset, counter_jump, port_unresponsive), and
// SourceContext::publish() applies the deltas to the port table, feeds them to the rules,
// queues the samples and deltas for the store and evaluates the rules.
// Options say what differs: the MAD sweep keys its events for de-duplication across restarts
// ("counters:..."); UFM Telemetry keeps only ports of the fabric and readings newer than the
// port's previous one (it serves its latest sample until it takes the next).
// Not thread-safe: its source's thread owns it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "daemon/source.h"
#include "ingest/counter_poller.h"
#include "ingest/counter_tracker.h"

namespace ibw::daemon {

class CounterIngest {
 public:
  struct Options {
    uint64_t jump_threshold = 100;  // counters.jump_threshold
    bool keyed = false;             // dedup_key the events (the MAD sweep)
    bool fresh_only = false;        // skip ports outside the fabric and repeated readings
  };
  struct Result {
    bool queued = true;  // false: stopping
    size_t samples = 0, events = 0;
    int64_t evaluate_us = 0;
    rules::EvaluateTimes evaluate_parts;  // of which in the rule runner
  };

  explicit CounterIngest(Options options);
  // Baselines from the readings stored before a restart (the MAD sweep's).
  void seed(const std::vector<ingest::CounterSample>& samples);
  // Publishes one sweep or scrape: `samples` answered, `unresponsive` did not (at started_us).
  Result ingest(SourceContext& ctx, const std::shared_ptr<const Topology>& topo,
                std::vector<ingest::CounterSample> samples,
                const std::vector<ingest::PollTarget>& unresponsive = {}, int64_t started_us = 0);

 private:
  void key_events(const PortTable& ports, std::vector<ingest::Event>& events) const;

  Options options_;
  ingest::CounterTracker tracker_;  // also knows each port's last reading time (fresh_only)
};

}  // namespace ibw::daemon
