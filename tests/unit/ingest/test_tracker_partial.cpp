// CounterTracker with readings that lack the data/packet counters (the MAD poller's errors
// sweeps, ingest/counter_poller.h): error deltas stay exact every reading, data rates are
// computed over the interval since the data counters were last read, and in between the last
// data rates are carried (rate_carried) instead of dropping to zero. And the in-place forms:
// update() into a used delta gives what the returning update() gives; update_newer() skips a
// reading no newer than the port's last one (UFM Telemetry serving the same sample again).
#include <catch2/catch.hpp>

#include <vector>

#include "ingest/counter_tracker.h"
#include "ingest/switch_sums.h"

using namespace ibw::ingest;

namespace {

constexpr uint64_t kGuid = 0x0002c90300009abc;
constexpr int64_t kT0 = 1'700'000'000'000'000;
constexpr int64_t kSecond = 1'000'000;

size_t idx(Counter c) {
  return static_cast<size_t>(c);
}
uint32_t bit(Counter c) {
  return 1u << static_cast<unsigned>(c);
}

// A reading at t seconds: symbol errors, and when `data` the 64-bit data counters too.
CounterSample at(int64_t seconds, uint64_t symbol_errors, bool data, uint64_t xmit_data = 0) {
  CounterSample s;
  s.time_us = kT0 + seconds * kSecond;
  s.node_guid = kGuid;
  s.port = 3;
  s.extended = true;
  s.valid = (1u << kCounterCount) - 1;
  if (!data) s.valid &= ~data_counter_mask();
  s.value[idx(Counter::SymbolErrorCounter)] = symbol_errors;
  if (data) s.value[idx(Counter::PortXmitData)] = xmit_data;
  return s;
}

void check_same(const CounterDelta& a, const CounterDelta& b) {
  CHECK(a.sample.time_us == b.sample.time_us);
  CHECK(a.sample.node_guid == b.sample.node_guid);
  CHECK(a.sample.port == b.sample.port);
  CHECK(a.sample.value == b.sample.value);
  CHECK(a.sample.valid == b.sample.valid);
  CHECK(a.delta == b.delta);
  CHECK(a.rate == b.rate);
  CHECK(a.valid == b.valid);
  CHECK(a.at_least == b.at_least);
  CHECK(a.reset == b.reset);
  CHECK(a.rate_carried == b.rate_carried);
  CHECK(a.interval_us == b.interval_us);
}

// A delta with every field set to junk, as a reused buffer would hold.
CounterDelta junk() {
  CounterDelta d;
  d.sample = at(999, 77, true, 88);
  d.delta.fill(123);
  d.rate.fill(4.5);
  d.valid = d.at_least = d.reset = d.rate_carried = ~0u;
  d.interval_us = 42;
  return d;
}

}  // namespace

TEST_CASE("tracker partial: data rates span the readings without data counters",
          "[tracker][sums]") {
  CounterTracker t;
  std::vector<Event> events;
  t.update(at(0, 0, true, 1000), &events);
  // 1000 units/s for 10 s, read: rate 1000.
  CounterDelta d = t.update(at(10, 0, true, 11000), &events);
  CHECK(d.rate[idx(Counter::PortXmitData)] == Approx(1000.0));

  // Two errors sweeps: exact error deltas, the last data rate carried, no data delta.
  d = t.update(at(20, 5, false), &events);
  CHECK((d.valid & bit(Counter::SymbolErrorCounter)) != 0);
  CHECK(d.delta[idx(Counter::SymbolErrorCounter)] == 5);
  CHECK(d.rate[idx(Counter::SymbolErrorCounter)] == Approx(0.5));
  CHECK(d.interval_us == 10 * kSecond);
  CHECK((d.valid & bit(Counter::PortXmitData)) == 0);
  CHECK((d.rate_carried & bit(Counter::PortXmitData)) != 0);
  CHECK(d.rate[idx(Counter::PortXmitData)] == Approx(1000.0));  // no dip to zero
  d = t.update(at(30, 9, false), &events);
  CHECK(d.delta[idx(Counter::SymbolErrorCounter)] == 4);
  CHECK(d.rate[idx(Counter::PortXmitData)] == Approx(1000.0));

  // The next full reading: 3000 units/s over the 30 s since the last data read (not 30 s of
  // traffic divided by the 10 s since the previous reading).
  d = t.update(at(40, 9, true, 11000 + 90000), &events);
  CHECK((d.valid & bit(Counter::PortXmitData)) != 0);
  CHECK(d.rate_carried == 0);
  CHECK(d.delta[idx(Counter::PortXmitData)] == 90000);
  CHECK(d.rate[idx(Counter::PortXmitData)] == Approx(3000.0));
  CHECK(d.delta[idx(Counter::SymbolErrorCounter)] == 0);
  CHECK(d.interval_us == 10 * kSecond);
  CHECK(events.empty());
}

TEST_CASE("tracker partial: no data rate is carried before one is known", "[tracker][sums]") {
  CounterTracker t;
  std::vector<Event> events;
  t.update(at(0, 0, false), &events);  // a cold errors sweep first
  CounterDelta d = t.update(at(10, 0, true, 500), &events);
  CHECK((d.valid & bit(Counter::PortXmitData)) == 0);  // the data baseline starts here
  d = t.update(at(20, 0, false), &events);
  CHECK(d.rate_carried == 0);
  d = t.update(at(30, 0, true, 2500), &events);
  CHECK(d.rate[idx(Counter::PortXmitData)] == Approx(100.0));  // 2000 over 20 s
}

TEST_CASE("tracker in place: update into a used delta writes every field", "[tracker]") {
  CounterTracker returning, in_place;
  std::vector<Event> e1, e2;
  // A baseline, a full reading, an errors-only one (a carried rate), a reset.
  for (const CounterSample& s :
       {at(0, 5, true, 1000), at(10, 9, true, 6000), at(20, 12, false), at(30, 2, true, 9000)}) {
    INFO("reading at " << (s.time_us - kT0) / kSecond << " s");
    CounterDelta d = junk();
    in_place.update(s, &e2, d);
    check_same(d, returning.update(s, &e1));
  }
  CHECK(e1.size() == e2.size());
}

TEST_CASE("tracker in place: update_newer skips a reading no newer than the last", "[tracker]") {
  CounterTracker t;
  std::vector<Event> events;
  CounterDelta d = junk();
  CHECK(t.update_newer(at(10, 0, true, 1000), &events, d));  // the baseline
  CHECK(d.valid == 0);
  CHECK(d.interval_us == 0);
  for (int64_t again : {10, 5}) {  // the same reading, and an older one
    d = junk();
    CHECK_FALSE(t.update_newer(at(again, 50, true, 99), &events, d));
    CHECK(d.interval_us == 42);  // left alone
  }
  // The next reading counts from the last one kept, not from the skipped ones.
  REQUIRE(t.update_newer(at(20, 3, true, 3000), &events, d));
  CHECK(d.interval_us == 10 * kSecond);
  CHECK(d.delta[idx(Counter::SymbolErrorCounter)] == 3);
  CHECK(d.rate[idx(Counter::PortXmitData)] == Approx(200.0));
  CHECK(d.rate_carried == 0);
  CHECK(d.at_least == 0);
  CHECK(events.empty());
}
