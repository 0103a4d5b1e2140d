// Recorded history through a RuleRunner, in time order, as the daemon would have met it live:
// the engine of `ibwarden replay` (cli/cmd_replay.cpp), and what its tests compare with the
// daemon's runner. Counter samples become deltas through an ingest::CounterTracker; samples
// more than a second apart start a new sweep, and the rules are evaluated after each sweep's
// last sample and after every event the runner keeps (events come before the samples of
// their time). The runner applies its own link de-duplication (RuleRunner::add_events).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ingest/counter_tracker.h"
#include "ingest/counters.h"
#include "ingest/event.h"
#include "rules/incidents.h"
#include "rules/runner.h"

namespace ibw::rules {

struct Recording {
  std::vector<ingest::CounterSample> samples;  // time-ordered
  std::vector<ingest::Event> events;           // time-ordered; unwanted kinds are ignored
};

// Called with each verdict the runner returns, the time of that evaluation and the last
// sample of the verdict's port (empty when it has none yet).
using OnVerdict =
    std::function<void(const Verdict& v, const ingest::CounterSample& last, int64_t now_us)>;

// With `incidents` (the tracker set on the runner, RuleRunner::set_incidents), every event
// goes to it first, as the daemon's publish sequence does, so the runner holds the same
// verdicts and adds the same switch work orders as live.
void replay(RuleRunner& runner, const std::vector<LinkInfo>& links, const Recording& in,
            const OnVerdict& on_verdict, IncidentTracker* incidents = nullptr);

}  // namespace ibw::rules
