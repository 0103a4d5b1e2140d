// Pure parsing of OpenSM log lines (upstream OpenSM, default log level; see
// ../shared/reference/ib-sim-lab.md for samples). Lines look like
//   Nov 22 01:44:56 215829 [5704E6C0] 0x01 -> log_trap_info: Received Generic Notice type:1
//     num:128 (Link state change) Producer:2 (Switch) from LID:3 TID:0x0000000000000000
// The year is not in the log; resolve_year() picks it from a reference time so that a line
// is never far in the future (December lines read in January belong to the previous year).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ingest/event.h"

namespace ibw::ingest {

enum class OsmRecordKind : uint8_t {
  trap,       // log_trap_info: Received Generic Notice ... num:N
  notice,     // log_notice: Reporting <Urgent|...> Notice "..." from switch LID N, GUID 0x...
  subnet_up,  // SUBNET UP
  sweep,      // Entering heavy sweep / resweep requested, ...
  error,      // ERR XXXX: ...
  other,
};

struct OsmRecord {
  OsmRecordKind kind = OsmRecordKind::other;
  int64_t time_us = 0;     // UTC, year resolved
  int trap_number = 0;     // 128, 129, 130, 131, 144, 145 ...
  uint16_t lid = 0;        // "from LID:3" / "switch LID 3"
  uint64_t guid = 0;       // "GUID 0x..." when present
  std::string err_code;    // "3120" for ERR lines
  std::string text;        // message after "-> " (function prefix kept)
};

// Time zone the log was written in, as a fixed UTC offset in seconds (OpenSM logs local
// time without a zone); 0 for UTC.
struct OsmLogContext {
  int64_t reference_us = 0;  // "now" (or the file's mtime) for year resolution
  int utc_offset_s = 0;
};

// Parses one line; nullopt for lines that are not OpenSM log records (e.g. continuation
// lines of multi-line dumps).
std::optional<OsmRecord> parse_opensm_line(std::string_view line, const OsmLogContext& ctx);

// Year for a month/day seen at reference time: the year that puts the timestamp closest to
// (and not more than a day after) the reference.
int resolve_year(int month, int day, int64_t reference_us, int utc_offset_s);

// Maps a record to an internal event (source opensm): trap 128 -> kind "trap" with
// trap_number 128 (the port is not in the trap; the watcher re-reads the switch),
// SUBNET UP -> subnet_up, heavy sweeps -> sweep, ERR -> sm_error, other traps -> trap.
// Records of no interest give nullopt.
std::optional<Event> to_event(const OsmRecord& record);

}  // namespace ibw::ingest
