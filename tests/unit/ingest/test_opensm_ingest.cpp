// ingest/opensm_ingest.h: the prefilter never drops a line the parser gives an event or a
// rediscovery for (recorded logs, mutated and generated lines), and the daemon's ingest path
// gives exactly the events of parse_opensm_line + to_event on every line, also for lines cut by
// a read, longer than a read, ending in CRLF, and partial last lines.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "ingest/opensm_ingest.h"
#include "tests/test_paths.h"

using namespace ibw::ingest;

namespace {

constexpr int64_t kReference = 1'795'316'400'000'000;  // 2026-11-22T03:00:00Z
const OsmLogContext kCtx{kReference, 0};

std::vector<std::string> recorded_lines() {
  std::vector<std::string> lines;
  for (const char* name :
       {"opensm-default.log", "opensm-verbose-excerpt.log", "traps-handwritten.log"}) {
    std::ifstream in(std::string(IBW_TEST_DATA) + "/opensm/" + name, std::ios::binary);
    REQUIRE(in);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  REQUIRE(lines.size() == 226);
  return lines;
}

// Whether the parser makes something of the line the daemon uses: an event (either trap
// rule) or a rediscovery (every trap, notice and SUBNET UP record counts, to be safe).
bool parser_wants(std::string_view line) {
  auto r = parse_opensm_line(line, kCtx);
  if (!r) return false;
  if (r->kind == OsmRecordKind::trap || r->kind == OsmRecordKind::notice ||
      r->kind == OsmRecordKind::subnet_up || r->kind == OsmRecordKind::error)
    return true;
  return to_event(*r, OsmTrapRule::notice_line) || to_event(*r, OsmTrapRule::trap_line);
}

void check_line(const std::string& line, int& wanted) {
  if (!parser_wants(line)) return;
  ++wanted;
  INFO(line);
  CHECK(opensm_line_of_interest(line));
}

// Lines made of OpenSM header pieces and message pieces, well-formed or not.
std::string generated_line(std::mt19937& rng) {
  static const std::vector<std::string> heads = {"Nov 22 02:47:03 513203 [F00D16C0] 0x02 -> ",
                                                 "Nov  2 02:47:03 513203 [1] 0x01 ->",
                                                 "Jan 01 00:00:00 000000 [AB] 0xff -> ",
                                                 "Feb 29 12:00:00 000000 [1] 0x80 ->  ",
                                                 "Nov 22 02:47:03 513203 [F00D16C0] 0x02 ",
                                                 "Nov 22 02:47:03 513203 [F00D>] 0x02 -> ",
                                                 "*** ",
                                                 "",
                                                 "Dec 31 23:59:59 999999 [0] 0x4 -> "};
  static const std::vector<std::string> funcs = {
      "",           "log_notice: ", "log_trap_info: ",
      "a: ",        "a-b: ",        "x:",
      ": ",         "SUBNET: ",     "fabric_validate_topology: ",
      "osm_x: y: ", "Received: ",   "ERR: "};
  static const std::vector<std::string> bodies = {
      "SUBNET UP",
      "SUBNET UP\r",
      "ERR AB09: Different number",
      "ERR 31G0: x",
      "ERR 3120:",
      "Received Generic Notice type:1 num:128 (Link state change) Producer:2 (Switch) from "
      "LID:3 TID:0x0",
      "Received Generic Notice type:1 num:129 from LID:3 Port 3",
      "Received Vendor Notice type:1 vend:0x0002C9",
      "Reporting Urgent Notice \"Link state change\" from switch LID 2, GUID 0xb83fd20300000001",
      "Reporting Vendor Notice type:1",
      "Reporting Generic Notice type:1 num:130 from LID:4",
      "Reporting nothing",
      "Forcing heavy sweep. Received trap:128",
      " INITIATING HEAVY SWEEP ****",
      "Entering MASTER state",
      "Entering STANDBY state \r",
      "Exiting SM",
      "Exiting SMP",
      "SM port is down",
      "SM port is up",
      "",
      "  - Fabric has 8 CAs"};
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  std::string line = pick(heads) + pick(funcs) + pick(bodies);
  if (rng() % 4 == 0) line += rng() % 2 ? "\r\n" : "\n";
  return line;
}

// Lines in a file of these (write_temp): generated lines may end in "\n" of their own.
size_t count_lines(const std::vector<std::string>& lines) {
  size_t n = 0;
  for (const auto& l : lines) n += 1 + static_cast<size_t>(std::count(l.begin(), l.end(), '\n'));
  return n;
}

std::filesystem::path write_temp(const std::vector<std::string>& lines) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "ibw-osm-XXXXXX").string();
  int fd = mkstemp(tmpl.data());
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream out(tmpl, std::ios::binary | std::ios::trunc);
  for (const auto& l : lines) out << l << '\n';
  return tmpl;
}

// The events of a whole file, with the lines read, whether a rediscovery was asked for and
// the cursor after the last line.
struct Ingested {
  std::vector<Event> events;
  bool rediscover = false;
  size_t lines = 0;
  std::optional<TailCursor> last;
};

// The reference: every line through parse_opensm_line and to_event, the daemon's old loop.
Ingested parse_every_line(const std::filesystem::path& path) {
  Ingested out;
  FileTailer t(path.string(), std::nullopt);
  for (const auto& line : t.poll()) {
    ++out.lines;
    out.last = line.after;
    auto r = parse_opensm_line(line.text, kCtx);
    if (!r) continue;
    out.rediscover |= (r->kind == OsmRecordKind::trap && r->trap_number == 128) ||
                      (r->kind == OsmRecordKind::notice &&
                       r->text.find("Link state change") != std::string::npos) ||
                      r->kind == OsmRecordKind::subnet_up;
    if (auto e = to_event(*r)) {
      e->dedup_key = "opensm:" + line.after.serialize();
      out.events.push_back(*e);
    }
  }
  return out;
}

// The daemon's path: read_opensm_log in polls of at most batch lines until the file is read.
Ingested read_in_polls(const std::filesystem::path& path, size_t batch) {
  Ingested out;
  FileTailer t(path.string(), std::nullopt);
  for (;;) {
    OsmBatch b = read_opensm_log(t, kCtx, batch);
    if (b.lines == 0) break;
    CHECK(b.lines <= batch);
    out.lines += b.lines;
    out.rediscover |= b.rediscover;
    out.last = b.cursor;
    out.events.insert(out.events.end(), b.events.begin(), b.events.end());
  }
  return out;
}

void check_same_events(const std::vector<Event>& got, const std::vector<Event>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO(want[i].message.substr(0, 200));
    CHECK(got[i].dedup_key == want[i].dedup_key);
    CHECK(got[i].kind == want[i].kind);
    CHECK(got[i].message == want[i].message);
    CHECK(got[i].time_us == want[i].time_us);
    CHECK(got[i].severity == want[i].severity);
    CHECK(got[i].trap_number == want[i].trap_number);
    CHECK(got[i].lid == want[i].lid);
    CHECK(got[i].node_guid == want[i].node_guid);
    CHECK(got[i].port == want[i].port);
  }
}

// read_opensm_log in polls of each batch size gives the reference's lines, last cursor (the
// file's end), rediscovery and events.
void check_polls(const std::filesystem::path& path, size_t newlines, const Ingested& want,
                 std::initializer_list<size_t> batches) {
  for (size_t batch : batches) {
    INFO("batch " << batch);
    const Ingested got = read_in_polls(path, batch);
    CHECK(got.lines == newlines);
    REQUIRE(got.last);
    CHECK(got.last->offset == std::filesystem::file_size(path));
    CHECK(got.rediscover == want.rediscover);
    check_same_events(got.events, want.events);
  }
}

}  // namespace

TEST_CASE("opensm ingest: the prefilter keeps every line the parser wants", "[opensm]") {
  const auto lines = recorded_lines();
  int wanted = 0;
  for (const auto& l : lines) check_line(l, wanted);
  CHECK(wanted == 51);  // 10+10+6+6+2 (SM states) default, trap/notice/ERR/banner of the others
  std::mt19937 rng(15);
  for (const auto& l : lines)  // mutated: one byte changed, cut short, CRLF
    for (int k = 0; k < 40; ++k) {
      std::string m = l;
      if (m.empty()) continue;
      switch (k % 4) {
        case 0:
          m[rng() % m.size()] = static_cast<char>(rng() % 256);
          break;
        case 1:
          m.resize(rng() % m.size());
          break;
        case 2:
          m.insert(rng() % m.size(), 1, " :>*[]0xR"[rng() % 9]);
          break;
        default:
          m += "\r\n";
      }
      check_line(m, wanted);
    }
  for (int i = 0; i < 20000; ++i) check_line(generated_line(rng), wanted);
  CHECK(wanted > 3000);
  // And it does reject most of a log: continuation lines, dumps, other messages.
  int kept = 0;
  for (const auto& l : lines) kept += opensm_line_of_interest(l);
  CHECK(kept < 60);
}

TEST_CASE("opensm ingest: same events as parsing every line", "[opensm]") {
  auto lines = recorded_lines();
  std::mt19937 rng(42);
  for (int i = 0; i < 2000; ++i) lines.push_back(generated_line(rng));
  const auto path = write_temp(lines);
  const size_t newlines = count_lines(lines);
  const Ingested want = parse_every_line(path);
  check_polls(path, newlines, want, {100000, 7});
  CHECK(want.events.size() > 100);
  std::filesystem::remove(path);
}

namespace {

constexpr size_t kRead = 256 * 1024;  // FileTailer's pread() size (ingest/file_tailer.cpp)
const std::string kHead = "Nov 22 02:47:03 513203 [F00D16C0] 0x02 -> ";

// Lines of no interest (a dump's continuation lines) that fill exactly `bytes` bytes.
void fill(std::vector<std::string>& lines, size_t bytes) {
  for (; bytes > 200; bytes -= 100) lines.push_back("  - Fabric dump " + std::string(83, 'x'));
  lines.push_back(std::string(bytes - 1, 'x'));
}

void append(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << text;
}

}  // namespace

TEST_CASE("opensm ingest: lines across read boundaries and longer than one read", "[opensm]") {
  std::vector<std::string> lines;
  // A notice whose keyword "Reporting" is cut by the end of the first read ("Repo" | "rting").
  const std::string notice = kHead +
                             "log_notice: Reporting Urgent Notice \"Link state change\" from "
                             "switch LID 2, GUID 0xb83fd20300000001";
  const size_t notice_at = kRead - (notice.find("Reporting") + 4);
  fill(lines, notice_at);
  lines.push_back(notice);
  lines.push_back(kHead + "ERR 0A01: a CRLF line\r");
  lines.push_back(kHead + "ERR 0A02: " + std::string(kRead + 1000, 'y'));  // longer than a read
  lines.push_back(std::string(3 * kRead, 'z'));                            // and one of no interest
  std::mt19937 rng(7);  // then many lines of interest, so that later reads end inside them too
  for (int i = 0; i < 20000; ++i) lines.push_back(generated_line(rng));
  const auto path = write_temp(lines);
  const size_t newlines = count_lines(lines);

  const Ingested want = parse_every_line(path);
  // The reference sees what this test placed: the cut notice and both long-line neighbours.
  auto has = [&want](std::string_view text, size_t end) {
    return std::any_of(want.events.begin(), want.events.end(), [&](const Event& e) {
      return e.message.find(text) != std::string::npos &&
             TailCursor::parse(e.dedup_key.substr(7))->offset == end;
    });
  };
  const size_t crlf_end = notice_at + notice.size() + 1 + kHead.size() + 23;
  CHECK(has("Link state change", notice_at + notice.size() + 1));
  CHECK(has("a CRLF line", crlf_end));
  CHECK(has("ERR 0A02: yyy", crlf_end + kHead.size() + 10 + kRead + 1000 + 1));
  check_polls(path, newlines, want, {100000, 7, 1});
  std::filesystem::remove(path);
}

TEST_CASE("opensm ingest: a partial last line waits for its newline", "[opensm]") {
  const auto path = write_temp({"  - a dump line"});
  append(path, kHead + "ERR 01");  // the keyword itself is cut by the end of the file
  FileTailer t(path.string(), std::nullopt);
  OsmBatch b = read_opensm_log(t, kCtx);
  CHECK(b.lines == 1);
  CHECK(b.events.empty());
  REQUIRE(b.cursor);
  CHECK(b.cursor->offset == 16);

  append(path, "02: now whole\r\n");
  b = read_opensm_log(t, kCtx);
  CHECK(b.lines == 1);
  check_same_events(b.events, parse_every_line(path).events);
  REQUIRE(b.events.size() == 1);
  CHECK(b.events[0].message.find("ERR 0102: now whole") != std::string::npos);

  // A partial line left in a rotated-away file is delivered alone (no "\n") when the tailer
  // moves on to the new file, and is ingested as a line.
  append(path, kHead + "ERR 0103: never ended");
  const auto old_size = std::filesystem::file_size(path);
  std::filesystem::rename(path, path.string() + ".1");
  append(path, kHead + "SUBNET UP\n");
  b = read_opensm_log(t, kCtx);
  CHECK(b.lines == 2);
  REQUIRE(b.events.size() == 2);
  CHECK(b.events[0].kind == kind::sm_error);
  CHECK(b.events[0].message.find("ERR 0103: never ended") != std::string::npos);
  CHECK(TailCursor::parse(b.events[0].dedup_key.substr(7))->offset == old_size);
  CHECK(b.events[1].kind == kind::subnet_up);
  CHECK(b.rediscover);
  std::filesystem::remove(path.string() + ".1");
  std::filesystem::remove(path);
}
