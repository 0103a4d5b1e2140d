// Pure parsing of UFM events (GET /app/events, and lines of UFM's event.log) and their mapping
// to the internal Event (source ufm). Facts from ../shared/reference/ufm-api.md (§3.1, §4):
//  - Two schema generations [H, D-EV]. Up to 6.16 the event-type number is in "type" as a
//    string ("352"); from 6.17 "type" is the object type ("Site", "Port", ...) and the number
//    is in "event_type" ("67"). The parser reads event_type when present, else a numeric type.
//  - "timestamp" is server-local time without a zone: "YYYY-MM-DD HH:MM:SS.mmm" (<= 6.16) or
//    "YYYY-MM-DD HH:MM:SS" (6.17+). The caller gives the server's UTC offset (UfmTimeContext).
//  - ids are integers, monotonic in every documented example; UFM documents no cursor or
//    "since" filter, so callers de-duplicate on id (see ufm_cursor.h for resets).
//  - event.log lines: `YYYY-MM-DD HH:MM:SS.mmm [<seq>] [<type>] <Severity> [<Category>]
//    <ObjType> [<object path>]( [dev_id: <guid>])?: <description>` [H].
//
// Mapping (to_event): 329/328 -> link_down/link_up; 702 -> port_unhealthy (but 702 with
// reason MANUAL, an operator's or our own isolation, -> the generic kind); 110-121 ->
// counter_threshold (the counter is named in the message; the ids follow the PortCounters
// field order, see ufm_threshold_counter); 917/918 -> high_ber; 130 -> width_degraded;
// 1500-1503 -> cable; anything else -> ufm_event with the UFM type in the message.
// dedup_key is "ufm:<id>:<YYYYMMDDHHMMSS>" (see ufm_dedup_key for why the timestamp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/counters.h"
#include "ingest/event.h"
#include "ingest/ufm/description.h"
#include "ingest/ufm/json.h"

namespace ibw::ingest {

// Event kinds only UFM produces (kind::link_down / link_up are shared with OpenSM).
namespace ufm_kind {
inline constexpr std::string_view port_unhealthy = "port_unhealthy";        // 702
inline constexpr std::string_view counter_threshold = "counter_threshold";  // 110-121
inline constexpr std::string_view high_ber = "high_ber";                    // 917, 918
inline constexpr std::string_view width_degraded = "width_degraded";        // 130
inline constexpr std::string_view cable = "cable";                          // 1500-1503
inline constexpr std::string_view ufm_event = "ufm_event";                  // any other type
inline constexpr std::string_view storm = "ufm_storm";  // a grouped burst (ufm_storm.h)
// From UFM's resources rather than its events (ufm_port_state.h, ufm_alarm_tracker.h).
inline constexpr std::string_view high_ber_cleared = "high_ber_cleared";  // port view
inline constexpr std::string_view alarm = "ufm_alarm";                    // GET /app/alarms
inline constexpr std::string_view alarm_cleared = "ufm_alarm_cleared";    // left the list
}  // namespace ufm_kind

enum class UfmSchema : uint8_t {
  legacy,   // <= 6.16: "type" is the event-type number
  current,  // >= 6.17: "event_type" is the number, "type" the object type
  log,      // a line of event.log
};

struct UfmTimeContext {
  int utc_offset_s = 0;  // the UFM server's offset from UTC (e.g. -25200 for US-Pacific DST)
};

struct UfmEvent {
  int64_t id = 0;
  int type = 0;  // event-type number (329, 702, ...); 0 when the record has none
  UfmSchema schema = UfmSchema::current;
  std::string name;         // "Link went down"
  std::string severity;     // as UFM writes it: Info, Warning, Minor, Major, Critical
  std::string timestamp;    // raw, server-local
  int64_t time_us = 0;      // UTC; 0 when the timestamp could not be read
  std::string category;     // "Fabric Notification"
  std::string object_type;  // 6.17+ "type" ("Port", "Link", "Site"), event.log ObjType
  std::string object_name;  // port name "<guid>_<num>", a system GUID, "Grid", "default"
  std::string object_path;  // "default / Switch: sw1 / 1/3/1"
  std::string counter;      // "N/A", null, or a counter name on threshold events [L]
  std::string description;

  bool operator==(const UfmEvent&) const = default;
};

// "YYYY-MM-DD HH:MM:SS[.fff]" (or 'T' between date and time) in server-local time -> UTC
// microseconds; nullopt when malformed.
std::optional<int64_t> parse_ufm_timestamp(std::string_view text, int utc_offset_s);

// GET /app/events: an array of events of either generation. Records without an integer id
// are skipped (counted, with a warning).
UfmParsed<UfmEvent> parse_ufm_events(std::string_view json, const UfmTimeContext& tc);
// GET /app/events/<id>: one event object (or an array holding one); nullopt otherwise.
std::optional<UfmEvent> parse_ufm_event(std::string_view json, const UfmTimeContext& tc);
// One line of /opt/ufm/log/event.log (with or without "\n"); nullopt for other lines.
// object_name gets the dev_id GUID when the line has one.
std::optional<UfmEvent> parse_ufm_event_log_line(std::string_view line, const UfmTimeContext& tc);

// "ufm:<id>:<YYYYMMDDHHMMSS>" (the raw timestamp's digits to whole seconds). UFM event ids
// restart after a UFM restart that resets its event table, so the id alone would call a new
// event a duplicate of an old one; id plus the server's own timestamp is stable for one event
// (same key when it is fetched again, after our restart or from a list with duplicates) and
// differs between an old event and a new one that reuses its id (unless both fall in the same
// second). Raw digits rather than UTC keep keys stable when the configured UTC offset
// changes; whole seconds keep them stable across the 6.17 change that dropped milliseconds.
std::string ufm_dedup_key(const UfmEvent& e);

// Internal kind for a UFM event-type number (see the mapping at the top).
std::string_view ufm_event_kind(int type, std::string_view description = {});
// The counter behind threshold events 110-121 (same order as the PortCounters fields:
// 110 SymbolErrorCounter ... 121 VL15Dropped); nullopt for other types. 110, 112, 113,
// 115-118, 120, 121 are documented [H/M]; 111, 114, 119 follow the order [L].
std::optional<Counter> ufm_threshold_counter(int type);
// Info -> info, Warning and Minor -> warning, Major and Error -> error, Critical -> critical
// (case-insensitive); anything else -> info.
Severity ufm_severity(std::string_view severity);

// The internal event: source ufm, time, kind, severity, node_guid/port and peer from the
// description and object (UfmEventEnds), dedup key, and the message
// "UFM <type> <name>: <description>". node/peer_node get the names UFM uses (the correlator
// keeps them; callers that prefer fabric display names may overwrite them).
Event to_event(const UfmEvent& e);

}  // namespace ibw::ingest
