// Which of UFM's alarms are new, changed or gone between two reads of GET /app/alarms, and the
// internal events they become. Pure bookkeeping (no I/O, no clock).
//
// UFM's alarms (ufm-api.md §3.2 [H], §6 "alarms = events over threshold with TTL") are an
// aggregation of events: one alarm per event type and object, its `event_count` and
// `timestamp` following the occurrences, and it leaves the list when it clears. The list is
// small (open alarms only) and has no cursor, so every poll reads it whole.
//
// Identity of an alarm: its `id` with its `event_type` and `related_object_name` ("<id>:<type>:
// <object>"). The id alone is not enough: UFM restarts its numbering after a reset of its
// tables (the emulator does; assumed of UFM like event ids), and the type and object tell a
// reused id apart. Timestamp and count are not part of it: they move with every occurrence,
// and each occurrence is already one of UFM's events (GET /app/events).
//
// update(current):
//  - an alarm not open before is `raised`; an open one whose severity changed is raised again
//    (escalation or de-escalation). Its event: kind ufm_alarm, UFM's severity, time the
//    alarm's timestamp, dedup_key "ufm_alarm:<identity>:<severity>:<time>", so an alarm that stays
//    open is stored once, also across restarts (a return to a severity it already had is
//    therefore not stored again);
//  - an open alarm missing from kMissesToClear successive reads is `cleared` (one empty or
//    partial answer clears nothing): kind ufm_alarm_cleared, info, time of the poll,
//    dedup_key "ufm_alarm_cleared:<identity>:<poll time>" (each clear is its own event);
//  - a raise's dedup_key also carries the alarm's timestamp, so an alarm raised again after a
//    clear is stored again.
// The open set is the tracker's cursor (JSON, at most kMaxOpen alarms), stored with the events
// so that a restart neither repeats raised alarms nor misses clears made while stopped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ingest/event.h"
#include "ingest/ufm/resources.h"

namespace ibw::ingest {

// What the tracker remembers of an open alarm (enough for its cleared event).
struct UfmOpenAlarm {
  int64_t id = 0;
  int event_type = 0;
  std::string name;
  std::string severity;
  std::string object_name;
  std::string object_path;
  int misses = 0;  // successive reads that did not list it
  bool operator==(const UfmOpenAlarm&) const = default;
};

// "<id>:<event_type>:<object_name>".
std::string ufm_alarm_identity(int64_t id, int event_type, const std::string& object_name);

// The events (see the header comment). node_guid/port/node come from alarm.object (resolve
// its label with a UfmPortIndex first when the caller has one); time_us 0 -> now_us.
Event ufm_alarm_event(const UfmAlarm& alarm, int64_t now_us);
Event ufm_alarm_cleared_event(const UfmOpenAlarm& alarm, int64_t now_us);

struct UfmAlarmUpdate {
  std::vector<UfmAlarm> raised;       // new, or severity changed
  std::vector<UfmOpenAlarm> cleared;  // no longer listed
  bool changed = false;               // the open set (and so the cursor) changed
  size_t open = 0;                    // alarms open after the update
};

class UfmAlarmTracker {
 public:
  static constexpr size_t kMaxOpen = 10'000;
  static constexpr int kMissesToClear = 2;
  // A cursor from cursor(); nullopt or one that does not parse = nothing open.
  explicit UfmAlarmTracker(const std::optional<std::string>& cursor = std::nullopt);
  UfmAlarmUpdate update(const std::vector<UfmAlarm>& current);
  std::string cursor() const;
  size_t open() const { return open_.size(); }

 private:
  std::map<std::string, UfmOpenAlarm> open_;  // by identity
};

}  // namespace ibw::ingest
