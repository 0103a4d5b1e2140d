// OpenSM log lines: the parser that reads one line into a record (and the record/view copies),
// and the quick filter for lines of interest. Dates: ingest/opensm_log_date.cpp; events:
// ingest/opensm_log_events.cpp.
#include "ingest/opensm_log.h"

#include <arpa/inet.h>

#include <array>
#include <charconv>
#include <climits>
#include <cstring>

#include "ingest/line_scan.h"
#include "ingest/opensm_log_detail.h"

namespace ibw::ingest {
namespace osm_log_detail {

// 1-12 for the month abbreviation at p (3 readable bytes), else 0.
[[gnu::always_inline]] inline int month_of(const char* p) {
  auto is = [p](const char(&m)[4]) { return p[0] == m[0] && p[1] == m[1] && p[2] == m[2]; };
  switch (p[0]) {
    case 'J':
      return is("Jan") ? 1 : is("Jun") ? 6 : is("Jul") ? 7 : 0;
    case 'F':
      return is("Feb") ? 2 : 0;
    case 'M':
      return is("Mar") ? 3 : is("May") ? 5 : 0;
    case 'A':
      return is("Apr") ? 4 : is("Aug") ? 8 : 0;
    case 'S':
      return is("Sep") ? 9 : 0;
    case 'O':
      return is("Oct") ? 10 : 0;
    case 'N':
      return is("Nov") ? 11 : 0;
    case 'D':
      return is("Dec") ? 12 : 0;
    default:
      return 0;
  }
}

// Value of the n decimal digits at p; -1 when one of them is not a digit.
[[gnu::always_inline]] inline int digits(const char* p, int n) {
  int v = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned d = static_cast<unsigned char>(p[i]) - unsigned{'0'};
    if (d > 9) return -1;
    v = v * 10 + static_cast<int>(d);
  }
  return v;
}

// Reads an unsigned decimal (or hex) number at the front of s and drops it from s.
template <typename T>
bool take_number(std::string_view& s, T& out, int base = 10) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  if (ec != std::errc() || ptr == s.data()) return false;
  s.remove_prefix(static_cast<size_t>(ptr - s.data()));
  return true;
}

[[gnu::always_inline]] inline bool has_prefix(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::memcmp(s.data(), prefix.data(), prefix.size()) == 0;
}

[[gnu::always_inline]] inline bool take(std::string_view& s, std::string_view prefix) {
  if (!has_prefix(s, prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// s.find(key) (first occurrence), scanning for the byte key[pivot] (pick a rare one).
[[gnu::always_inline]] inline size_t find_key(std::string_view s, std::string_view key,
                                              size_t pivot = 0) {
  if (s.size() < key.size()) return std::string_view::npos;
  const char* end = s.data() + s.size() - (key.size() - 1 - pivot);
  for (const char* q = s.data() + pivot; (q = find_byte(q, end, key[pivot])); ++q) {
    const char* at = q - pivot;
    if (std::memcmp(at, key.data(), key.size()) == 0) return static_cast<size_t>(at - s.data());
  }
  return std::string_view::npos;
}

// Number following the first occurrence of key in s (e.g. "num:" -> 128).
template <typename T>
bool number_after(std::string_view s, std::string_view key, T& out, int base = 10,
                  size_t pivot = 0) {
  size_t at = find_key(s, key, pivot);
  if (at == std::string_view::npos) return false;
  s.remove_prefix(at + key.size());
  return take_number(s, out, base);
}

constexpr std::array<bool, 256> kHexChars = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<size_t>(c)] =
        (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
  return t;
}();

[[gnu::always_inline]] inline bool is_hex(char c) {
  return kHexChars[static_cast<unsigned char>(c)];
}

// Trap names as OpenSM prints them (ib_get_trap_str), for notices that only give the name.
int trap_number_of(std::string_view name) {
  struct Entry {
    std::string_view name;
    int number;
  };
  static constexpr std::array<Entry, 16> kTraps = {{
      {"Link state change", 128},
      {"Local Link integrity threshold reached", 129},
      {"Excessive Buffer Overrun Threshold reached", 130},
      {"Flow Control Update watchdog timer expired", 131},
      {"CapabilityMask, NodeDescription, Link [Width|Speed] Enabled, SM priority changed", 144},
      {"System Image GUID changed", 145},
      {"Bad M_Key", 256},
      {"Bad P_Key", 257},
      {"Bad Q_Key", 258},
      {"Bad P_Key (switch external port)", 259},
      {"GID in service", 64},
      {"GID out of service", 65},
      {"New mcast group created", 66},
      {"Mcast group deleted", 67},
      {"UnPath, Path no longer valid", 68},
      {"RePath, Path recomputed", 69},
  }};
  for (const auto& e : kTraps)
    if (e.name == name) return e.number;
  return 0;
}

// Interface ID (the port GUID) of a GID printed by inet_ntop, e.g. "fe80::b83f:d203:0:1".
uint64_t guid_of_gid(std::string_view gid) {
  size_t end = 0;
  while (end < gid.size() && (is_hex(gid[end]) || gid[end] == ':' || gid[end] == '.')) ++end;
  if (end == 0 || end >= INET6_ADDRSTRLEN) return 0;
  char text[INET6_ADDRSTRLEN] = {};
  std::memcpy(text, gid.data(), end);
  unsigned char raw[16];
  if (inet_pton(AF_INET6, text, raw) != 1) return 0;
  uint64_t guid = 0;
  for (int i = 8; i < 16; ++i) guid = guid << 8 | raw[i];
  return guid;
}

// "Received Generic Notice type:1 num:128 (...) Producer:2 (Switch) from LID:3[ Port 5] TID:..."
void parse_trap(std::string_view body, OsmRecordView& r) {
  number_after(body, "num:", r.trap_number);
  size_t at = find_key(body, " from LID:", 1);
  if (at == std::string_view::npos) return;
  std::string_view rest = body.substr(at + 10);
  take_number(rest, r.lid);
  if (take(rest, " Port ")) take_number(rest, r.port);
}

// "Reporting Urgent Notice "Link state change" from switch LID 2, GUID 0x..." and relatives.
void parse_notice(std::string_view body, OsmRecordView& r) {
  if (take(body, "Reporting Generic Notice ")) {
    number_after(body, "num:", r.trap_number);
    number_after(body, " from LID:", r.lid, 10, 1);
    size_t at = find_key(body, " GID:", 1);
    if (at != std::string_view::npos) r.guid = guid_of_gid(body.substr(at + 5));
    return;
  }
  size_t open = body.find('"');
  size_t close = open == std::string_view::npos ? open : body.find('"', open + 1);
  if (close == std::string_view::npos) return;
  r.trap_number = trap_number_of(body.substr(open + 1, close - open - 1));
  std::string_view rest = body.substr(close + 1);
  size_t at = find_key(rest, "LID ");
  if (at == std::string_view::npos) return;
  rest.remove_prefix(at + 4);
  take_number(rest, r.lid);
  if (!take(rest, ", GUID 0x")) return;
  take_number(rest, r.guid, 16);
  if (take(rest, ", port ") || take(rest, " port ")) take_number(rest, r.port);
}

constexpr int64_t kNoDate = INT64_MIN;

// Days since the epoch of the line's local date, year resolved; kNoDate for impossible dates.
// Consecutive lines share reference and date, so the last answer is kept when it does not
// depend on the time of day (it only does within a day of the reference).
int64_t local_days(int month, int day, int seconds_of_day, const OsmLogContext& ctx) {
  struct Memo {
    int64_t reference_us = INT64_MIN;
    int utc_offset_s = 0, month = 0, day = 0;
    int64_t days = kNoDate;
  };
  thread_local Memo memo;
  if (memo.reference_us == ctx.reference_us && memo.utc_offset_s == ctx.utc_offset_s &&
      memo.month == month && memo.day == day)
    return memo.days;
  const int year = resolve_year(month, day, ctx.reference_us, ctx.utc_offset_s, seconds_of_day);
  const int64_t days =
      valid_date(year, month, day)
          ? days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day))
          : kNoDate;
  if (resolve_year(month, day, ctx.reference_us, ctx.utc_offset_s, 0) ==
      resolve_year(month, day, ctx.reference_us, ctx.utc_offset_s,
                   static_cast<int>(kSecondsPerDay) - 1))
    memo = {ctx.reference_us, ctx.utc_offset_s, month, day, days};
  return days;
}

}  // namespace osm_log_detail

std::optional<OsmRecordView> parse_opensm_line_view(std::string_view line,
                                                    const OsmLogContext& ctx) {
  using namespace osm_log_detail;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.size() < 33) return std::nullopt;  // shorter than "Jan 01 00:00:00 000000 [0] 0x1 ->"

  if (line.front() == '*') {  // OpenSM message box (VERBOSE): only the heavy sweep one counts
    if (line.find(" INITIATING HEAVY SWEEP ") == std::string_view::npos) return std::nullopt;
    OsmRecordView r;
    r.kind = OsmRecordKind::sweep;
    r.banner = true;
    r.time_us = ctx.reference_us;
    r.text = "INITIATING HEAVY SWEEP";
    return r;
  }

  // "Nov 22 01:44:56 215829 [5704E6C0] 0x01 -> text": fixed widths up to the thread ID.
  const char* p = line.data();
  const int month = month_of(p);
  if (month == 0 || p[3] != ' ') return std::nullopt;
  p += 4;
  const int day = p[0] == ' ' ? digits(p + 1, 1) : digits(p, 2);  // " 2": syslog-style padding
  const int hour = digits(p + 3, 2), minute = digits(p + 6, 2), second = digits(p + 9, 2);
  const int usec = digits(p + 12, 6);
  if (day < 1 || p[2] != ' ' || hour < 0 || hour > 23 || p[5] != ':' || minute < 0 || minute > 59 ||
      p[8] != ':' || second < 0 || second > 60 || p[11] != ' ' || usec < 0 || p[18] != ' ' ||
      p[19] != '[')
    return std::nullopt;
  std::string_view s = line.substr(24);  // after "[", at the thread ID
  size_t thread_len = 0;
  while (thread_len < s.size() && is_hex(s[thread_len])) ++thread_len;
  if (thread_len == 0) return std::nullopt;
  s.remove_prefix(thread_len);
  unsigned level = 0;
  if (!take(s, "] 0x") || !take_number(s, level, 16) || level > 0xff || !take(s, " ->"))
    return std::nullopt;
  take(s, " ");

  const int sod = hour * 3600 + minute * 60 + second;
  const int64_t days = local_days(month, day, sod, ctx);
  if (days == kNoDate) return std::nullopt;
  OsmRecordView r;
  r.level = static_cast<uint8_t>(level);
  r.time_us = (days * kSecondsPerDay + sod - ctx.utc_offset_s) * 1'000'000 + usec;
  r.text = s;

  std::string_view body = strip_function(s);

  if (take(body, "Received Generic Notice ")) {
    r.kind = OsmRecordKind::trap;
    parse_trap(body, r);
  } else if (has_prefix(body, "Reporting ") && !has_prefix(body, "Reporting Vendor Notice ") &&
             find_key(body, " Notice ", 1) != std::string_view::npos) {
    r.kind = OsmRecordKind::notice;
    parse_notice(body, r);
  } else if (has_prefix(body, "SUBNET UP")) {
    r.kind = OsmRecordKind::subnet_up;
  } else if (body.size() >= 9 && has_prefix(body, "ERR ") && is_hex(body[4]) && is_hex(body[5]) &&
             is_hex(body[6]) && is_hex(body[7]) && body[8] == ':') {
    r.kind = OsmRecordKind::error;
    r.err_code = body.substr(4, 4);
  } else if (const SmLogState st = !body.empty() && (body.front() == 'E' || body.front() == 'S')
                                       ? sm_log_state_of_text(body)
                                       : SmLogState::none;
             st != SmLogState::none) {
    r.kind = OsmRecordKind::sm_state;
    r.sm_state = st;
  } else if (body.find("heavy sweep") != std::string_view::npos) {
    r.kind = OsmRecordKind::sweep;
  }
  return r;
}

std::optional<OsmRecord> parse_opensm_line(std::string_view line, const OsmLogContext& ctx) {
  auto v = parse_opensm_line_view(line, ctx);
  if (!v) return std::nullopt;
  OsmRecord r;
  r.kind = v->kind;
  r.time_us = v->time_us;
  r.level = v->level;
  r.trap_number = v->trap_number;
  r.lid = v->lid;
  r.guid = v->guid;
  r.port = v->port;
  r.banner = v->banner;
  r.sm_state = v->sm_state;
  r.err_code.assign(v->err_code);
  r.text.assign(v->text);
  return r;
}

bool opensm_line_of_interest(std::string_view line) {
  using namespace osm_log_detail;
  // As parse_opensm_line_view reads the line, up to the point where it picks the kind.
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.size() < 33) return false;
  if (line.front() == '*') return line.find(" INITIATING HEAVY SWEEP ") != std::string_view::npos;
  if (line[23] != '[') return false;  // not a record (the parser wants "[" there): a dump line
  // In a record, the first '>' after the "[" at offset 23 ends " ->": the thread ID and the
  // level between them are hex digits.
  const char* end = line.data() + line.size();
  const char* p = find_byte(line.data() + 24, end, '>');
  if (!p) return false;
  p += p + 1 < end && p[1] == ' ' ? 2 : 1;
  // The kind is picked from the message after strip_function, which drops "name: " when name
  // is made of word characters: then the first space of the message follows that ':'. Looking
  // at both places (the message, and after its first ": ") never misses what the parser sees.
  auto kind_at = [end](const char* b) {
    const std::string_view body(b, static_cast<size_t>(end - b));
    switch (body.empty() ? '\0' : body.front()) {
      case 'R':  // trap: "Received Generic Notice ", notice: "Reporting ... Notice "
        return has_prefix(body, "Received Generic Notice ") || has_prefix(body, "Reporting ");
      case 'S':  // "SM port is down": an SM state line
        return has_prefix(body, "SUBNET UP") || has_prefix(body, "SM port is ");
      case 'E':  // "Entering MASTER state", "Exiting SM": SM state lines
        return has_prefix(body, "ERR ") || has_prefix(body, "Entering ") ||
               has_prefix(body, "Exiting SM");
      default:
        return false;
    }
  };
  if (kind_at(p)) return true;
  const char* space = find_byte(p, end, ' ');
  return space && space > p + 1 && space[-1] == ':' && kind_at(space + 1);
}

std::optional<Event> to_event(const OsmRecord& record, OsmTrapRule rule) {
  OsmRecordView v;
  v.kind = record.kind;
  v.time_us = record.time_us;
  v.level = record.level;
  v.trap_number = record.trap_number;
  v.lid = record.lid;
  v.guid = record.guid;
  v.port = record.port;
  v.banner = record.banner;
  v.sm_state = record.sm_state;
  v.err_code = record.err_code;
  v.text = record.text;
  return to_event(v, rule);
}

}  // namespace ibw::ingest
