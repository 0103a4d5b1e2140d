// CongestionBoard (daemon/congestion_state.h).
#include "daemon/congestion_state.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "fabric/model.h"
#include "store/record_json.h"

namespace ibw::daemon {
namespace congestion_detail {

ingest::Event event_of(const CongestionEntry& c, std::string_view kind, int64_t now_us) {
  ingest::Event e;
  e.time_us = now_us;
  e.source = ingest::EventSource::counters;
  e.kind = kind;
  bool report = kind == congestion_kind::finding || kind == congestion_kind::finding_cleared;
  bool cleared = kind == congestion_kind::cleared || kind == congestion_kind::finding_cleared;
  e.severity = cleared ? ingest::Severity::info : c.severity;
  e.node_guid = c.node_guid;
  e.port = c.port;
  e.message = report    ? c.rule + ": " + (cleared ? "no longer found" : c.explanation)
              : cleared ? "congestion cleared (" + c.rule + ")"
                        : c.explanation;
  char key[96];
  std::snprintf(key, sizeof key, ":%016" PRIx64 ":%d:%" PRId64 ":", c.node_guid, c.port, now_us);
  e.dedup_key =
      (report ? "finding:" + c.rule : std::string("congestion")) + key + std::string(kind);
  return e;
}

std::string report_key(const rules::Verdict& v) {
  char key[48];
  std::snprintf(key, sizeof key, ":%016" PRIx64 ":%d", v.node_guid, v.port);
  return v.rule + key;
}

}  // namespace congestion_detail

std::vector<ingest::Event> CongestionBoard::update(const std::vector<rules::Verdict>& findings,
                                                   int64_t now_us,
                                                   const std::vector<uint64_t>* scope) {
  namespace cd = congestion_detail;
  std::unordered_map<uint64_t, CongestionEntry> next;
  std::unordered_map<std::string, CongestionEntry> next_reports;
  for (const auto& v : findings) {
    if (v.type != rules::RuleType::congestion) {
      next_reports.emplace(cd::report_key(v),
                           CongestionEntry{v.node_guid, v.port, v.rule, v.severity, 0, 0, 0, now_us,
                                           now_us, v.explanation});
      continue;
    }
    CongestionEntry c{v.node_guid,
                      v.port,
                      v.rule,
                      v.severity,
                      v.evidence.wait_ratio,
                      v.evidence.lost_gbps,
                      v.evidence.max_rate,
                      now_us,
                      now_us,
                      v.explanation};
    auto [at, fresh] = next.emplace(port_key(v.node_guid, v.port), c);
    if (!fresh && c.wait_ratio > at->second.wait_ratio) at->second = std::move(c);
  }
  std::vector<ingest::Event> events;
  std::lock_guard<std::mutex> lock(mutex_);
  if (scope) {  // a partial evaluation: what it did not look at stays as it is
    auto outside = [&](const CongestionEntry& c) {
      return !std::binary_search(scope->begin(), scope->end(), port_key(c.node_guid, c.port));
    };
    for (const auto& [k, c] : ports_)
      if (outside(c)) next.emplace(k, c);
    for (const auto& [k, c] : reports_)
      if (outside(c)) next_reports.emplace(k, c);
  }
  for (auto& [k, c] : next) {
    auto old = ports_.find(k);
    if (old != ports_.end()) {
      c.since_us = old->second.since_us;
    } else {
      ++total_;
      events.push_back(cd::event_of(c, congestion_kind::congestion, now_us));
    }
  }
  for (const auto& [k, c] : ports_)
    if (!next.count(k)) events.push_back(cd::event_of(c, congestion_kind::cleared, now_us));
  ports_ = std::move(next);
  for (auto& [k, c] : next_reports) {
    if (auto old = reports_.find(k); old != reports_.end()) {
      c.since_us = old->second.since_us;
    } else {
      ++reports_total_;
      events.push_back(cd::event_of(c, congestion_kind::finding, now_us));
    }
  }
  for (const auto& [k, c] : reports_)
    if (!next_reports.count(k))
      events.push_back(cd::event_of(c, congestion_kind::finding_cleared, now_us));
  reports_ = std::move(next_reports);
  return events;
}

std::vector<CongestionEntry> CongestionBoard::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<CongestionEntry> out;
  out.reserve(ports_.size());
  for (const auto& [k, c] : ports_) out.push_back(c);
  return out;
}

size_t CongestionBoard::ports() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ports_.size();
}

uint64_t CongestionBoard::findings_total() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return total_;
}

size_t CongestionBoard::reports() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reports_.size();
}

uint64_t CongestionBoard::reports_total() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reports_total_;
}

nlohmann::json CongestionBoard::to_json() const {
  auto list = nlohmann::json::array();
  for (const auto& c : snapshot())
    list.push_back({{"node_guid", fabric::format_guid(c.node_guid)},
                    {"port", c.port},
                    {"rule", c.rule},
                    {"severity", ingest::severity_name(c.severity)},
                    {"wait_ratio", c.wait_ratio},
                    {"lost_gbps", c.lost_gbps},
                    {"discards_per_s", c.discards_per_s},
                    {"since", store::iso_time(c.since_us)},
                    {"time", store::iso_time(c.time_us)},
                    {"explanation", c.explanation}});
  return {{"ports", list},
          {"findings_total", findings_total()},
          {"reports", reports()},
          {"reports_total", reports_total()}};
}

}  // namespace ibw::daemon
