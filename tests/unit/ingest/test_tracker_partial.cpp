// CounterTracker with readings that lack the data/packet counters (the MAD poller's errors
// sweeps, ingest/counter_poller.h): error deltas stay exact every reading, data rates are
// computed over the interval since the data counters were last read, and in between the last
// data rates are carried (rate_carried) instead of dropping to zero.
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
