// UFM Telemetry as a counter source (daemon/sources/ufm_telemetry.h).
#include "daemon/sources/ufm_telemetry.h"

#include "daemon/logger.h"
#include "daemon/sources/ufm.h"
#include "daemon/ufm_setup.h"

namespace ibw::daemon {

bool UfmTelemetrySource::configured(const config::Config& cfg) {
  return cfg.ufm && cfg.ufm->telemetry.primary && cfg.counters.enabled;
}

UfmTelemetrySource::UfmTelemetrySource(const config::Config& cfg)
    : cfg_(cfg), ingest_({cfg.counters.jump_threshold, /*keyed=*/false, /*fresh_only=*/true}) {
  const config::UfmSection& u = *cfg_.ufm;
  primary_ = std::make_unique<ingest::UfmClient>(
      ufm_telemetry_options(u, *u.telemetry.primary, cfg_.counters.interval_us), clock_);
  if (u.telemetry.secondary)
    secondary_ = std::make_unique<ingest::UfmClient>(
        ufm_telemetry_options(u, *u.telemetry.secondary, cfg_.counters.interval_us), clock_);
}

UfmTelemetrySource::~UfmTelemetrySource() = default;

void UfmTelemetrySource::run(SourceContext& ctx) {
  while (ctx.running()) {
    auto topo = ctx.topology();
    if (!topo) {
      ctx.nap(std::chrono::milliseconds(200));
      continue;
    }
    auto started = std::chrono::steady_clock::now();
    auto ms_since = [](std::chrono::steady_clock::time_point t) {
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t)
          .count();
    };
    ingest::UfmTelemetryFetched f = primary_->telemetry("");
    double fetch_ms = ms_since(started);  // transfer + parse
    std::string detail = f.ok() ? "" : "primary: " + f.response.error + f.parsed.error;
    if (!f.ok() && secondary_) {
      ingest::UfmTelemetryFetched g = secondary_->telemetry("");
      if (g.ok())
        f = std::move(g);
      else
        detail += "; secondary: " + g.response.error + g.parsed.error;
    }
    ingest::ServiceHealth h = primary_->health();
    if (f.ok() && h.state != ingest::HealthState::ok) h.state = ingest::HealthState::degraded;
    report_ufm_health(ctx, "ufm_telemetry", h, detail);
    if (f.ok()) {
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
           {"elapsed_ms", ms_since(started)}});
    }
    auto spent = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::steady_clock::now() - started)
                     .count();
    ctx.nap(
        std::chrono::microseconds(std::max<int64_t>(cfg_.counters.interval_us - spent, 10'000)));
  }
}

}  // namespace ibw::daemon
