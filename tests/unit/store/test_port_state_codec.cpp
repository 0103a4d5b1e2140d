// Unit tests for the rates of a port's counter state (store/port_state_codec.cpp): a rate that
// is its delta over an interval (what ingest::CounterTracker computes) is kept as that and comes
// back with the same bits; any other rate (carried, a third interval, NaN) keeps its IEEE bits;
// entries of the older format, every rate as bits, still decode; damage is refused.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "ingest/counter_tracker.h"
#include "store/codec_io.h"
#include "store/sample_codec.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using ingest::Counter;

namespace {

constexpr int64_t kT0 = 1'760'000'000'000'000;
constexpr uint32_t kData = 0xFu << static_cast<unsigned>(Counter::PortXmitData);
constexpr uint32_t kAll = (1u << ingest::kCounterCount) - 1;

ingest::CounterSample reading(int64_t t, uint32_t valid, uint64_t scale) {
  ingest::CounterSample s;
  s.node_guid = 0xe41d'2d03'0060'1234ULL;
  s.port = 7;
  s.time_us = t;
  s.valid = valid;
  s.extended = true;
  for (size_t i = 0; i < ingest::kCounterCount; ++i)
    if (valid >> i & 1) s.value[i] = scale * (i + 1) * (i % 3 == 0 ? 0 : 1) * (i * 977 + 13);
  return s;
}

store::PortRecord record_of(const ingest::CounterDelta& d) {
  store::PortRecord r;
  store::set_counters(r, d);
  return r;
}

store::PortRecord round_trip(const store::PortRecord& r) {
  store::PortRecord back;
  store::sample_codec::decode_port_state(store::sample_codec::encode_port_state(r), back);
  return back;
}

void check_same_rates(const store::PortRecord& a, const store::PortRecord& b) {
  for (size_t i = 0; i < ingest::kCounterCount; ++i) {
    INFO("rate " << i << ": " << a.rates[i] << " vs " << b.rates[i]);
    CHECK(std::bit_cast<uint64_t>(a.rates[i]) == std::bit_cast<uint64_t>(b.rates[i]));
  }
  store_test::check_same_sample(a.counters, b.counters);
  CHECK(a.deltas == b.deltas);
  CHECK(a.rates_valid == b.rates_valid);
  CHECK(a.deltas_valid == b.deltas_valid);
  CHECK(a.deltas_at_least == b.deltas_at_least);
}

// The same record with no rate derivable from its delta: every non-zero rate one ulp up.
store::PortRecord underivable(store::PortRecord r) {
  for (double& x : r.rates)
    if (x != 0) x = std::nextafter(x, HUGE_VAL);
  return r;
}

// A state in the given format, by hand: the head as both formats write it, then `rates`.
std::string state(uint8_t version, const store::PortRecord& p, const std::string& rates) {
  using store::codec_io::put_varint;
  using store::codec_io::zigzag;
  std::string out(1, static_cast<char>(version));
  const ingest::CounterSample& c = p.counters;
  for (uint64_t v :
       {zigzag(c.time_us), c.node_guid, zigzag(c.port), uint64_t{c.valid}, uint64_t{c.saturated}})
    put_varint(out, v);
  out.push_back(c.extended ? 1 : 0);
  auto values = [&](const std::array<uint64_t, ingest::kCounterCount>& v) {
    uint64_t nonzero = 0;
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i]) nonzero |= uint64_t{1} << i;
    put_varint(out, nonzero);
    for (uint64_t x : v)
      if (x) put_varint(out, x);
  };
  values(c.value);
  put_varint(out, p.rates_valid);
  put_varint(out, p.deltas_valid);
  put_varint(out, p.deltas_at_least);
  values(p.deltas);
  return out + rates;
}

std::string bits_of(double d) {
  std::string out;
  const auto b = std::bit_cast<uint64_t>(d);
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>(b >> (8 * k)));
  return out;
}

}  // namespace

TEST_CASE("port state codec: a tracker's rates come back bit for bit in fewer bytes", "[store]") {
  ingest::CounterTracker tracker;
  tracker.update(reading(kT0, kAll, 1), nullptr);
  // 60 s later, every counter read: one interval.
  const ingest::CounterDelta full = tracker.update(reading(kT0 + 60'000'037, kAll, 5), nullptr);
  REQUIRE(full.valid == kAll);
  const store::PortRecord a = record_of(full);
  check_same_rates(round_trip(a), a);
  size_t derived = 0;  // counters 0, 3, ... 15 stay 0: a zero rate, kept as a mask bit anyway
  for (double x : a.rates) derived += x != 0;
  REQUIRE(derived == 11);
  const size_t raw = store::sample_codec::encode_port_state(underivable(a)).size();
  const size_t now = store::sample_codec::encode_port_state(a).size();
  CHECK(raw >= now + 8 * derived - 12);  // 8 bytes a rate, against masks and one interval

  // Errors only (the data counters on a slower cadence): their rates are carried, not derived.
  const ingest::CounterDelta errors =
      tracker.update(reading(kT0 + 90'000'000, kAll & ~kData, 9), nullptr);
  REQUIRE(errors.rate_carried == kData);
  const store::PortRecord b = record_of(errors);
  check_same_rates(round_trip(b), b);
  // Then all again: the data rates over 60 s plus a bit, the errors' over 30 s: two intervals.
  const ingest::CounterDelta both = tracker.update(reading(kT0 + 120'000'000, kAll, 17), nullptr);
  const store::PortRecord c = record_of(both);
  check_same_rates(round_trip(c), c);
  CHECK(store::sample_codec::encode_port_state(underivable(c)).size() >=
        store::sample_codec::encode_port_state(c).size() + 8 * derived - 16);
}

TEST_CASE("port state codec: other rates keep their bits and the old format still decodes",
          "[store]") {
  store::PortRecord r = store_test::full_port(0x8000'0000'0000'0001ULL, 3, "leaf");
  // Three intervals (only two are kept), a NaN, -0.0, a rate with no delta, a huge one.
  for (size_t i = 0; i < ingest::kCounterCount; ++i) r.deltas[i] = 1000 * (i + 1);
  for (size_t i = 0; i < 6; ++i)
    r.rates[i] = static_cast<double>(r.deltas[i]) * 1e6 / (i < 2 ? 60e6 : i < 4 ? 7e6 : 3e6);
  r.rates[6] = std::nan("7");
  r.rates[7] = -0.0;
  r.deltas[8] = 0;
  r.rates[8] = 12.5;
  r.rates[9] = 1e300;
  check_same_rates(round_trip(r), r);

  // Format 1: every non-zero rate as its IEEE bits.
  std::string v1_rates;
  uint64_t nonzero = 0;
  for (size_t i = 0; i < ingest::kCounterCount; ++i)
    if (std::bit_cast<uint64_t>(r.rates[i]) != 0) {
      nonzero |= uint64_t{1} << i;
      v1_rates += bits_of(r.rates[i]);
    }
  std::string masks;
  store::codec_io::put_varint(masks, nonzero);
  store::PortRecord old;
  store::sample_codec::decode_port_state(state(1, r, masks + v1_rates), old);
  check_same_rates(old, r);

  // Damage: a derived rate that is zero, too many intervals, a zero interval.
  auto refused = [&](std::initializer_list<uint64_t> head) {
    std::string t;
    for (uint64_t v : head) store::codec_io::put_varint(t, v);
    store::PortRecord x;
    CHECK_THROWS_AS(store::sample_codec::decode_port_state(state(2, r, t), x), store::StoreError);
  };
  refused({0, 1, 1, 60'000'000});  // nonzero 0, derived bit 0
  refused({1, 1, 3, 1, 2, 3, 0});  // three intervals
  refused({1, 1, 1, 0});           // interval 0
  refused({1, 1, 0});              // derived with no interval
  refused({3, 1, 2, 5, 6, 2});     // second interval for a rate not derived
}
