// OpenSM records to events: which traps, notices, sweeps, errors and SM state lines become an
// Event, and how.
#include <string>

#include "ingest/opensm_log.h"
#include "ingest/opensm_log_detail.h"

namespace ibw::ingest {
namespace osm_log_detail {

// Severity of a trap event by trap number.
Severity trap_severity(int n) {
  if ((n >= 128 && n <= 131) || (n >= 256 && n <= 259)) return Severity::warning;
  return Severity::info;
}

}  // namespace osm_log_detail

std::optional<Event> to_event(const OsmRecordView& record, OsmTrapRule rule) {
  Event e;
  if (!to_event(record, rule, e)) return std::nullopt;
  return e;
}

bool to_event(const OsmRecordView& record, OsmTrapRule rule, Event& e) {
  using namespace osm_log_detail;
  switch (record.kind) {
    case OsmRecordKind::trap:
    case OsmRecordKind::notice: {
      const bool physical = record.trap_number >= 129 && record.trap_number <= 131;
      const bool wanted =
          record.kind == OsmRecordKind::trap
              ? record.trap_number > 0 && (rule == OsmTrapRule::trap_line || physical)
              : rule == OsmTrapRule::notice_line && record.trap_number >= 128;
      if (!wanted) return false;
      e.kind = kind::trap;
      e.trap_number = record.trap_number;
      e.severity = trap_severity(record.trap_number);
      e.lid = record.lid;
      e.node_guid = record.guid;
      e.port = record.port;
      e.message = std::string(strip_function(record.text));
      break;
    }
    case OsmRecordKind::subnet_up:
      e.kind = kind::subnet_up;
      e.message = std::string(record.text);
      break;
    case OsmRecordKind::sweep:
      if (!record.banner) return false;
      e.kind = kind::sweep;
      e.message = "heavy sweep started";
      break;
    case OsmRecordKind::error:
      e.kind = kind::sm_error;
      e.severity = Severity::error;
      e.message = std::string(record.text);
      break;
    case OsmRecordKind::sm_state:
      e.kind = kind::sm_state;
      e.severity = sm_log_state_severity(record.sm_state);
      e.node = "subnet manager";
      e.message = sm_state_message(record.sm_state, record.text);
      break;
    case OsmRecordKind::other:
      return false;
  }
  e.time_us = record.time_us;
  e.source = EventSource::opensm;
  return true;
}

}  // namespace ibw::ingest
