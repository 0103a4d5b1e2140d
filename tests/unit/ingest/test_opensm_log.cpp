// OpenSM log parser on recorded logs (tests/data/opensm/, see its README for provenance):
// exact fields, the one-event-per-trap rule, year resolution and garbage lines.
#include <catch2/catch.hpp>

#include <ctime>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ingest/opensm_log.h"
#include "tests/test_paths.h"

using namespace ibw::ingest;

namespace {

// 2026-11-22T03:00:00Z: a few minutes after the recordings were made.
constexpr int64_t kReference = 1'795'316'400'000'000;
const OsmLogContext kCtx{kReference, 0};

std::vector<std::string> read_lines(const std::string& name) {
  std::ifstream in(std::string(IBW_TEST_DATA) + "/opensm/" + name, std::ios::binary);
  REQUIRE(in);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<OsmRecord> parse_all(const std::vector<std::string>& lines,
                                 const OsmLogContext& ctx = kCtx) {
  std::vector<OsmRecord> out;
  for (const auto& l : lines)
    if (auto r = parse_opensm_line(l, ctx)) out.push_back(*r);
  return out;
}

std::vector<Event> events_of(const std::vector<OsmRecord>& records,
                             OsmTrapRule rule = OsmTrapRule::notice_line) {
  std::vector<Event> out;
  for (const auto& r : records)
    if (auto e = to_event(r, rule)) out.push_back(*e);
  return out;
}

std::map<OsmRecordKind, int> count_kinds(const std::vector<OsmRecord>& records) {
  std::map<OsmRecordKind, int> n;
  for (const auto& r : records) ++n[r.kind];
  return n;
}

// UTC microseconds of a civil time (test-side arithmetic, independent of the parser's).
int64_t utc_us(int y, int mo, int d, int h, int mi, int s, int us = 0) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return static_cast<int64_t>(timegm(&tm)) * 1'000'000 + us;
}

}  // namespace

TEST_CASE("opensm log: default-level recording - exact fields", "[opensm]") {
  auto lines = read_lines("opensm-default.log");
  REQUIRE(lines.size() == 114);
  auto records = parse_all(lines);
  CHECK(records.size() == 108);  // 6 continuation lines of the two-line ERR AB09 messages
  auto kinds = count_kinds(records);
  CHECK(kinds[OsmRecordKind::trap] == 10);
  CHECK(kinds[OsmRecordKind::notice] == 10);
  CHECK(kinds[OsmRecordKind::subnet_up] == 6);
  CHECK(kinds[OsmRecordKind::error] == 6);
  CHECK(kinds[OsmRecordKind::sweep] == 0);     // heavy sweeps are only logged at VERBOSE
  CHECK(kinds[OsmRecordKind::sm_state] == 2);  // Entering DISCOVERING, then MASTER state

  auto up = parse_opensm_line(lines[18], kCtx);  // Nov 22 02:47:03 513203 ... 0x02 -> SUBNET UP
  REQUIRE(up);
  CHECK(up->kind == OsmRecordKind::subnet_up);
  CHECK(up->time_us == utc_us(2026, 11, 22, 2, 47, 3, 513203));
  CHECK(up->time_us == 1'795'315'623'513'203);
  CHECK(up->level == 0x02);
  CHECK(up->text == "SUBNET UP");

  auto trap = parse_opensm_line(lines[19], kCtx);
  REQUIRE(trap);
  CHECK(trap->kind == OsmRecordKind::trap);
  CHECK(trap->time_us == utc_us(2026, 11, 22, 2, 47, 4, 584028));
  CHECK(trap->level == 0x01);
  CHECK(trap->trap_number == 128);
  CHECK(trap->lid == 2);
  CHECK(trap->guid == 0);
  CHECK(trap->port == 0);
  CHECK(trap->text ==
        "log_trap_info: Received Generic Notice type:1 num:128 (Link state change) Producer:2 "
        "(Switch) from LID:2 TID:0x0000000000000000");

  auto notice = parse_opensm_line(lines[21], kCtx);
  REQUIRE(notice);
  CHECK(notice->kind == OsmRecordKind::notice);
  CHECK(notice->trap_number == 128);
  CHECK(notice->lid == 2);
  CHECK(notice->guid == 0xb83fd20300000001);
  CHECK(notice->time_us == utc_us(2026, 11, 22, 2, 47, 4, 584125));

  auto err = parse_opensm_line(lines[29], kCtx);
  REQUIRE(err);
  CHECK(err->kind == OsmRecordKind::error);
  CHECK(err->err_code == "AB09");
  CHECK(err->level == 0x01);
  CHECK(err->text ==
        "fabric_validate_topology: ERR AB09: Different number of upward port groups on switches:");
  CHECK_FALSE(parse_opensm_line(lines[30], kCtx));  // "       GUID 0xb83fd20300000001, LID 2, ..."

  auto other = parse_opensm_line(lines[0], kCtx);  // "... 0x03 -> OpenSM 3.3.23"
  REQUIRE(other);
  CHECK(other->kind == OsmRecordKind::other);
  CHECK(other->level == 0x03);
  CHECK(other->text == "OpenSM 3.3.23");
}

TEST_CASE("opensm log: one physical trap gives exactly one event", "[opensm]") {
  auto records = parse_all(read_lines("opensm-default.log"));
  auto events = events_of(records);
  std::map<std::string, int> by_kind;
  for (const auto& e : events) ++by_kind[e.kind];
  CHECK(by_kind == std::map<std::string, int>{
                       {"trap", 10}, {"subnet_up", 6}, {"sm_error", 6}, {"sm_state", 2}});

  // The trap events come from the notices: the multiset of LIDs equals that of the
  // log_trap_info lines, and every event has the GUID of its LID.
  const std::map<uint16_t, uint64_t> guid_of_lid = {{2, 0xb83fd20300000001},
                                                    {3, 0xb83fd20300000002},
                                                    {5, 0xb83fd20300000004},
                                                    {7, 0xb83fd20300000005},
                                                    {8, 0xb83fd20300000006}};
  std::multiset<uint16_t> trap_lids, event_lids;
  for (const auto& r : records) {
    if (r.kind == OsmRecordKind::trap) {
      trap_lids.insert(r.lid);
      CHECK_FALSE(to_event(r));  // the log_trap_info line of a trap 128 gives nothing
    }
  }
  for (const auto& e : events) {
    if (e.kind != "trap") continue;
    event_lids.insert(e.lid);
    CHECK(e.trap_number == 128);
    CHECK(e.severity == Severity::warning);
    CHECK(e.source == EventSource::opensm);
    CHECK(e.port == 0);
    REQUIRE(guid_of_lid.count(e.lid));
    CHECK(e.node_guid == guid_of_lid.at(e.lid));
    CHECK(e.message.rfind("Reporting Urgent Notice \"Link state change\" from switch LID ", 0) ==
          0);
  }
  CHECK(trap_lids == event_lids);

  // Interleaved threads at 02:47:12: trap LID 3, trap LID 8, notice LID 8, notice LID 3.
  std::vector<std::pair<uint16_t, uint64_t>> at_12;
  for (const auto& e : events)
    if (e.kind == "trap" && e.time_us / 1'000'000 == utc_us(2026, 11, 22, 2, 47, 12) / 1'000'000)
      at_12.emplace_back(e.lid, e.node_guid);
  CHECK(at_12 == std::vector<std::pair<uint16_t, uint64_t>>{{8, 0xb83fd20300000006},
                                                            {3, 0xb83fd20300000002}});

  // trap_line rule: the same traps, one each, from the log_trap_info lines (GUID unknown).
  auto trap_line_events = events_of(records, OsmTrapRule::trap_line);
  std::multiset<uint16_t> trap_line_lids;
  for (const auto& e : trap_line_events) {
    if (e.kind != "trap") continue;
    trap_line_lids.insert(e.lid);
    CHECK(e.node_guid == 0);
    CHECK(e.trap_number == 128);
  }
  CHECK(trap_line_lids == trap_lids);
}

TEST_CASE("opensm log: hand-written traps 129-131 - 144 - 145", "[opensm]") {
  auto records = parse_all(read_lines("traps-handwritten.log"));
  REQUIRE(records.size() == 11);
  CHECK(records[0].kind == OsmRecordKind::trap);
  CHECK(records[0].trap_number == 129);
  CHECK(records[0].lid == 3);
  CHECK(records[0].port == 3);
  CHECK(records[1].kind == OsmRecordKind::sweep);  // "Forcing heavy sweep. Received trap:129"
  CHECK_FALSE(records[1].banner);
  CHECK(records[4].trap_number == 144);
  CHECK(records[4].lid == 10);
  CHECK(records[6].kind == OsmRecordKind::notice);
  CHECK(records[6].trap_number == 144);
  CHECK(records[6].guid == 0x0c42a10300000009);
  CHECK(records[8].trap_number == 145);
  CHECK(records[8].guid == 0xb83fd20300000004);
  CHECK(records[9].port == 2);
  CHECK(records[10].kind == OsmRecordKind::other);  // vendor notice

  auto events = events_of(records);
  REQUIRE(events.size() == 6);
  struct Want {
    int trap;
    uint16_t lid;
    int port;
    uint64_t guid;
    Severity severity;
  };
  std::vector<Want> want = {{129, 3, 3, 0, Severity::warning},
                            {130, 4, 4, 0, Severity::warning},
                            {131, 9, 1, 0, Severity::warning},
                            {144, 10, 0, 0x0c42a10300000009, Severity::info},
                            {145, 5, 0, 0xb83fd20300000004, Severity::info},
                            {129, 4, 2, 0xb83fd20300000003, Severity::warning}};
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("event " << i << ": " << events[i].message);
    CHECK(events[i].kind == "trap");
    CHECK(events[i].trap_number == want[i].trap);
    CHECK(events[i].lid == want[i].lid);
    CHECK(events[i].port == want[i].port);
    CHECK(events[i].node_guid == want[i].guid);
    CHECK(events[i].severity == want[i].severity);
  }
  CHECK(events[0].message ==
        "Received Generic Notice type:1 num:129 (Local Link integrity threshold reached) "
        "Producer:2 (Switch) from LID:3 Port 3 TID:0x0000000000000011");
  CHECK_FALSE(to_event(records[4]));  // the 144 trap line: its notice carries the event
  CHECK(to_event(records[4], OsmTrapRule::trap_line));
  CHECK_FALSE(to_event(records[6], OsmTrapRule::trap_line));
}

TEST_CASE("opensm log: VERBOSE excerpt - heavy sweep banner and MAD timeouts", "[opensm]") {
  auto lines = read_lines("opensm-verbose-excerpt.log");
  auto records = parse_all(lines);
  auto kinds = count_kinds(records);
  CHECK(kinds[OsmRecordKind::trap] == 1);
  CHECK(kinds[OsmRecordKind::notice] == 1);
  CHECK(kinds[OsmRecordKind::sweep] == 2);  // the request and the banner
  CHECK(kinds[OsmRecordKind::error] == 6);

  auto banner = parse_opensm_line(lines[13], kCtx);
  REQUIRE(banner);
  CHECK(banner->kind == OsmRecordKind::sweep);
  CHECK(banner->banner);
  CHECK(banner->time_us == kReference);
  CHECK_FALSE(parse_opensm_line(lines[12], kCtx));  // the box's "*****" border

  auto events = events_of(records);
  std::vector<std::string> kinds_seen, codes;
  for (const auto& e : events) {
    kinds_seen.push_back(e.kind);
    if (e.kind == "sm_error") {
      CHECK(e.severity == Severity::error);
      codes.push_back(e.message.substr(e.message.find("ERR ") + 4, 4));
    }
  }
  CHECK(kinds_seen == std::vector<std::string>{"trap", "sweep", "sm_error", "sm_error", "sm_error",
                                               "sm_error", "sm_error", "sm_error"});
  CHECK(codes == std::vector<std::string>{"5411", "3113", "3120", "5411", "3113", "3120"});
  CHECK(events[2].message ==
        "log_send_error: ERR 5411: DR SMP Send completed with error (IB_TIMEOUT) -- dropping");
  for (const auto& r : records)
    if (r.kind == OsmRecordKind::error) CHECK(r.err_code.size() == 4);
}

TEST_CASE("opensm log: year resolution", "[opensm]") {
  // December lines read in early January belong to the previous year.
  CHECK(resolve_year(12, 31, utc_us(2027, 1, 2, 8, 0, 0), 0) == 2026);
  CHECK(resolve_year(12, 28, utc_us(2027, 1, 1, 0, 5, 0), 0, 23 * 3600) == 2026);
  // January lines when the reference is late on Dec 31: next year if within a day.
  CHECK(resolve_year(1, 1, utc_us(2026, 12, 31, 23, 30, 0), 0, 10 * 60) == 2027);
  CHECK(resolve_year(1, 1, utc_us(2026, 12, 31, 1, 0, 0), 0, 5 * 3600) == 2026);  // 28 h ahead
  CHECK(resolve_year(1, 1, utc_us(2026, 12, 31, 1, 0, 0), 0, 3600) == 2027);      // 24 h ahead
  // The ordinary case, and a day slightly ahead of the reference (clock skew).
  CHECK(resolve_year(11, 22, kReference, 0, 2 * 3600) == 2026);
  CHECK(resolve_year(11, 23, kReference, 0, 3600) == 2026);
  CHECK(resolve_year(6, 1, kReference, 0) == 2026);
  CHECK(resolve_year(12, 25, kReference, 0) == 2025);
  // Feb 29 goes back to the last leap year; impossible dates give the reference year.
  CHECK(resolve_year(2, 29, utc_us(2027, 3, 1, 0, 0, 0), 0) == 2024);
  CHECK(resolve_year(2, 30, kReference, 0) == 2026);
  // The UTC offset moves the reference into the writer's local time: 23:30Z is already
  // Jan 1 00:30 at +01:00, so a Jan 1 line is from 2027 and a Dec 31 line from 2026.
  const int64_t eve = utc_us(2026, 12, 31, 23, 30, 0);
  CHECK(resolve_year(1, 1, eve, 3600, 20 * 60) == 2027);
  CHECK(resolve_year(12, 31, eve, 3600, 23 * 3600) == 2026);
  CHECK(resolve_year(1, 2, eve, -3600, 0) == 2026);  // 22:30 local on Dec 31: Jan 2 is > a day
}

TEST_CASE("opensm log: year rollover and UTC offset in parsed lines", "[opensm]") {
  const std::string dec = "Dec 31 23:59:59 999999 [5704E6C0] 0x02 -> SUBNET UP";
  const std::string jan = "Jan 01 00:00:01 000001 [5704E6C0] 0x02 -> SUBNET UP";
  OsmLogContext early_jan{utc_us(2027, 1, 1, 0, 0, 30), 0};
  CHECK(parse_opensm_line(dec, early_jan)->time_us == utc_us(2026, 12, 31, 23, 59, 59, 999999));
  CHECK(parse_opensm_line(jan, early_jan)->time_us == utc_us(2027, 1, 1, 0, 0, 1, 1));
  OsmLogContext late_dec{utc_us(2026, 12, 31, 23, 59, 58), 0};
  CHECK(parse_opensm_line(jan, late_dec)->time_us == utc_us(2027, 1, 1, 0, 0, 1, 1));
  OsmLogContext mid_year{utc_us(2026, 7, 1, 0, 0, 0), 0};
  CHECK(parse_opensm_line(jan, mid_year)->time_us == utc_us(2026, 1, 1, 0, 0, 1, 1));
  CHECK(parse_opensm_line(dec, mid_year)->time_us == utc_us(2025, 12, 31, 23, 59, 59, 999999));

  // Local time at UTC+2 is two hours ahead of UTC.
  const std::string line = "Nov 22 02:47:03 513203 [F00D16C0] 0x02 -> SUBNET UP";
  OsmLogContext plus2{kReference, 7200};
  CHECK(parse_opensm_line(line, plus2)->time_us == utc_us(2026, 11, 22, 0, 47, 3, 513203));
  OsmLogContext minus5{kReference, -5 * 3600};
  CHECK(parse_opensm_line(line, minus5)->time_us == utc_us(2026, 11, 22, 7, 47, 3, 513203));
  // Leap day: found in the last leap year.
  auto leap = parse_opensm_line("Feb 29 12:00:00 000000 [1] 0x02 -> SUBNET UP",
                                OsmLogContext{utc_us(2027, 3, 1, 0, 0, 0), 0});
  REQUIRE(leap);
  CHECK(leap->time_us == utc_us(2024, 2, 29, 12, 0, 0));
}

TEST_CASE("opensm log: garbage lines give nullopt and never throw", "[opensm]") {
  for (const char* bad : {
           "",
           "hello world",
           "\n",
           "Nov 22 02:47:03 513203",
           "Nov 22 02:47:03 513203 [F00D16C0] 0x02 SUBNET UP",      // no "->"
           "Foo 22 02:47:03 513203 [F00D16C0] 0x02 -> SUBNET UP",   // month
           "Nov 32 02:47:03 513203 [F00D16C0] 0x02 -> SUBNET UP",   // day
           "Feb 30 02:47:03 513203 [F00D16C0] 0x02 -> SUBNET UP",   // no such date
           "Nov 22 25:47:03 513203 [F00D16C0] 0x02 -> SUBNET UP",   // hour
           "Nov 22 02:61:03 513203 [F00D16C0] 0x02 -> SUBNET UP",   // minute
           "Nov 22 02:47:03 51320 [F00D16C0] 0x02 -> SUBNET UP",    // 5-digit micros
           "Nov 22 02:47:03 513203 [] 0x02 -> SUBNET UP",           // no thread
           "Nov 22 02:47:03 513203 [XYZ] 0x02 -> SUBNET UP",        // thread not hex
           "Nov 22 02:47:03 513203 [F00D16C0] 0x123 -> SUBNET UP",  // level > 0xff
           "Nov 22 2:47:03 513203 [F00D16C0] 0x02 -> SUBNET UP",    // one-digit hour
           "\t\t\t\ttype.....................1",
           "******************************************************************",
           "*************************** SUBNET UP ****************************",
       }) {
    INFO(bad);
    CHECK_FALSE(parse_opensm_line(bad, kCtx));
  }
  // CRLF endings and syslog-style space-padded days are accepted.
  auto crlf = parse_opensm_line("Nov 22 02:47:03 513203 [F00D16C0] 0x02 -> SUBNET UP\r\n", kCtx);
  REQUIRE(crlf);
  CHECK(crlf->text == "SUBNET UP");
  auto padded = parse_opensm_line("Nov  2 02:47:03 513203 [F00D16C0] 0x02 -> SUBNET UP", kCtx);
  REQUIRE(padded);
  CHECK(padded->time_us == utc_us(2026, 11, 2, 2, 47, 3, 513203));
  // Damaged trap and notice lines still parse as their kind, with what could be read.
  auto cut = parse_opensm_line(
      "Nov 22 02:47:04 584028 [F28D66C0] 0x01 -> log_trap_info: Received Generic Notice type:1 "
      "num:99999999999 (Link",
      kCtx);
  REQUIRE(cut);
  CHECK(cut->kind == OsmRecordKind::trap);
  CHECK(cut->lid == 0);
  CHECK_FALSE(to_event(*cut, OsmTrapRule::trap_line));  // no trap number: nothing to report
  auto no_guid = parse_opensm_line(
      "Nov 22 02:47:04 584125 [F28D66C0] 0x02 -> log_notice: Reporting Urgent Notice \"Link state",
      kCtx);
  REQUIRE(no_guid);
  CHECK(no_guid->kind == OsmRecordKind::notice);
  CHECK(no_guid->trap_number == 0);
  CHECK_FALSE(to_event(*no_guid));  // no trap number: nothing to report

  // Every prefix of every recorded line, and random bytes, never throw.
  std::vector<std::string> all = read_lines("opensm-default.log");
  for (const auto& l : read_lines("traps-handwritten.log")) all.push_back(l);
  size_t parsed = 0;
  for (const auto& l : all)
    for (size_t n = 0; n <= l.size(); ++n) {
      std::optional<OsmRecord> r;
      REQUIRE_NOTHROW(r = parse_opensm_line(std::string_view(l).substr(0, n), kCtx));
      if (r) REQUIRE_NOTHROW(to_event(*r));
      parsed += r.has_value();
    }
  CHECK(parsed > 0);
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string junk = all[rng() % all.size()];
    for (int k = 0; k < 5; ++k) junk[rng() % junk.size()] = static_cast<char>(rng() % 256);
    REQUIRE_NOTHROW(parse_opensm_line(junk, kCtx));
  }
}
