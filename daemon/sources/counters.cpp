// The MAD counter sweep (daemon/sources/counters.h).
#include "daemon/sources/counters.h"

#include "daemon/logger.h"
#include "ingest/counter_poller.h"

namespace ibw::daemon {

void CounterSweep::run(SourceContext& ctx) {
  using Clock = std::chrono::steady_clock;
  const config::Config& cfg = ctx.cfg();
  std::unique_ptr<ingest::CounterPoller> poller;
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
        poller = ingest::CounterPoller::open(po, ctx.clock());
      }
      ingest::SweepResult res = poller->sweep(topo->targets);
      log(LogLevel::debug, "counter sweep",
          {{"ports", topo->targets.size()},
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
    }
    auto elapsed = Clock::now() - started;
    auto interval = std::chrono::microseconds(cfg.counters.interval_us);
    if (elapsed < interval)
      ctx.nap(std::chrono::duration_cast<std::chrono::microseconds>(interval - elapsed));
  }
}

}  // namespace ibw::daemon
