// One port's counter state (sample_codec::encode_port_state and decode_port_state, declared in
// store/sample_codec.h): the bytes of one entry of a port_state partition (store/port_state.h).
// Encoded in place into a buffer sized for the widest state, since a scrape encodes one per
// port (393,216 at k=64).
#include <bit>
#include <cmath>

#include "store/codec_io.h"
#include "store/sample_codec.h"

namespace ibw::store::sample_codec {

namespace port_state_codec_detail {

using codec_io::kMaxVarint;
using codec_io::put_varint;
using codec_io::Reader;

// 1: every non-zero rate as its IEEE bits. 2 (written now): a rate that is exactly its delta
// over one of at most two intervals (what CounterTracker computes, almost every rate) is kept
// as that: a mask bit, the interval once per entry; about 40 bytes less per moving port.
constexpr uint8_t kStateVersion = 2;
constexpr size_t kCounters = ingest::kCounterCount;
constexpr size_t kIntervals = 2;
// version, time, GUID, port, valid, saturated, extended, values, three masks, deltas, rate masks
// (non-zero, derived, second interval), interval count and intervals, raw rates.
constexpr size_t kMaxState =
    2 + kMaxVarint * (5 + 3 + 3 * (1 + kCounters) + 3 + 1 + kIntervals) + 8 * kCounters;

// The rate of a delta over interval_us, computed exactly as the decoder recomputes it.
double derived_rate(uint64_t delta, uint64_t interval_us) {
  return static_cast<double>(delta) * 1e6 / static_cast<double>(interval_us);
}

bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

// Which rates are derived from their delta, over which interval (slot 0 or 1).
struct DerivedRates {
  uint64_t derived = 0;  // bit i: rate i is derived_rate(delta i, interval of its slot)
  uint64_t second = 0;   // bit i: over intervals[1]
  uint64_t intervals[kIntervals] = {};
  size_t count = 0;
};

DerivedRates find_derived(const PortRecord& p, uint64_t nonzero) {
  DerivedRates out;
  for (size_t i = 0; i < kCounters; ++i) {
    const double rate = p.rates[i];
    const uint64_t delta = p.deltas[i];
    if (!(nonzero >> i & 1) || delta == 0 || !(rate > 0) || !std::isfinite(rate)) continue;
    size_t slot = 0;
    while (slot < out.count && !same_bits(derived_rate(delta, out.intervals[slot]), rate)) ++slot;
    if (slot == out.count) {  // a new interval: the one this rate implies, if exact
      const double guess = std::round(static_cast<double>(delta) * 1e6 / rate);
      if (out.count == kIntervals || !(guess >= 1 && guess < 0x1p53)) continue;
      const auto interval = static_cast<uint64_t>(guess);
      if (!same_bits(derived_rate(delta, interval), rate)) continue;
      out.intervals[out.count++] = interval;
    }
    out.derived |= uint64_t{1} << i;
    if (slot == 1) out.second |= uint64_t{1} << i;
  }
  return out;
}

char* put_values(char* w, const std::array<uint64_t, kCounters>& v) {
  uint64_t nonzero = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != 0) nonzero |= uint64_t{1} << i;
  w = put_varint(w, nonzero);
  for (uint64_t x : v)
    if (x != 0) w = put_varint(w, x);
  return w;
}

void get_values(Reader& r, std::array<uint64_t, kCounters>& v) {
  const uint64_t nonzero = r.varint();
  for (size_t i = 0; i < v.size(); ++i) v[i] = nonzero & (uint64_t{1} << i) ? r.varint() : 0;
}

}  // namespace port_state_codec_detail

using namespace port_state_codec_detail;

std::string encode_port_state(const PortRecord& p) {
  std::string out;
  append_port_state(out, p);
  return out;
}

void append_port_state(std::string& out, const PortRecord& p) {
  char buf[kMaxState];
  char* w = buf;
  *w++ = static_cast<char>(kStateVersion);
  const ingest::CounterSample& c = p.counters;
  w = put_varint(w, codec_io::zigzag(c.time_us));
  w = put_varint(w, c.node_guid);
  w = put_varint(w, codec_io::zigzag(c.port));
  w = put_varint(w, c.valid);
  w = put_varint(w, c.saturated);
  *w++ = c.extended ? 1 : 0;
  w = put_values(w, c.value);
  w = put_varint(w, p.rates_valid);
  w = put_varint(w, p.deltas_valid);
  w = put_varint(w, p.deltas_at_least);
  w = put_values(w, p.deltas);
  uint64_t nonzero = 0;  // by bit pattern: -0.0 and NaN payloads come back as they were
  for (size_t i = 0; i < p.rates.size(); ++i)
    if (std::bit_cast<uint64_t>(p.rates[i]) != 0) nonzero |= uint64_t{1} << i;
  w = put_varint(w, nonzero);
  const DerivedRates d = find_derived(p, nonzero);
  w = put_varint(w, d.derived);
  w = put_varint(w, d.count);
  for (size_t k = 0; k < d.count; ++k) w = put_varint(w, d.intervals[k]);
  if (d.count == kIntervals) w = put_varint(w, d.second);
  for (size_t i = 0; i < kCounters; ++i)
    if ((nonzero & ~d.derived) >> i & 1)
      w = codec_io::put_le64(w, std::bit_cast<uint64_t>(p.rates[i]));
  out.append(buf, static_cast<size_t>(w - buf));
}

void decode_port_state(std::string_view blob, PortRecord& p) {
  Reader r(blob, "port counter state");
  const uint8_t version = r.byte();
  if (version != 1 && version != kStateVersion) r.fail("unknown encoding version");
  ingest::CounterSample& c = p.counters;
  c.time_us = codec_io::unzigzag(r.varint());
  c.node_guid = r.varint();
  c.port = static_cast<int>(codec_io::unzigzag(r.varint()));
  c.valid = static_cast<uint32_t>(r.varint());
  c.saturated = static_cast<uint32_t>(r.varint());
  c.extended = r.byte() != 0;
  get_values(r, c.value);
  p.rates_valid = static_cast<uint32_t>(r.varint());
  p.deltas_valid = static_cast<uint32_t>(r.varint());
  p.deltas_at_least = static_cast<uint32_t>(r.varint());
  get_values(r, p.deltas);
  const uint64_t nonzero = r.varint();
  DerivedRates d;
  if (version >= 2) {
    d.derived = r.varint();
    d.count = r.varint();
    if (d.count > kIntervals || (d.derived & ~nonzero) || (d.derived && d.count == 0))
      r.fail("malformed derived rates");
    for (size_t k = 0; k < d.count; ++k)
      if ((d.intervals[k] = r.varint()) == 0) r.fail("zero rate interval");
    if (d.count == kIntervals) d.second = r.varint();
    if (d.second & ~d.derived) r.fail("malformed derived rates");
  }
  for (size_t i = 0; i < p.rates.size(); ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if (d.derived & bit)
      p.rates[i] = derived_rate(p.deltas[i], d.intervals[d.second & bit ? 1 : 0]);
    else
      p.rates[i] = nonzero & bit ? std::bit_cast<double>(codec_io::le64(r.bytes(8))) : 0.0;
  }
  if (!r.done()) r.fail("trailing bytes");
}

}  // namespace ibw::store::sample_codec
