// OpenSM's state lines (ingest/opensm_sm_state.h) on logs recorded on ibsim
// (tests/data/opensm/sm-state-*.log, see its README): the exact states in order, with their
// times; the sm_state events (state and line in the message) and the daemon's ingest path,
// whose dedup keys make a re-read of the same lines store nothing twice.
#include <catch2/catch.hpp>

#include "tests/test_paths.h"

#include <ctime>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ingest/opensm_ingest.h"
#include "ingest/opensm_sm_state.h"

using namespace ibw::ingest;

namespace {

constexpr int64_t kReference = 1'795'827'600'000'000;  // 2026-11-28T01:00:00Z, after recording
const OsmLogContext kCtx{kReference, 0};

std::string data_path(const std::string& name) {
  return std::string(IBW_TEST_DATA) + "/opensm/" + name;
}

std::vector<std::string> read_lines(const std::string& name) {
  std::ifstream in(data_path(name), std::ios::binary);
  REQUIRE(in);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// 2026-11-28 h:m:s.us UTC (test-side arithmetic).
int64_t at(int h, int m, int s, int us) {
  std::tm tm{};
  tm.tm_year = 2026 - 1900, tm.tm_mon = 10, tm.tm_mday = 28;
  tm.tm_hour = h, tm.tm_min = m, tm.tm_sec = s;
  return static_cast<int64_t>(timegm(&tm)) * 1'000'000 + us;
}

using Seen = std::vector<std::pair<std::string, int64_t>>;  // (state name, time)

Seen states_of(const std::string& name) {
  Seen out;
  for (const auto& l : read_lines(name)) {
    auto r = parse_opensm_line(l, kCtx);
    if (r && r->kind == OsmRecordKind::sm_state)
      out.emplace_back(std::string(sm_log_state_name(r->sm_state)), r->time_us);
  }
  return out;
}

}  // namespace

TEST_CASE("sm state lines: master stopped with SIGTERM and started again", "[opensm][sm_state]") {
  CHECK(states_of("sm-state-master.log") == Seen{{"discovering", at(0, 21, 27, 538660)},
                                                 {"master", at(0, 21, 27, 593513)},
                                                 {"exiting", at(0, 21, 33, 677728)},
                                                 {"discovering", at(0, 21, 41, 700774)},
                                                 {"master", at(0, 21, 41, 711595)}});
}

TEST_CASE("sm state lines: the standby takes over twice and hands back once",
          "[opensm][sm_state]") {
  CHECK(states_of("sm-state-standby.log") == Seen{{"discovering", at(0, 21, 27, 830399)},
                                                  {"standby", at(0, 21, 27, 867424)},
                                                  {"discovering", at(0, 21, 36, 890825)},
                                                  {"master", at(0, 21, 36, 898465)},
                                                  {"standby", at(0, 21, 41, 708299)},
                                                  {"discovering", at(0, 21, 54, 756887)},
                                                  {"master", at(0, 21, 54, 759466)},
                                                  {"exiting", at(0, 22, 11, 789490)}});
}

TEST_CASE("sm state lines: the SM port down and up again", "[opensm][sm_state]") {
  CHECK(states_of("sm-state-port-down.log") == Seen{{"discovering", at(0, 22, 27, 640987)},
                                                    {"master", at(0, 22, 27, 650412)},
                                                    {"port_down", at(0, 22, 29, 677327)},
                                                    {"discovering", at(0, 22, 29, 678357)},
                                                    {"master", at(0, 22, 35, 702402)},
                                                    {"exiting", at(0, 22, 41, 718056)}});
  // "SM port is up" and the version banner are no states; neither is a look-alike.
  for (const char* line : {"Nov 28 00:22:35 700239 [EBE186C0] 0x80 -> SM port is up",
                           "Nov 28 00:22:27 436264 [EEE1F740] 0x80 -> OpenSM 3.3.23",
                           "Nov 28 00:22:27 436264 [EEE1F740] 0x80 -> Entering MASTER state soon",
                           "Nov 28 00:22:27 436264 [EEE1F740] 0x02 -> f: Entering FOO state"}) {
    auto r = parse_opensm_line(line, kCtx);
    REQUIRE(r);
    CHECK(r->kind == OsmRecordKind::other);
    CHECK_FALSE(to_event(*r));
  }
}

TEST_CASE("sm state lines: events carry the state and the line", "[opensm][sm_state]") {
  auto lines = read_lines("sm-state-master.log");
  REQUIRE(lines.size() == 41);
  auto r = parse_opensm_line(lines[24], kCtx);  // "... 0x80 -> Exiting SM"
  REQUIRE(r);
  CHECK(r->level == 0x80);
  auto e = to_event(*r);
  REQUIRE(e);
  CHECK(e->kind == "sm_state");
  CHECK(e->source == EventSource::opensm);
  CHECK(e->severity == Severity::warning);
  CHECK(e->time_us == at(0, 21, 33, 677728));
  CHECK(e->node == "subnet manager");
  CHECK(e->message == "OpenSM state exiting: Exiting SM");
  CHECK(sm_state_of(*e) == SmLogState::exiting);

  auto m = to_event(*parse_opensm_line(lines[9], kCtx));  // "Entering MASTER state"
  REQUIRE(m);
  CHECK(m->severity == Severity::info);
  CHECK(m->message == "OpenSM state master: Entering MASTER state");
  CHECK(sm_state_of(*m) == SmLogState::master);

  Event other;  // another kind, or a message of another shape, carries no state
  other.kind = "subnet_up";
  other.message = m->message;
  CHECK(sm_state_of(other) == SmLogState::none);
  other.kind = "sm_state";
  other.message = "OpenSM state bogus: x";
  CHECK(sm_state_of(other) == SmLogState::none);
  for (auto s : {SmLogState::discovering, SmLogState::standby, SmLogState::master,
                 SmLogState::not_active, SmLogState::exiting, SmLogState::port_down})
    CHECK(sm_log_state_from_name(sm_log_state_name(s)) == s);
}

TEST_CASE("sm state lines: the daemon's ingest path - same events and stable keys",
          "[opensm][sm_state]") {
  for (const char* name :
       {"sm-state-master.log", "sm-state-standby.log", "sm-state-port-down.log"}) {
    INFO(name);
    size_t expected = 0;
    for (const auto& l : read_lines(name)) {
      auto r = parse_opensm_line(l, kCtx);
      if (r && r->kind == OsmRecordKind::sm_state) {
        CHECK(opensm_line_of_interest(l));  // the prefilter keeps every state line
        ++expected;
      }
    }
    auto read = [&] {
      FileTailer tailer(data_path(name), std::nullopt, /*start_at_end=*/false);
      std::vector<Event> out;
      for (auto& e : read_opensm_log(tailer, kCtx).events)
        if (e.kind == "sm_state") out.push_back(std::move(e));
      return out;
    };
    auto first = read(), again = read();
    REQUIRE(first.size() == expected);
    REQUIRE(again.size() == expected);
    std::set<std::string> keys;
    for (size_t i = 0; i < first.size(); ++i) {
      CHECK(first[i].dedup_key.rfind("opensm:", 0) == 0);
      CHECK(first[i].dedup_key == again[i].dedup_key);  // a re-read is dropped by its key
      CHECK(sm_state_of(first[i]) != SmLogState::none);
      keys.insert(first[i].dedup_key);
    }
    CHECK(keys.size() == expected);
  }
}
