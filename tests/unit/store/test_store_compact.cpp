// Store compaction: raw samples folded into hourly aggregates (count, last sample, max delta
// per counter), incremental runs equal to one run, and retention of aggregates and events; on
// both backends.
#include <catch2/catch.hpp>

#include <string>

#include "store/store.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using ibw::store_test::check_same_aggregate;
using ibw::store_test::open_test_store;
using ingest::Counter;
using store::Store;

namespace {

constexpr int64_t kMin = 60LL * 1000000;
constexpr int64_t kHour = 60 * kMin;
constexpr int64_t kT0 = 478'000 * kHour;  // an hour boundary (2024-07-13)
constexpr uint64_t kGuid = 0xfe80'0000'0000'0042ULL;
constexpr size_t kSym = static_cast<size_t>(Counter::SymbolErrorCounter);
constexpr size_t kXmit = static_cast<size_t>(Counter::PortXmitData);
constexpr size_t kLinkDown = static_cast<size_t>(Counter::LinkDownedCounter);

ingest::CounterSample sample(int64_t t, uint64_t sym, uint64_t xmit) {
  ingest::CounterSample c;
  c.node_guid = kGuid;
  c.port = 3;
  c.time_us = t;
  c.value[kSym] = sym;
  c.value[kXmit] = xmit;
  c.valid = (1u << kSym) | (1u << kXmit);
  c.extended = true;
  return c;
}

// Samples every 10 minutes from kT0 for three hours, with known deltas:
//   hour 0: SymbolErrorCounter +1 each, except +7 at 0:30; PortXmitData +2^33 each
//   hour 1: SymbolErrorCounter resets at 1:20 (from 17 to 5: the delta counts as 5)
//   hour 2: steady, +2
std::vector<ingest::CounterSample> three_hours() {
  std::vector<ingest::CounterSample> out;
  uint64_t sym = 0;
  uint64_t xmit = uint64_t{1} << 40;
  for (int i = 0; i < 18; ++i) {
    const int64_t t = kT0 + int64_t{i} * 10 * kMin;
    if (i > 0) sym += (i == 3) ? 7 : (i < 6 ? 1 : 2);
    if (i == 8) sym = 5;
    if (i > 0) xmit += uint64_t{1} << 33;
    out.push_back(sample(t, sym, xmit));
  }
  return out;
}

store::Retention retention(int64_t raw) {
  store::Retention r;
  r.raw_window_us = raw;
  r.aggregate_window_us = 10 * kHour;
  r.event_window_us = 5 * kHour;
  return r;
}

}  // namespace

TEST_CASE("store compaction: raw samples fold into hourly aggregates", "[store]") {
  STORE_UNDER_TEST(db, s);
  auto all = three_hours();
  s->write({.samples = all});
  // Port 4 of the same node, written interleaved, with doubled error counts.
  std::vector<ingest::CounterSample> other = three_hours();
  for (auto& c : other) {
    c.port = 4;
    c.value[kSym] *= 2;
    c.time_us += 1;
  }
  s->write({.samples = other});
  // Everything before kT0 + 2h is folded; the last hour stays raw.
  const int64_t now = kT0 + 3 * kHour;
  CHECK(s->compact(now, retention(kHour)) == 24);
  auto other_aggs = s->aggregates(kGuid, 4, 0);
  REQUIRE(other_aggs.size() == 2);
  CHECK(other_aggs[0].max_delta[kSym] == 14);
  CHECK(other_aggs[1].max_delta[kSym] == 10);
  CHECK(other_aggs[1].last.time_us == kT0 + 110 * kMin + 1);
  auto raw = s->samples(kGuid, 3, 0);
  REQUIRE(raw.size() == 6);
  CHECK(raw.front().time_us == kT0 + 2 * kHour);

  auto aggs = s->aggregates(kGuid, 3, 0);
  REQUIRE(aggs.size() == 2);
  const auto& h0 = aggs[0];
  CHECK(h0.bucket_us == kT0);
  CHECK(h0.sample_count == 6);
  CHECK(h0.first_time_us == kT0);
  CHECK(h0.last.time_us == kT0 + 50 * kMin);
  CHECK(h0.last.value == all[5].value);
  CHECK(h0.last.valid == all[5].valid);
  CHECK(h0.last.extended);
  CHECK(h0.max_delta[kSym] == 7);
  CHECK(h0.max_delta[kXmit] == uint64_t{1} << 33);
  CHECK(h0.delta_valid == ((1u << kSym) | (1u << kXmit)));
  CHECK(h0.max_delta[kLinkDown] == 0);

  const auto& h1 = aggs[1];
  CHECK(h1.bucket_us == kT0 + kHour);
  CHECK(h1.sample_count == 6);
  // 1:00 is compared with 0:50 (+2); the reset at 1:20 counts as 5.
  CHECK(h1.max_delta[kSym] == 5);
  CHECK(h1.last.value == all[11].value);

  SECTION("a later run continues across the hour boundary") {
    CHECK(s->compact(now + kHour, retention(kHour)) == 12);
    aggs = s->aggregates(kGuid, 3, 0);
    REQUIRE(aggs.size() == 3);
    CHECK(aggs[2].sample_count == 6);
    CHECK(aggs[2].max_delta[kSym] == 2);  // 2:00 vs 1:50 is +2 as well
    CHECK(aggs[2].delta_valid == ((1u << kSym) | (1u << kXmit)));
    CHECK(s->samples(kGuid, 3, 0).empty());
    CHECK(s->aggregates(kGuid, 3, kT0 + kHour + 1).size() == 2);  // hours ending after since
  }
}

TEST_CASE("store compaction: runs ending mid-hour merge into the same aggregates", "[store]") {
  STORE_BACKEND(backend);
  auto db_once = open_test_store(backend, "once");
  auto once = db_once.open();
  auto db_steps = open_test_store(backend, "steps");
  auto steps = db_steps.open();
  auto all = three_hours();
  all[4].saturated = 1u << kSym;  // 0:40 saturated: the 0:40 -> 0:50 interval has no base
  all[5].value[kSym] = 1000;
  all[9].extended = false;  // 1:30 used classic counters: no delta into or out of it
  all[9].value[kXmit] = 1;
  once->write({.samples = all});
  steps->write({.samples = all});
  const int64_t end = kT0 + 4 * kHour;
  once->compact(end, retention(kHour));
  for (int64_t now = kT0 + kHour + 5 * kMin; now <= end; now += 25 * kMin)
    steps->compact(now, retention(kHour));

  auto a = once->aggregates(kGuid, 3, 0);
  auto b = steps->aggregates(kGuid, 3, 0);
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("hour " << i);
    check_same_aggregate(a[i], b[i]);
  }
  CHECK(a[0].max_delta[kSym] == 7);  // the jump to 1000 after a saturated reading is skipped
  // Hour 1 deltas of PortXmitData: 1:00 (vs 0:50), 1:10, 1:20, 1:50 only: all 2^33.
  CHECK(a[1].max_delta[kXmit] == uint64_t{1} << 33);
}

TEST_CASE("store compaction: retention drops old aggregates and events", "[store]") {
  STORE_UNDER_TEST(db, s);
  s->write({.samples = three_hours()});
  store::WriteBatch events;
  for (int i = 0; i < 6; ++i) {
    ingest::Event e;
    e.kind = "link_down";
    e.time_us = kT0 + i * kHour;
    e.dedup_key = "k" + std::to_string(i);
    events.events.push_back(e);
  }
  s->write(events);
  // now = kT0 + 11h: events before kT0 + 6h all go (6); the hour-0 aggregate ends at
  // kT0 + 1h = now - 10h, so it goes (1); hours 1 and 2 stay. 18 raw samples folded.
  const int64_t now = kT0 + 11 * kHour;
  CHECK(s->compact(now, retention(kHour)) == 18 + 1 + 6);
  auto aggs = s->aggregates(kGuid, 3, 0);
  REQUIRE(aggs.size() == 2);
  CHECK(aggs[0].bucket_us == kT0 + kHour);
  store::EventQuery q;
  q.limit = 0;
  CHECK(s->events(q).empty());
  // Ids are never reused after the newest events were deleted: paging stays valid.
  ingest::Event e;
  e.kind = "link_up";
  e.time_us = now;
  auto r = s->write({.events = {e}});
  CHECK(r.event_ids[0] == 7);
  // Compacting again removes nothing more.
  CHECK(s->compact(now, retention(kHour)) == 0);
}
