// UfmTelemetrySource: UFM Telemetry as the daemon's counter source, when
// ufm.telemetry.primary is set and counters.enabled (the MAD sweep is then not started, so
// no port has two counter sources). Every counters.interval the primary endpoint (the
// secondary when the primary fails) is parsed into CounterSamples and fed through the MAD
// sweep's counter-ingest path (daemon/sources/counter_ingest.h), with a tracker of its own
// that is not seeded from the store (the first reading after a start is a baseline); ports
// outside the fabric and readings no newer than the port's previous one are skipped. One
// "telemetry sweep" log line per scrape says where its time went.
// Health "ufm_telemetry": the primary client's state, at least degraded while the
// secondary answers for it; transitions are logged with the last error.
#pragma once

#include <memory>

#include "daemon/source.h"
#include "daemon/sources/counter_ingest.h"
#include "ingest/clock.h"
#include "ingest/ufm/client.h"

namespace ibw::daemon {

class UfmTelemetrySource : public Source {
 public:
  // Builds the clients (no credentials: Telemetry is plain HTTP(S)). cfg.ufm must be set
  // with telemetry.primary.
  explicit UfmTelemetrySource(const config::Config& cfg);
  ~UfmTelemetrySource() override;
  // Whether cfg asks for UFM Telemetry (then it replaces the MAD sweep).
  static bool configured(const config::Config& cfg);

  std::string name() const override { return "ufm_telemetry"; }
  void run(SourceContext& ctx) override;

 private:
  config::Config cfg_;
  ingest::SystemClock clock_;
  std::unique_ptr<ingest::UfmClient> primary_;
  std::unique_ptr<ingest::UfmClient> secondary_;  // may be null
  CounterIngest ingest_;
};

}  // namespace ibw::daemon
