// CounterSweep: every counters.interval, PortCounters of every linked port of the cached
// topology over pipelined MADs (ingest/counter_poller.h): a full sweep (data counters for
// rates) first and then at most every counters.data_interval, errors sweeps (switch sums)
// in between; through the counter-ingest path
// (daemon/sources/counter_ingest.h), its tracker seeded with the readings stored before the
// start. Not started when UFM Telemetry replaces it. Health "counters": down while a sweep
// fails (the MAD port is reopened for the next one).
#include <chrono>
#include <optional>

#include "daemon/sources/sources.h"

#include "daemon/logger.h"
#include "daemon/sources/counter_ingest.h"
#include "ingest/counter_poller.h"

namespace ibw::daemon {

namespace {

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

}  // namespace

void CounterSweep::run(SourceContext& ctx) {
  using Clock = std::chrono::steady_clock;
  const config::Config& cfg = ctx.cfg();
  std::unique_ptr<ingest::CounterPoller> poller;
  std::optional<Clock::time_point> last_full;
  while (ctx.running()) {
    auto topo = ctx.topology();
    if (!topo) {
      ctx.nap(std::chrono::milliseconds(200));
      continue;
    }
    auto started = Clock::now();
    try {
      if (!poller) {
        ingest::PollerOptions po;
        po.ca = cfg.fabric.ca;
        po.ca_port = cfg.fabric.ca_port;
        po.window = cfg.counters.window;
        po.timeout_ms = cfg.counters.timeout_ms;
        po.retries = cfg.counters.retries;
        poller = ingest::CounterPoller::open(ctx.mad(), po, ctx.clock());
      }
      // Half an interval of slack: sweeps start a little late, not early.
      auto data_interval =
          std::chrono::microseconds(cfg.counters.data_interval_us - cfg.counters.interval_us / 2);
      bool full = !last_full || started - *last_full >= data_interval;
      ingest::SweepResult res =
          poller->sweep(topo->targets, full ? ingest::SweepKind::full : ingest::SweepKind::errors);
      if (full) last_full = started;
      log(LogLevel::debug, "counter sweep",
          {{"ports", topo->targets.size()},
           {"full", full},
           {"mads", res.mads_sent},
           {"switch_sums", res.switch_sums},
           {"switches_read", res.switches_read},
           {"answered", res.samples.size()},
           {"unresponsive", res.unresponsive.size()},
           {"duration_ms", res.duration_us / 1000.0}});
      auto r = ingest_.ingest(ctx, topo, std::move(res.samples), res.unresponsive, res.started_us);
      if (!r.queued) return;
      int64_t now = ctx.clock().now_us();
      ctx.report({"counters", ingest::HealthState::ok, "", now, now});
      if (ctx.on_sweep) ctx.on_sweep(res.duration_us / 1e6, ctx.clock().now_us());
    } catch (const std::exception& e) {
      ctx.report({"counters", ingest::HealthState::down, e.what(), 0, ctx.clock().now_us()});
      log(LogLevel::error, "counter sweep failed", {{"error", e.what()}});
      poller.reset();
      last_full.reset();
    }
    auto elapsed = Clock::now() - started;
    auto interval = std::chrono::microseconds(cfg.counters.interval_us);
    if (elapsed < interval)
      ctx.nap(std::chrono::duration_cast<std::chrono::microseconds>(interval - elapsed));
  }
}

std::unique_ptr<Source> make_counter_sweep(const config::Config& cfg) {
  return std::make_unique<CounterSweep>(cfg);
}

}  // namespace ibw::daemon
