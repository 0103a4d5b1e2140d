// UfmTelemetrySource: UFM Telemetry as the daemon's counter source, when
// ufm.telemetry.primary is set and counters.enabled (the MAD sweep is then not started, so
// no port has two counter sources). Every counters.interval the primary endpoint (the
// secondary when the primary fails) is parsed into CounterSamples and fed through the MAD
// sweep's counter-ingest path (daemon/sources/counter_ingest.h), with a tracker of its own
// that is not seeded from the store (the first reading after a start is a baseline); ports
// outside the fabric and readings no newer than the port's previous one are skipped. One
// "telemetry sweep" log line per scrape says where its time went. Each scrape is marked in
// the fabric's ScrapeSchedule, which keeps the UFM inventory read out of it.
// Health "ufm_telemetry": the primary client's state, at least degraded while the
// secondary answers for it; transitions are logged with the last error.
#include "daemon/sources/sources.h"

#include <memory>

#include "daemon/logger.h"
#include "daemon/memory_stats.h"
#include "daemon/sources/counter_ingest.h"
#include "daemon/sources/ufm.h"
#include "daemon/ufm_setup.h"
#include "ingest/clock.h"
#include "ingest/ufm/client.h"

namespace ibw::daemon {

namespace {

class UfmTelemetrySource : public Source {
 public:
  // Builds the clients (no credentials: Telemetry is plain HTTP(S)). cfg.ufm must be set
  // with telemetry.primary.
  explicit UfmTelemetrySource(const config::Config& cfg);
  std::string name() const override { return "ufm_telemetry"; }
  void run(SourceContext& ctx) override;

 private:
  int64_t interval_us_;  // counters.interval
  ingest::SystemClock clock_;
  std::unique_ptr<ingest::UfmClient> primary_;
  std::unique_ptr<ingest::UfmClient> secondary_;  // may be null
  CounterIngest ingest_;
  size_t last_samples_ = 0;  // of the last scrape: the next one's parse reserves that room
};

}  // namespace

bool ufm_telemetry_configured(const config::Config& cfg) {
  return cfg.ufm && cfg.ufm->telemetry.primary && cfg.counters.enabled;
}

UfmTelemetrySource::UfmTelemetrySource(const config::Config& cfg)
    : interval_us_(cfg.counters.interval_us),
      ingest_({cfg.counters.jump_threshold, /*keyed=*/false, /*fresh_only=*/true}) {
  const config::UfmSection& u = *cfg.ufm;
  primary_ = std::make_unique<ingest::UfmClient>(
      ufm_telemetry_options(u, *u.telemetry.primary, interval_us_), clock_);
  if (u.telemetry.secondary)
    secondary_ = std::make_unique<ingest::UfmClient>(
        ufm_telemetry_options(u, *u.telemetry.secondary, interval_us_), clock_);
}

void UfmTelemetrySource::run(SourceContext& ctx) {
  while (ctx.running()) {
    auto topo = ctx.topology();
    if (!topo) {
      ctx.nap(std::chrono::milliseconds(200));
      continue;
    }
    auto started = std::chrono::steady_clock::now();
    ctx.fabric().scrapes.begin(steady_us());
    auto ms_since = [](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t)
          .count();
    };
    ingest::UfmTelemetryFetched f = primary_->telemetry("", last_samples_);
    double fetch_ms = ms_since(started);  // transfer + parse
    std::string detail = f.ok() ? "" : "primary: " + f.response.error + f.parsed.error;
    if (!f.ok() && secondary_) {
      ingest::UfmTelemetryFetched g = secondary_->telemetry("", last_samples_);
      if (g.ok())
        f = std::move(g);
      else
        detail += "; secondary: " + g.response.error + g.parsed.error;
    }
    ingest::ServiceHealth h = primary_->health();
    if (f.ok() && h.state != ingest::HealthState::ok) h.state = ingest::HealthState::degraded;
    report_ufm_health(ctx, "ufm_telemetry", h, detail);
    if (f.ok()) {
      last_samples_ = f.parsed.samples.size();
      auto ingest_start = std::chrono::steady_clock::now();
      CounterIngest::Result r = ingest_.ingest(ctx, topo, std::move(f.parsed.samples));
      if (!r.queued) return;
      double evaluate_ms = r.evaluate_us / 1000.0;
      // One line per scrape with where its time went; the store writes the batch on the
      // daemon's main thread ("counters stored" gives that part).
      log(LogLevel::info, "telemetry sweep",
          {{"rows", f.parsed.rows},
           {"samples", r.samples},
           {"events", r.events},
           {"bytes", f.bytes},
           {"fetch_ms", fetch_ms - f.parse_us / 1000.0},
           {"parse_ms", f.parse_us / 1000.0},
           {"ingest_ms", ms_since(ingest_start) - evaluate_ms},
           {"evaluate_ms", evaluate_ms},
           {"evaluate_parts_ms",  // the rule runner's: lock wait, prune, windows, rules
            {r.evaluate_parts.wait_us / 1000.0, r.evaluate_parts.prune_us / 1000.0,
             r.evaluate_parts.windows_us / 1000.0, r.evaluate_parts.rules_us / 1000.0}},
           {"elapsed_ms", ms_since(started)}});
      log_memory("telemetry scrape");
    }
    auto spent = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::steady_clock::now() - started)
                     .count();
    const int64_t nap_us = std::max<int64_t>(interval_us_ - spent, 10'000);
    const int64_t ended_us = steady_us();
    ctx.fabric().scrapes.end(ended_us, ended_us + nap_us);
    ctx.nap(std::chrono::microseconds(nap_us));
  }
}

std::unique_ptr<Source> make_ufm_telemetry(const config::Config& cfg) {
  return std::make_unique<UfmTelemetrySource>(cfg);
}

}  // namespace ibw::daemon
