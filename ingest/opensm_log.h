// Pure parsing of OpenSM log lines (upstream OpenSM 3.3, default log level; see
// ../shared/reference/ib-sim-lab.md and tests/data/opensm/ for recorded samples). Lines look like
//   Nov 22 01:44:56 215829 [5704E6C0] 0x01 -> log_trap_info: Received Generic Notice type:1
//     num:128 (Link state change) Producer:2 (Switch) from LID:3 TID:0x0000000000000000
// The year is not in the log; resolve_year() picks it from a reference time so that a line
// is never far in the future (December lines read in January belong to the previous year).
//
// One physical trap gives exactly ONE event. OpenSM logs a trap twice, and lines of different
// traps interleave (several OpenSM threads log at once, so adjacency means nothing):
//   1. `log_trap_info: Received Generic Notice ... num:N ... from LID:L[ Port P]` (ERROR level),
//      for every trap received over SMPs;
//   2. `log_notice: Reporting <Urgent|Informational|Security> Notice "<trap name>" from
//      [switch] LID L, GUID G...` (INFO level, on by default), when OpenSM reports the trap to
//      subscribers. It does so for every trap except 129/130/131 (those only feed its port
//      health tracking) and except repeats it suppresses (more than 10 within 5 s).
// Rule (OsmTrapRule::notice_line, the default): the notice record gives the event, with LID
// and GUID; the log_trap_info record gives an event only for traps 129/130/131, which are
// never reported as notices, and nothing for the others (so a repeat OpenSM suppresses gives no
// event either: OpenSM ignored it too). Logs written without the INFO level
// (log_flags 0x01) have no notice lines: use OsmTrapRule::trap_line, where every log_trap_info
// record gives the event (GUID unknown, 0) and notice records give nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/event.h"
#include "ingest/opensm_sm_state.h"

namespace ibw::ingest {

enum class OsmRecordKind : uint8_t {
  trap,       // log_trap_info: Received Generic Notice ... num:N
  notice,     // log_notice: Reporting <Urgent|...> Notice "..." from switch LID N, GUID 0x...
  subnet_up,  // SUBNET UP
  sweep,      // heavy sweep: "INITIATING HEAVY SWEEP" banner, "Forcing heavy sweep ..." requests
  error,      // ERR XXXX: ...
  sm_state,   // the SM's own state: "Entering MASTER state", "Exiting SM" ... (opensm_sm_state.h)
  other,
};

struct OsmRecord {
  OsmRecordKind kind = OsmRecordKind::other;
  int64_t time_us = 0;  // UTC, year resolved
  uint8_t level = 0;    // OpenSM log level bit: 0x01 ERROR, 0x02 INFO, 0x04 VERBOSE, 0x80 SYS
  int trap_number = 0;  // 128, 129, 130, 131, 144, 145 ... (notices: from the trap name)
  uint16_t lid = 0;     // "from LID:3" / "switch LID 3"
  uint64_t guid = 0;    // "GUID 0x..." (notices) when present
  int port = 0;         // "Port 5" of traps 129-131 (and their notices)
  bool banner = false;  // an untimed OpenSM message-box line (see parse_opensm_line)
  SmLogState sm_state = SmLogState::none;  // sm_state records
  std::string err_code;                    // "3120" / "AB09" for ERR lines
  std::string text;                        // message after "-> " (function prefix kept)
};

// An OsmRecord whose text fields borrow from the parsed line (valid as long as the line is):
// what parse_opensm_line copies into an OsmRecord, for callers that map each line to its event
// at once and keep no record (ingest/opensm_ingest.h).
struct OsmRecordView {
  OsmRecordKind kind = OsmRecordKind::other;
  int64_t time_us = 0;
  uint8_t level = 0;
  int trap_number = 0;
  uint16_t lid = 0;
  uint64_t guid = 0;
  int port = 0;
  bool banner = false;
  SmLogState sm_state = SmLogState::none;
  std::string_view err_code;
  std::string_view text;
};

// Time zone the log was written in, as a fixed UTC offset in seconds (OpenSM logs local
// time without a zone); 0 for UTC.
struct OsmLogContext {
  int64_t reference_us = 0;  // "now" (or the file's mtime) for year resolution; required
  int utc_offset_s = 0;
};

// Parses one line (with or without its trailing "\n" / "\r\n"); never throws. nullopt for
// lines that are not OpenSM log records: continuation lines of multi-line messages and dumps,
// blank lines, garbage, impossible dates. One exception: the VERBOSE-level message box
// `*** INITIATING HEAVY SWEEP ***` carries no timestamp; it gives a sweep record with
// banner = true and time_us = ctx.reference_us (other box lines, e.g. the boxed SUBNET UP
// that repeats the timestamped one, give nullopt).
std::optional<OsmRecord> parse_opensm_line(std::string_view line, const OsmLogContext& ctx);
// The same record, borrowing its text from line.
std::optional<OsmRecordView> parse_opensm_line_view(std::string_view line,
                                                    const OsmLogContext& ctx);

// Cheap test run on every line before the parser on the daemon's path: false for lines that
// give no record, or a record no event or rediscovery comes from (kind other, a sweep record
// that is not the banner): most of a log. Never false for a line whose record is a trap,
// notice, SUBNET UP, ERR or SM state line, or the heavy-sweep banner; some other lines pass too,
// and the parser sorts them out. It looks at the line's length, finds the "->" after the header and
// compares the first bytes of the message: no date, no allocation.
bool opensm_line_of_interest(std::string_view line);

// Year for a month/day seen at reference time: the year that puts the timestamp closest to
// (and not more than a day after) the reference. seconds_of_day (the line's local time of
// day, when known) makes "a day after" exact; without it the date's midnight is compared.
// Dates that exist in no nearby year (Feb 30) give the reference year.
int resolve_year(int month, int day, int64_t reference_us, int utc_offset_s,
                 int seconds_of_day = 0);

// Which of a trap's two lines yields its event (see the rule at the top of this file).
enum class OsmTrapRule : uint8_t {
  notice_line,  // default; OpenSM logs at INFO level (log_flags 0x03, its default)
  trap_line,    // OpenSM logs errors only: no notice lines
};

// Maps a record to an internal event (source opensm). Traps (see the rule above) -> kind
// "trap" with trap_number, LID, GUID when known, port for 129-131, and severity warning
// (128-131, 256-259) or info (144, 145, others); notices of the SM's own traps 64-69 (GID in
// service, multicast groups) give nothing; the port of a trap 128 is not in the log (the
// watcher re-reads the switch). SUBNET UP -> subnet_up (info); the heavy-sweep banner -> sweep
// (info; the "Forcing heavy sweep" request lines that precede it give nothing, so one sweep
// is one event); ERR -> sm_error (severity error, the message keeps "ERR <code>: ..."); an SM
// state line -> sm_state (node "subnet manager", sm_log_state_severity, the message
// sm_state_message: the state and the line).
// Records of no interest give nullopt. dedup_key is left to the caller, who knows the line's
// position (e.g. "opensm:" + TailLine::after.serialize()).
std::optional<Event> to_event(const OsmRecord& record, OsmTrapRule rule = OsmTrapRule::notice_line);
std::optional<Event> to_event(const OsmRecordView& record,
                              OsmTrapRule rule = OsmTrapRule::notice_line);
// The same into e (a default Event, e.g. just emplaced): true when the record gives an event;
// false, with e untouched, when it gives none.
bool to_event(const OsmRecordView& record, OsmTrapRule rule, Event& e);

}  // namespace ibw::ingest
