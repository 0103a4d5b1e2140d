// Unit tests for UFM storm grouping (ingest/ufm/storm.h) and for which events are new across
// fetches (ingest/ufm/cursor.h): duplicates, id resets, cursor round trips.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ingest/ufm/cursor.h"
#include "ingest/ufm/storm.h"

using namespace ibw::ingest;

namespace ufm_storm_test {

constexpr int64_t kT0 = 1'709'288'130'000'000;  // 2024-03-01 10:15:30 UTC

// An event at kT0 + offset_us, with a timestamp string matching it (UTC).
UfmEvent ev(int64_t id, int64_t offset_us, int type = 329) {
  UfmEvent e;
  e.id = id;
  e.type = type;
  e.time_us = kT0 + offset_us;
  int64_t s = (kT0 + offset_us) / 1000000 - 1709251200;  // seconds into 2024-03-01
  char buf[32];
  std::snprintf(buf, sizeof buf, "2024-03-01 %02d:%02d:%02d.%03d", static_cast<int>(s / 3600),
                static_cast<int>(s / 60 % 60), static_cast<int>(s % 60),
                static_cast<int>((offset_us / 1000) % 1000));
  e.timestamp = buf;
  e.severity = "Warning";
  return e;
}

// n events spread evenly over span_us starting at offset_us, ids from first_id.
std::vector<UfmEvent> burst(int64_t first_id, int n, int64_t offset_us, int64_t span_us) {
  std::vector<UfmEvent> out;
  for (int i = 0; i < n; ++i) out.push_back(ev(first_id + i, offset_us + span_us * i / n));
  return out;
}

std::vector<int64_t> ids(const std::vector<UfmEvent>& v) {
  std::vector<int64_t> out;
  for (const auto& e : v) out.push_back(e.id);
  return out;
}

}  // namespace ufm_storm_test

using ufm_storm_test::burst;
using ufm_storm_test::ev;
using ufm_storm_test::ids;

TEST_CASE("ufm storm: more than 50 events within one second make one summary", "[ufm]") {
  // 50 events in a second are not a storm; 51 are.
  auto calm = split_storms(burst(1, 50, 0, 900'000));
  CHECK(calm.calm.size() == 50);
  CHECK(calm.storms.empty());

  std::vector<UfmEvent> events = burst(100, 51, 0, 900'000);
  events.push_back(ev(10, -5'000'000));        // 5 s before: calm
  events.push_back(ev(500, 10'000'000, 702));  // 10 s after: calm
  auto split = split_storms(events);
  CHECK(ids(split.calm) == std::vector<int64_t>{10, 500});
  REQUIRE(split.storms.size() == 1);
  const UfmStorm& s = split.storms[0];
  CHECK(s.count == 51);
  CHECK(s.first_id == 100);
  CHECK(s.last_id == 150);
  CHECK(s.first_us == ufm_storm_test::kT0);
  CHECK(s.by_type == std::vector<std::pair<int, size_t>>{{329, 51}});
  Event e = storm_event(s);
  CHECK(e.kind == "ufm_storm");
  CHECK(e.source == EventSource::ufm);
  CHECK(e.severity == Severity::warning);
  CHECK(e.message == "UFM event storm: 51 events in 0.9 s (ids 100-150; 329 x51)");
  CHECK(e.dedup_key == "ufm-storm:100:20240301101530");
}

TEST_CASE("ufm storm: a long storm stays one summary and quiet neighbours stay calm", "[ufm]") {
  // 300 events over 3 s (100/s) -> one storm; events without time are always calm.
  std::vector<UfmEvent> events = burst(1, 300, 0, 3'000'000);
  UfmEvent untimed = ev(999, 0);
  untimed.time_us = 0;
  events.push_back(untimed);
  auto split = split_storms(events);
  REQUIRE(split.storms.size() == 1);
  CHECK(split.storms[0].count == 300);
  CHECK(ids(split.calm) == std::vector<int64_t>{999});
  // Two bursts 5 s apart are two storms.
  std::vector<UfmEvent> two = burst(1, 60, 0, 500'000);
  for (auto& e : burst(100, 60, 5'000'000, 500'000)) two.push_back(e);
  CHECK(split_storms(two).storms.size() == 2);
  // A steady 20 events/s for a minute is no storm.
  CHECK(split_storms(burst(1, 1200, 0, 60'000'000)).storms.empty());
}

TEST_CASE("ufm storm: the grouper holds a dense tail and joins storms across polls", "[ufm]") {
  UfmStormGrouper g;
  // A storm starts at the end of one poll: 20 events in its last second are held back.
  std::vector<UfmEvent> first = {ev(1, -10'000'000)};
  for (auto& e : burst(2, 20, 0, 400'000)) first.push_back(e);
  auto a = g.feed(first);
  CHECK(ids(a.calm) == std::vector<int64_t>{1});
  CHECK(a.storms.empty());
  CHECK(g.held().size() == 20);
  // The next poll brings the rest: one storm of all 20 + 40.
  auto b = g.feed(burst(22, 40, 400'000, 500'000));
  CHECK(b.calm.empty());
  REQUIRE(b.storms.size() == 1);
  CHECK(b.storms[0].count == 60);
  CHECK(b.storms[0].first_id == 2);
  CHECK(g.held().empty());

  // A held tail that turns out quiet is delivered by the next poll, whatever it holds.
  UfmStormGrouper h;
  auto c = h.feed(burst(1, 12, 0, 500'000));
  CHECK(c.calm.empty());
  CHECK(h.held().size() == 12);
  auto d = h.feed({});
  CHECK(d.calm.size() == 12);
  CHECK(h.held().empty());
  // A single event is never held.
  auto e = h.feed({ev(50, 60'000'000)});
  CHECK(e.calm.size() == 1);
}

TEST_CASE("ufm cursor: new events duplicates and the cursor round trip", "[ufm]") {
  UfmEventTracker t;
  auto a = t.accept({ev(1, 0), ev(2, 1000), ev(2, 1000), ev(3, 2000)});
  CHECK(ids(a.events) == std::vector<int64_t>{1, 2, 3});
  CHECK(a.duplicates == 1);
  CHECK_FALSE(a.reset);
  CHECK(t.cursor().serialize() == "ufm1:0:3:20240301101530");
  // The same list again plus one: only the new one.
  auto b = t.accept({ev(3, 2000), ev(1, 0), ev(2, 1000), ev(4, 5'000'000)});
  CHECK(ids(b.events) == std::vector<int64_t>{4});
  CHECK(t.cursor().last_id == 4);

  auto c = UfmEventCursor::parse(t.cursor().serialize());
  REQUIRE(c);
  CHECK(*c == t.cursor());
  CHECK(UfmEventCursor::parse("ufm1:2:17:-")->last_stamp.empty());
  CHECK_FALSE(UfmEventCursor::parse("ufm1:2:17"));
  CHECK_FALSE(UfmEventCursor::parse("opensm:1:2:3:4"));
  CHECK_FALSE(UfmEventCursor::parse("ufm1:x:17:-"));
  CHECK_FALSE(UfmEventCursor::parse("ufm1:1:17:12ab"));

  // A tracker resumed from the cursor continues after it.
  UfmEventTracker resumed(c);
  auto d = resumed.accept({ev(3, 2000), ev(4, 5'000'000), ev(5, 6'000'000)});
  CHECK(ids(d.events) == std::vector<int64_t>{5});
  CHECK_FALSE(d.reset);
}

TEST_CASE("ufm cursor: id resets are detected both ways", "[ufm]") {
  UfmEventTracker t;
  t.accept(burst(1, 100, 0, 100'000'000));
  REQUIRE(t.cursor().last_id == 100);
  // UFM restarted: its table holds 3 new events, ids from 1 (ids went down).
  auto a = t.accept({ev(1, 200'000'000), ev(2, 201'000'000), ev(3, 202'000'000)});
  CHECK(a.reset);
  CHECK(ids(a.events) == std::vector<int64_t>{1, 2, 3});
  CHECK(t.cursor().epoch == 1);
  CHECK(t.cursor().last_id == 3);

  // Restarted and grown past our position before we looked: id 3 is back with another time.
  std::vector<UfmEvent> regrown;
  for (int i = 1; i <= 10; ++i) regrown.push_back(ev(i, 400'000'000 + i * 1'000'000));
  auto b = t.accept(regrown);
  CHECK(b.reset);
  CHECK(b.events.size() == 10);
  CHECK(t.cursor().epoch == 2);

  // The old list again (a stale replica, or a misdetected reset): nothing new.
  auto c = t.accept(regrown);
  CHECK_FALSE(c.reset);
  CHECK(c.events.empty());
  // skip() starts at the end.
  UfmEventTracker s;
  s.skip(burst(1, 5, 0, 5'000'000));
  CHECK(s.cursor().last_id == 5);
  CHECK(s.accept(burst(1, 6, 0, 6'000'000)).events.size() == 1);
}
