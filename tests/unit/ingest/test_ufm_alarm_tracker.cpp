// Unit tests for UFM alarm tracking (ingest/ufm/alarm_tracker.h): alarms from the recorded
// answer in tests/data/ufm become events once while open, again when re-graded, a cleared
// event when they leave the list, and the open set survives a restart through the cursor.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "ingest/ufm/alarm_tracker.h"
#include "ingest/ufm/events.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::ingest;

namespace ufm_alarm_tracker_test {

std::vector<UfmAlarm> recorded() {
  auto a = parse_ufm_alarms(ibw::test::ufm_recording("alarms.json"), {});
  REQUIRE(a.ok);
  REQUIRE(a.items.size() == 2);
  return a.items;
}

}  // namespace ufm_alarm_tracker_test

using ufm_alarm_tracker_test::recorded;

TEST_CASE("ufm alarm tracker: alarms become ufm_alarm events with port and severity", "[ufm]") {
  auto alarms = recorded();
  Event sw = ufm_alarm_event(alarms[0], 5);
  CHECK(sw.kind == ufm_kind::alarm);
  CHECK(sw.source == EventSource::ufm);
  CHECK(sw.severity == Severity::critical);
  CHECK(sw.time_us == 1709289600000000);  // the alarm's own time
  CHECK(sw.node_guid == 0x9c0591030090e000);
  CHECK(sw.port == 0);  // a switch, not a port
  CHECK(sw.node == "sw-leaf-07");
  CHECK(sw.message == "UFM alarm 41 (394 Module status FAULT, 3 events) Critical: PSU 2 failed");
  CHECK(sw.dedup_key == "ufm_alarm:41:394:9c0591030090e000:critical:1709289600000000");
  Event port = ufm_alarm_event(alarms[1], 5);
  CHECK(port.severity == Severity::warning);  // Minor
  CHECK(port.node_guid == 0xfc6a1c0300244e00);
  CHECK(port.port == 8);
  CHECK(port.dedup_key == "ufm_alarm:42:110:fc6a1c0300244e00_8:minor:1709288400000000");
  alarms[1].time_us = 0;
  CHECK(ufm_alarm_event(alarms[1], 5).time_us == 5);  // unreadable time: the poll's
}

TEST_CASE("ufm alarm tracker: an open alarm is raised once and re-raised when re-graded", "[ufm]") {
  UfmAlarmTracker t;
  auto alarms = recorded();
  auto first = t.update(alarms);
  CHECK(first.raised.size() == 2);
  CHECK(first.cleared.empty());
  CHECK(first.changed);
  CHECK(first.open == 2);
  // Still open, more occurrences and a newer time: nothing new.
  alarms[0].event_count = 9;
  alarms[0].time_us += 60'000'000;
  auto same = t.update(alarms);
  CHECK(same.raised.empty());
  CHECK_FALSE(same.changed);
  // Listed twice in one answer: once.
  auto twice = alarms;
  twice.push_back(alarms[1]);
  CHECK(t.update(twice).raised.empty());
  // Severity changed: raised again, with a dedup key of its own.
  alarms[1].severity = "Critical";
  auto graded = t.update(alarms);
  REQUIRE(graded.raised.size() == 1);
  CHECK(graded.raised[0].id == 42);
  Event graded_event = ufm_alarm_event(graded.raised[0], 0);
  CHECK(graded_event.dedup_key ==
        "ufm_alarm:42:110:fc6a1c0300244e00_8:critical:" + std::to_string(graded_event.time_us));
}

TEST_CASE("ufm alarm tracker: a cleared alarm gives one info event after two reads", "[ufm]") {
  UfmAlarmTracker t;
  auto alarms = recorded();
  t.update(alarms);
  // Missing from one read (an empty or partial answer): still open.
  auto once = t.update({});
  CHECK(once.cleared.empty());
  CHECK(once.open == 2);
  auto back = t.update(alarms);  // listed again: nothing raised, the miss is forgotten
  CHECK(back.raised.empty());
  CHECK(t.update({alarms[0]}).cleared.empty());
  auto u = t.update({alarms[0]});
  REQUIRE(u.cleared.size() == 1);
  CHECK(u.changed);
  Event e = ufm_alarm_cleared_event(u.cleared[0], 77);
  CHECK(e.kind == ufm_kind::alarm_cleared);
  CHECK(e.severity == Severity::info);
  CHECK(e.time_us == 77);
  CHECK(e.node_guid == 0xfc6a1c0300244e00);
  CHECK(e.port == 8);
  CHECK(e.message == "UFM alarm 42 (110 Symbol Error Counter Rate) cleared");
  CHECK(e.dedup_key == "ufm_alarm_cleared:42:110:fc6a1c0300244e00_8:77");
  CHECK(t.update({alarms[0]}).cleared.empty());  // only once
  // Raised again after its clear: a new event (its own dedup key), not swallowed.
  UfmAlarm again = alarms[1];
  again.time_us += 3'600'000'000LL;
  auto re = t.update({alarms[0], again});
  REQUIRE(re.raised.size() == 1);
  CHECK(ufm_alarm_event(re.raised[0], 0).dedup_key != ufm_alarm_event(alarms[1], 0).dedup_key);
}

TEST_CASE("ufm alarm tracker: a reused id on another object is a new alarm", "[ufm]") {
  UfmAlarmTracker t;
  auto alarms = recorded();
  t.update({alarms[0]});
  UfmAlarm reused = alarms[1];
  reused.id = alarms[0].id;  // UFM restarted its numbering
  auto u = t.update({reused});
  CHECK(u.raised.size() == 1);
  CHECK(u.cleared.empty());  // the old one is missing once
  CHECK(t.update({reused}).cleared.size() == 1);
}

TEST_CASE("ufm alarm tracker: the cursor carries the open set across a restart", "[ufm]") {
  auto alarms = recorded();
  std::string cursor;
  {
    UfmAlarmTracker t;
    t.update(alarms);
    cursor = t.cursor();
  }
  UfmAlarmTracker resumed(cursor);
  CHECK(resumed.open() == 2);
  CHECK(resumed.update({alarms[1]}).cleared.empty());  // 41 cleared while stopped: missing once
  auto u = resumed.update({alarms[1]});
  CHECK(u.raised.empty());
  REQUIRE(u.cleared.size() == 1);
  CHECK(u.cleared[0].id == 41);
  CHECK(u.cleared[0].name == "Module status FAULT");
  CHECK(ufm_alarm_cleared_event(u.cleared[0], 1).node == "sw-leaf-07");
  // A cursor that does not parse means nothing open.
  CHECK(UfmAlarmTracker(std::string("garbage")).open() == 0);
  CHECK(UfmAlarmTracker(std::string("{\"v\":2}")).open() == 0);
  // A field of the wrong type skips that entry only.
  CHECK(UfmAlarmTracker(std::string(R"({"v":1,"open":[{"id":"x"},{"id":7,"type":110}]})")).open() ==
        1);
}
