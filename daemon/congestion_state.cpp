// CongestionBoard (daemon/congestion_state.h).
#include "daemon/congestion_state.h"

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
  bool cleared = kind == congestion_kind::cleared;
  e.severity = cleared ? ingest::Severity::info : c.severity;
  e.node_guid = c.node_guid;
  e.port = c.port;
  e.message = cleared ? "congestion cleared (" + c.rule + ")" : c.explanation;
  char key[96];
  std::snprintf(key, sizeof key, "congestion:%016" PRIx64 ":%d:%" PRId64 ":", c.node_guid, c.port,
                now_us);
  e.dedup_key = std::string(key) + std::string(kind);
  return e;
}

}  // namespace congestion_detail

std::vector<ingest::Event> CongestionBoard::update(const std::vector<rules::Verdict>& findings,
                                                   int64_t now_us) {
  namespace cd = congestion_detail;
  std::unordered_map<uint64_t, CongestionEntry> next;
  for (const auto& v : findings) {
    if (v.type != rules::RuleType::congestion) continue;
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
    auto [at, fresh] = next.emplace(key(v.node_guid, v.port), c);
    if (!fresh && c.wait_ratio > at->second.wait_ratio) at->second = std::move(c);
  }
  std::vector<ingest::Event> events;
  std::lock_guard<std::mutex> lock(mutex_);
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
  return {{"ports", list}, {"findings_total", findings_total()}};
}

}  // namespace ibw::daemon
