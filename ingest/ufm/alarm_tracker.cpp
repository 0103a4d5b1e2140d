// UFM alarm tracking and mapping; see ufm_alarm_tracker.h.
#include "ingest/ufm/alarm_tracker.h"
#include "fabric/json_text.h"
#include "ingest/text.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "ingest/ufm/events.h"

namespace ibw::ingest {
namespace ufm_alarm_tracker_detail {

std::string identity(const UfmAlarm& a) {
  return ufm_alarm_identity(a.id, a.event_type, a.object_name);
}

UfmOpenAlarm open_of(const UfmAlarm& a) {
  return {a.id, a.event_type, a.name, a.severity, a.object_name, a.object_path};
}

}  // namespace ufm_alarm_tracker_detail

std::string ufm_alarm_identity(int64_t id, int event_type, const std::string& object_name) {
  return std::to_string(id) + ":" + std::to_string(event_type) + ":" + object_name;
}

Event ufm_alarm_event(const UfmAlarm& a, int64_t now_us) {
  namespace d = ufm_alarm_tracker_detail;
  Event e;
  e.time_us = a.time_us ? a.time_us : now_us;
  e.source = EventSource::ufm;
  e.kind = std::string(ufm_kind::alarm);
  e.severity = ufm_severity(a.severity);
  e.node_guid = a.object.guid;
  e.port = a.object.port;
  e.node = a.object.node;
  e.message = "UFM alarm " + std::to_string(a.id) + " (" + std::to_string(a.event_type) + " " +
              single_line(a.name) + ", " + std::to_string(a.event_count) + " events)";
  if (!a.severity.empty()) e.message += " " + a.severity;
  if (!a.reason.empty()) e.message += ": " + single_line(a.reason);
  e.dedup_key = "ufm_alarm:" + d::identity(a) + ":" + ascii_lower(a.severity) + ":" +
                std::to_string(e.time_us);
  return e;
}

Event ufm_alarm_cleared_event(const UfmOpenAlarm& a, int64_t now_us) {
  namespace d = ufm_alarm_tracker_detail;
  Event e;
  e.time_us = now_us;
  e.source = EventSource::ufm;
  e.kind = std::string(ufm_kind::alarm_cleared);
  e.severity = Severity::info;
  UfmPortRef ref = ufm_event_ends(0, "", a.object_name, a.object_path).port;
  e.node_guid = ref.guid;
  e.port = ref.port;
  e.node = ref.node;
  e.message = "UFM alarm " + std::to_string(a.id) + " (" + std::to_string(a.event_type) + " " +
              single_line(a.name) + ") cleared";
  e.dedup_key = "ufm_alarm_cleared:" + ufm_alarm_identity(a.id, a.event_type, a.object_name) + ":" +
                std::to_string(now_us);
  return e;
}

UfmAlarmTracker::UfmAlarmTracker(const std::optional<std::string>& cursor) {
  if (!cursor) return;
  auto doc = nlohmann::json::parse(*cursor, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || doc.value("v", 0) != 1 || !doc.contains("open") ||
      !doc["open"].is_array())
    return;
  for (const auto& o : doc["open"]) {
    if (!o.is_object()) continue;
    UfmOpenAlarm a;
    try {  // a field of the wrong type skips the entry, never the UFM thread
      a.id = o.value("id", int64_t{0});
      a.event_type = o.value("type", 0);
      a.name = o.value("name", "");
      a.severity = o.value("severity", "");
      a.object_name = o.value("object", "");
      a.object_path = o.value("path", "");
      a.misses = o.value("misses", 0);
    } catch (const nlohmann::json::exception&) {
      continue;
    }
    open_.emplace(ufm_alarm_identity(a.id, a.event_type, a.object_name), std::move(a));
  }
}

UfmAlarmUpdate UfmAlarmTracker::update(const std::vector<UfmAlarm>& current) {
  namespace d = ufm_alarm_tracker_detail;
  UfmAlarmUpdate out;
  std::map<std::string, UfmOpenAlarm> next;
  for (const UfmAlarm& a : current) {
    std::string id = d::identity(a);
    if (next.count(id)) continue;  // listed twice
    if (next.size() >= kMaxOpen) break;
    auto it = open_.find(id);
    if (it == open_.end() || ascii_lower(it->second.severity) != ascii_lower(a.severity)) {
      out.raised.push_back(a);
      out.changed = true;
    }
    next.emplace(std::move(id), d::open_of(a));
  }
  for (const auto& [id, a] : open_) {
    if (next.count(id)) continue;
    out.changed = true;
    if (a.misses + 1 < kMissesToClear) {  // absent once: maybe a partial answer, keep it open
      UfmOpenAlarm kept = a;
      ++kept.misses;
      next.emplace(id, std::move(kept));
      continue;
    }
    out.cleared.push_back(a);
  }
  open_ = std::move(next);
  out.open = open_.size();
  return out;
}

std::string UfmAlarmTracker::cursor() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [id, a] : open_)
    list.push_back({{"id", a.id},
                    {"type", a.event_type},
                    {"name", a.name},
                    {"severity", a.severity},
                    {"object", a.object_name},
                    {"path", a.object_path},
                    {"misses", a.misses}});
  return fabric::json_text(nlohmann::json{{"v", 1}, {"open", std::move(list)}});
}

}  // namespace ibw::ingest
