// CongestionBoard: the latest congestion finding of every port (rule type congestion: a
// signal, not a fault). SourceContext::evaluate hands it each evaluation's congestion
// verdicts; a port that becomes congested gives one `congestion` event (source counters,
// the rule's severity) for the store and the live feed, and one `congestion_cleared` (info)
// once an evaluation no longer finds it. The web API reads it (GET /api/v1/congestion, the
// port grid's congestion heat, /metrics). It also keeps what the other report-only verdicts
// found (RuleRunner::evaluate's reports: rules with action none, rules about PortXmitWait /
// PortXmitDiscards): one `finding` event (the rule's severity, its explanation) when a rule
// starts to match a port and one `finding_cleared` (info) when it no longer does, so a rule
// written to report is seen in the feed and the store. Nothing here leads to a decision, an
// order or a disable: the action worker never sees these verdicts. Thread-safe (one mutex).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "ingest/event.h"
#include "rules/evaluate.h"

namespace ibw::daemon {

namespace congestion_kind {
inline constexpr std::string_view congestion = "congestion";
inline constexpr std::string_view cleared = "congestion_cleared";
inline constexpr std::string_view finding = "finding";  // a report-only rule's
inline constexpr std::string_view finding_cleared = "finding_cleared";
}  // namespace congestion_kind

struct CongestionEntry {
  uint64_t node_guid = 0;
  int port = 0;
  std::string rule;
  ingest::Severity severity = ingest::Severity::warning;
  double wait_ratio = 0;      // highest per-sweep share of time waiting to send (0-1)
  double lost_gbps = 0;       // bandwidth lost at that ratio
  double discards_per_s = 0;  // highest PortXmitDiscards rate in the window
  int64_t since_us = 0;       // when this stretch of congestion was first found
  int64_t time_us = 0;        // the latest evaluation that found it
  std::string explanation;
};

class CongestionBoard {
 public:
  // Replaces the findings with one evaluation's reports (several congestion verdicts per port:
  // the strongest wait ratio wins). Returns the events: `congestion` for ports newly found,
  // `congestion_cleared` for ports no longer found; `finding` / `finding_cleared` the same
  // for each other rule and port.
  // With `scope` (sorted port_keys: the ports a partial evaluation looked at), findings of
  // other ports are kept as they are.
  std::vector<ingest::Event> update(const std::vector<rules::Verdict>& findings, int64_t now_us,
                                    const std::vector<uint64_t>* scope = nullptr);
  std::vector<CongestionEntry> snapshot() const;
  // Ports with a current finding, and findings made since start (ports that became congested).
  size_t ports() const;
  uint64_t findings_total() const;
  // Report-only findings of other rules now (rule and port pairs), and made since start.
  size_t reports() const;
  uint64_t reports_total() const;
  // {"ports": [{node_guid, port, rule, severity, wait_ratio, lost_gbps, discards_per_s,
  // since, time, explanation}], "findings_total": N, "reports": N, "reports_total": N}
  // (times ISO UTC), for the web API and /metrics.
  nlohmann::json to_json() const;
  static uint64_t port_key(uint64_t guid, int port) {
    return guid * 256 + static_cast<uint64_t>(port & 0xff);
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, CongestionEntry> ports_;
  uint64_t total_ = 0;
  std::unordered_map<std::string, CongestionEntry> reports_;  // by rule, guid and port
  uint64_t reports_total_ = 0;
};

}  // namespace ibw::daemon
