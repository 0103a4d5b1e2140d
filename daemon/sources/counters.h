// CounterSweep: every counters.interval, PortCounters of every linked port of the cached
// topology over pipelined MADs (ingest/counter_poller.h), through the counter-ingest path
// (daemon/sources/counter_ingest.h), its tracker seeded with the readings stored before the
// start. Not started when UFM Telemetry replaces it. Health "counters": down while a sweep
// fails (the MAD port is reopened for the next one).
#pragma once

#include "daemon/source.h"
#include "daemon/sources/counter_ingest.h"

namespace ibw::daemon {

class CounterSweep : public Source {
 public:
  explicit CounterSweep(const config::Config& cfg)
      : ingest_({cfg.counters.jump_threshold, /*keyed=*/true, /*fresh_only=*/false}) {}
  std::string name() const override { return "counters"; }
  void start(SourceContext& ctx) override { ingest_.seed(ctx.fabric().stored_samples); }
  void run(SourceContext& ctx) override;

 private:
  CounterIngest ingest_;
};

}  // namespace ibw::daemon
