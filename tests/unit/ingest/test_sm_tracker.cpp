// SmTracker: no master, failover, master back and the frozen ActCount, poll by poll.
#include <catch2/catch.hpp>

#include "ingest/sm_tracker.h"

using namespace ibw;
using ingest::SmPoll;
using ingest::SmStatus;
using ingest::SmTracker;

namespace {

constexpr int64_t kS = 1'000'000;

fabric::SmInfo sm(uint64_t guid, uint16_t lid, fabric::SmState state, uint32_t act,
                  uint8_t prio = 0) {
  fabric::SmInfo s;
  s.guid = guid, s.lid = lid, s.state = state, s.act_count = act, s.priority = prio;
  return s;
}

SmPoll poll(int64_t t, std::vector<fabric::SmInfo> answers, uint16_t master_lid = 1) {
  SmPoll p;
  p.time_us = t * kS;
  p.master_lid = master_lid;
  p.answers = std::move(answers);
  return p;
}

}  // namespace

TEST_CASE("SmTracker finds the master and its standbys", "[sm_tracker]") {
  SmTracker t;
  CHECK(t.status() == SmStatus::unknown);
  auto ev = t.update(poll(1, {sm(0x100004, 4, fabric::SmState::standby, 5, 1),
                              sm(0x100001, 1, fabric::SmState::master, 10, 0)}));
  CHECK(ev.empty());  // the first master after a start is no event
  CHECK(t.status() == SmStatus::master);
  REQUIRE(t.master());
  CHECK(t.master()->guid == 0x100001);
  REQUIRE(t.standby().size() == 1);
  CHECK(t.standby()[0].lid == 4);
  auto j = t.to_json();
  CHECK(j["master"]["guid"] == "0x0000000000100001");
  CHECK(j["master"]["state"] == "master");
  CHECK(j["standby"][0]["state"] == "standby");
  CHECK(j["last_sweep"].is_null());
  t.note_sweep(5 * kS);
  CHECK(t.to_json()["last_sweep"].is_string());
}

TEST_CASE("SmTracker says no master after fail_polls silent polls and master back after",
          "[sm_tracker]") {
  SmTracker t({.fail_polls = 2, .freeze_us = 30 * kS});
  t.update(poll(1, {sm(0x100001, 1, fabric::SmState::master, 10)}));
  CHECK(t.update(poll(2, {})).empty());  // one silent poll is not enough
  CHECK(t.status() == SmStatus::master);
  auto ev = t.update(poll(3, {}));
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].kind == "sm_no_master");
  CHECK(ev[0].severity == ingest::Severity::critical);
  CHECK(ev[0].node_guid == 0x100001);
  CHECK(t.status() == SmStatus::no_master);
  CHECK_FALSE(t.master());
  CHECK(t.to_json()["master"].is_null());
  CHECK(t.update(poll(4, {})).empty());  // said once
  ev = t.update(poll(9, {sm(0x100001, 1, fabric::SmState::master, 3)}));
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].kind == "sm_master");
  CHECK(t.status() == SmStatus::master);
  CHECK(t.failovers() == 0);  // the same SM came back
}

TEST_CASE("SmTracker reports a standby answering MASTER as a failover", "[sm_tracker]") {
  SmTracker t;
  t.update(poll(1, {sm(0x100001, 1, fabric::SmState::master, 10),
                    sm(0x100004, 4, fabric::SmState::standby, 5)}));
  t.update(poll(2, {sm(0x100004, 4, fabric::SmState::standby, 6)}));
  t.update(poll(3, {sm(0x100004, 4, fabric::SmState::standby, 7)}));
  CHECK(t.status() == SmStatus::no_master);
  auto ev = t.update(poll(4, {sm(0x100004, 4, fabric::SmState::master, 8)}, 1));
  REQUIRE(ev.size() == 2);
  CHECK(ev[0].kind == "sm_failover");
  CHECK(ev[0].node_guid == 0x100004);
  CHECK(ev[1].kind == "sm_master");
  CHECK(t.failovers() == 1);
  CHECK(t.to_json()["failovers"] == 1);
}

TEST_CASE("SmTracker treats a master whose ActCount stays as hung", "[sm_tracker]") {
  SmTracker t({.fail_polls = 2, .freeze_us = 10 * kS});
  t.update(poll(0, {sm(0x100001, 1, fabric::SmState::master, 10)}));
  for (int s = 1; s < 10; ++s)
    CHECK(t.update(poll(s, {sm(0x100001, 1, fabric::SmState::master, 10)})).empty());
  auto ev = t.update(poll(10, {sm(0x100001, 1, fabric::SmState::master, 10)}));
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].kind == "sm_no_master");
  CHECK(ev[0].message.find("ActCount") != std::string::npos);
  // still frozen: no master back
  CHECK(t.update(poll(11, {sm(0x100001, 1, fabric::SmState::master, 10)})).empty());
  CHECK(t.status() == SmStatus::no_master);
  ev = t.update(poll(12, {sm(0x100001, 1, fabric::SmState::master, 11)}));
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].kind == "sm_master");
}

TEST_CASE("SmTracker with ActCount moving never says no master", "[sm_tracker]") {
  SmTracker t({.fail_polls = 2, .freeze_us = 5 * kS});
  for (int s = 0; s < 3600; ++s) {
    // the count moves every 4 s only (a master between sweeps), within the freeze limit
    auto ev = t.update(poll(s, {sm(0x100001, 1, fabric::SmState::master, 100 + s / 4)}));
    REQUIRE(ev.empty());
  }
  CHECK(t.status() == SmStatus::master);
}

TEST_CASE("SmTracker paces its polls after an OpenSM log state line", "[sm_tracker][sm_state]") {
  const int64_t interval = 2 * kS;
  SmTracker t({.fail_polls = 2, .freeze_us = 30 * kS});
  t.update(poll(10, {sm(0x100001, 1, fabric::SmState::master, 10)}));
  CHECK(t.next_poll_us(10 * kS, interval) == 12 * kS);  // no line: the interval
  // "Exiting SM" at 10.5 s: the next poll is due at once ...
  REQUIRE(t.note_log_state(ingest::SmLogState::exiting, 10 * kS + kS / 2, 11 * kS));
  CHECK(t.next_poll_us(10 * kS, interval) == 10 * kS);
  // ... and the log alone changes nothing: still master, no event.
  CHECK(t.status() == SmStatus::master);
  auto ev = t.update(poll(11, {}));  // the early poll: the master is silent (1 of 2)
  CHECK(ev.empty());
  CHECK(t.status() == SmStatus::master);
  // fail_polls quick polls follow, then the interval again.
  CHECK(t.next_poll_us(11 * kS, interval) == 11 * kS + ingest::kQuickPollUs);
  ev = t.update({11 * kS + ingest::kQuickPollUs, 1, {}});
  REQUIRE(ev.size() == 1);  // MADs confirm: no master 250 ms after the early poll
  CHECK(ev[0].kind == "sm_no_master");
  CHECK(t.next_poll_us(11 * kS + ingest::kQuickPollUs, interval) ==
        11 * kS + 2 * ingest::kQuickPollUs);
  t.update({11 * kS + 2 * ingest::kQuickPollUs, 1, {}});
  CHECK(t.next_poll_us(12 * kS, interval) == 14 * kS);
  // The quick pace never exceeds a shorter configured interval.
  REQUIRE(t.note_log_state(ingest::SmLogState::master, 12 * kS, 12 * kS));
  t.update(poll(12, {sm(0x100004, 4, fabric::SmState::master, 3)}));
  CHECK(t.next_poll_us(12 * kS, 100'000) == 12 * kS + 100'000);
}

TEST_CASE("SmTracker: a log state line never declares no master", "[sm_tracker][sm_state]") {
  SmTracker t({.fail_polls = 2, .freeze_us = 30 * kS});
  t.update(poll(1, {sm(0x100001, 1, fabric::SmState::master, 10)}));
  // Another host's OpenSM, or a stale log, says it stopped: the master still answers.
  for (auto st :
       {ingest::SmLogState::exiting, ingest::SmLogState::standby, ingest::SmLogState::port_down}) {
    t.note_log_state(st, 2 * kS, 2 * kS);
    for (int i = 0; i < 3; ++i)
      CHECK(t.update(poll(2 + i, {sm(0x100001, 1, fabric::SmState::master, 11 + i)})).empty());
  }
  CHECK(t.status() == SmStatus::master);
  // A stale line (a backlog read at start) and no state pace nothing.
  CHECK_FALSE(
      t.note_log_state(ingest::SmLogState::master, 1 * kS, 1 * kS + ingest::kStaleLogStateUs + 1));
  CHECK_FALSE(t.note_log_state(ingest::SmLogState::none, 5 * kS, 5 * kS));
  CHECK(t.next_poll_us(100 * kS, 2 * kS) == 102 * kS);
}
