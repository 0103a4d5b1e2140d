// One port's counter state (sample_codec::encode_port_state and decode_port_state, declared in
// store/sample_codec.h): the bytes of one entry of a port_state partition (store/port_state.h).
// Encoded in place into a buffer sized for the widest state, since a scrape encodes one per
// port (393,216 at k=64).
#include <bit>

#include "store/codec_io.h"
#include "store/sample_codec.h"

namespace ibw::store::sample_codec {

namespace port_state_codec_detail {

using codec_io::kMaxVarint;
using codec_io::put_varint;
using codec_io::Reader;

constexpr uint8_t kStateVersion = 1;
constexpr size_t kCounters = ingest::kCounterCount;
// version, time, GUID, port, valid, saturated, extended, values, three masks, deltas, rates.
constexpr size_t kMaxState = 2 + kMaxVarint * (5 + 3 + 3 * (1 + kCounters)) + 8 * kCounters;

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
  for (double d : p.rates) {
    const auto bits = std::bit_cast<uint64_t>(d);
    if (bits == 0) continue;
    for (int k = 0; k < 8; ++k) *w++ = static_cast<char>(bits >> (8 * k));
  }
  out.append(buf, static_cast<size_t>(w - buf));
}

void decode_port_state(std::string_view blob, PortRecord& p) {
  Reader r(blob, "port counter state");
  if (r.byte() != kStateVersion) r.fail("unknown encoding version");
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
  for (size_t i = 0; i < p.rates.size(); ++i) {
    uint64_t bits = 0;
    if (nonzero & (uint64_t{1} << i)) {
      const std::string_view b = r.bytes(8);
      for (int k = 0; k < 8; ++k)
        bits |= static_cast<uint64_t>(static_cast<uint8_t>(b[k])) << (8 * k);
    }
    p.rates[i] = std::bit_cast<double>(bits);
  }
  if (!r.done()) r.fail("trailing bytes");
}

}  // namespace ibw::store::sample_codec
