#include "store/sample_codec.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>

#include "fabric/prefetch.h"
#include "store/codec_io.h"

namespace ibw::store::sample_codec {

namespace codec_detail {

using codec_io::put_varint;
using codec_io::Reader;
using codec_io::unzigzag;
using codec_io::zigzag;

constexpr uint8_t kVersion = 1;

int64_t diff(uint64_t a, uint64_t b) {
  return static_cast<int64_t>(a - b);
}  // wraps

int width_of(uint64_t max) {
  return max == 0 ? 0 : 64 - std::countl_zero(max);
}

// n values of `width` bits each, least significant bit first.
void put_packed(std::string& out, const std::vector<uint64_t>& v, size_t from, int width) {
  out.push_back(static_cast<char>(width));
  if (width == 0) return;
  unsigned __int128 acc = 0;
  int bits = 0;
  for (size_t i = from; i < v.size(); ++i) {
    acc |= static_cast<unsigned __int128>(v[i]) << bits;
    bits += width;
    while (bits >= 8) {
      out.push_back(static_cast<char>(acc & 0xff));
      acc >>= 8;
      bits -= 8;
    }
  }
  if (bits > 0) out.push_back(static_cast<char>(acc & 0xff));
}

// A column of n >= 1 values: 0 = all equal the first; 1 = first, then packed zigzag
// differences; 2 = first, first difference, then packed zigzag differences of differences.
void put_column(std::string& out, const std::vector<uint64_t>& v) {
  const size_t n = v.size();
  std::vector<uint64_t> d(n, 0), dd(n, 0);
  uint64_t dmax = 0, ddmax = 0;
  for (size_t i = 1; i < n; ++i) {
    d[i] = zigzag(diff(v[i], v[i - 1]));
    dmax |= d[i];
    if (i >= 2) {
      dd[i] = zigzag(diff(v[i] - v[i - 1], v[i - 1] - v[i - 2]));  // wraps, like diff
      ddmax |= dd[i];
    }
  }
  if (dmax == 0) {
    out.push_back(0);
    put_varint(out, v[0]);
    return;
  }
  const size_t bits1 = static_cast<size_t>(width_of(dmax)) * (n - 1);
  const size_t bits2 = n >= 3 ? static_cast<size_t>(width_of(ddmax)) * (n - 2) + 64 : SIZE_MAX;
  if (bits1 <= bits2) {
    out.push_back(1);
    put_varint(out, v[0]);
    put_packed(out, d, 1, width_of(dmax));
  } else {
    out.push_back(2);
    put_varint(out, v[0]);
    put_varint(out, d[1]);
    put_packed(out, dd, 2, width_of(ddmax));
  }
}

void get_column(Reader& r, size_t n, std::vector<uint64_t>& v) {
  v.clear();
  const uint8_t mode = r.byte();
  v.push_back(r.varint());
  if (mode == 0) {
    v.resize(n, v[0]);
    return;
  }
  if (mode == 1) {
    r.packed(n - 1, v);
    for (size_t i = 1; i < n; ++i) v[i] = v[i - 1] + static_cast<uint64_t>(unzigzag(v[i]));
    return;
  }
  if (mode != 2 || n < 3) throw StoreError("counter samples: bad column mode");
  int64_t d = unzigzag(r.varint());
  v.push_back(v[0] + static_cast<uint64_t>(d));
  r.packed(n - 2, v);
  for (size_t i = 2; i < n; ++i) {
    d = diff(static_cast<uint64_t>(d) + static_cast<uint64_t>(unzigzag(v[i])), 0);  // wraps
    v[i] = v[i - 1] + static_cast<uint64_t>(d);
  }
}

void check_version(Reader& r) {
  if (r.byte() != kVersion) throw StoreError("counter samples: unknown encoding version");
}

}  // namespace codec_detail

using namespace codec_detail;

std::string encode_chunk(const std::vector<const ingest::CounterSample*>& samples) {
  // Written in place into a buffer sized for the widest samples, then cut to size.
  constexpr size_t kMaxSample = codec_io::kMaxVarint * (6 + ingest::kCounterCount) + 1;
  std::string out(1 + codec_io::kMaxVarint + samples.size() * kMaxSample, '\0');
  char* w = out.data();
  *w++ = static_cast<char>(kVersion);
  w = put_varint(w, samples.size());
  uint64_t guid = 0;
  int64_t time = 0;
  // A partition's samples lie apart in the scrape's batch (one in 256): each would be a wait
  // on memory without asking for the ones a few ahead.
  constexpr size_t kAhead = 8;
  for (size_t k = 0; k < samples.size(); ++k) {
    if (k + kAhead < samples.size())
      fabric::prefetch_range(samples[k + kAhead], sizeof(ingest::CounterSample));
    const ingest::CounterSample* s = samples[k];
    w = put_varint(w, zigzag(diff(s->node_guid, guid)));
    w = put_varint(w, zigzag(s->port));
    w = put_varint(w, zigzag(s->time_us - time));
    guid = s->node_guid;
    time = s->time_us;
    w = put_varint(w, s->valid);
    w = put_varint(w, s->saturated);
    *w++ = s->extended ? 1 : 0;
    uint32_t nonzero = 0;
    for (size_t i = 0; i < ingest::kCounterCount; ++i)
      if (s->value[i] != 0) nonzero |= 1u << i;
    w = put_varint(w, nonzero);
    for (size_t i = 0; i < ingest::kCounterCount; ++i)
      if (s->value[i] != 0) w = put_varint(w, s->value[i]);
  }
  out.resize(static_cast<size_t>(w - out.data()));
  return out;
}

void decode_chunk(std::string_view blob, std::vector<ingest::CounterSample>& out) {
  Reader r(blob);
  check_version(r);
  const uint64_t n = r.varint();
  if (n > blob.size()) throw StoreError("counter samples: bad chunk count");
  uint64_t guid = 0;
  int64_t time = 0;
  for (uint64_t k = 0; k < n; ++k) {
    ingest::CounterSample& s = out.emplace_back();
    guid += static_cast<uint64_t>(unzigzag(r.varint()));
    s.node_guid = guid;
    s.port = static_cast<int>(unzigzag(r.varint()));
    time += unzigzag(r.varint());
    s.time_us = time;
    s.valid = static_cast<uint32_t>(r.varint());
    s.saturated = static_cast<uint32_t>(r.varint());
    s.extended = r.byte() != 0;
    const uint64_t nonzero = r.varint();
    for (size_t i = 0; i < ingest::kCounterCount; ++i)
      if (nonzero & (uint64_t{1} << i)) s.value[i] = r.varint();
  }
  if (!r.done()) throw StoreError("counter samples: trailing bytes in chunk");
}

std::string encode_times(const std::vector<int64_t>& times) {
  std::string out;
  if (times.empty()) return out;
  out.push_back(static_cast<char>(kVersion));
  put_varint(out, times.size());
  put_column(out, std::vector<uint64_t>(times.begin(), times.end()));
  return out;
}

std::vector<int64_t> decode_times(std::string_view blob) {
  if (blob.empty()) return {};
  Reader r(blob);
  check_version(r);
  const uint64_t n = r.varint();
  if (n == 0 || n > blob.size() * 64) throw StoreError("counter samples: bad times count");
  std::vector<uint64_t> v;
  get_column(r, n, v);
  return std::vector<int64_t>(v.begin(), v.end());
}

std::string encode_block(const ingest::CounterSample* samples, size_t n,
                         const std::vector<int64_t>& times) {
  std::string out;
  out.push_back(static_cast<char>(kVersion));
  put_varint(out, n);
  if (n == 0) return out;
  // Times: an index range of the shared list when they match it exactly.
  size_t start = SIZE_MAX;
  auto it = std::lower_bound(times.begin(), times.end(), samples[0].time_us);
  if (it != times.end() && *it == samples[0].time_us &&
      static_cast<size_t>(times.end() - it) >= n) {
    start = static_cast<size_t>(it - times.begin());
    for (size_t i = 1; i < n && start != SIZE_MAX; ++i)
      if (times[start + i] != samples[i].time_us) start = SIZE_MAX;
  }
  std::vector<uint64_t> col(n);
  if (start != SIZE_MAX) {
    out.push_back(1);
    put_varint(out, start);
  } else {
    out.push_back(0);
    for (size_t i = 0; i < n; ++i) col[i] = static_cast<uint64_t>(samples[i].time_us);
    put_column(out, col);
  }
  for (size_t i = 0; i < n; ++i) col[i] = samples[i].valid;
  put_column(out, col);
  for (size_t i = 0; i < n; ++i) col[i] = samples[i].saturated;
  put_column(out, col);
  for (size_t i = 0; i < n; ++i) col[i] = samples[i].extended ? 1 : 0;
  put_column(out, col);
  uint32_t zero = 0;  // counters that are 0 in every sample: not written
  for (size_t c = 0; c < ingest::kCounterCount; ++c) {
    bool all_zero = true;
    for (size_t i = 0; i < n && all_zero; ++i) all_zero = samples[i].value[c] == 0;
    if (all_zero) zero |= 1u << c;
  }
  put_varint(out, zero);
  for (size_t c = 0; c < ingest::kCounterCount; ++c) {
    if (zero & (1u << c)) continue;
    for (size_t i = 0; i < n; ++i) col[i] = samples[i].value[c];
    put_column(out, col);
  }
  return out;
}

void decode_block(std::string_view blob, uint64_t node_guid, int port,
                  const std::vector<int64_t>& times, std::vector<ingest::CounterSample>& out) {
  Reader r(blob);
  check_version(r);
  const uint64_t n = r.varint();
  if (n > blob.size() * 64) throw StoreError("counter samples: bad block count");
  if (n == 0) return;
  const size_t base = out.size();
  out.resize(base + n);
  ingest::CounterSample* s = out.data() + base;
  for (size_t i = 0; i < n; ++i) {
    s[i].node_guid = node_guid;
    s[i].port = port;
  }
  std::vector<uint64_t> col;
  if (r.byte() == 1) {
    const uint64_t start = r.varint();
    if (start > times.size() || times.size() - start < n)
      throw StoreError("counter samples: block times out of range");
    for (size_t i = 0; i < n; ++i) s[i].time_us = times[start + i];
  } else {
    get_column(r, n, col);
    for (size_t i = 0; i < n; ++i) s[i].time_us = static_cast<int64_t>(col[i]);
  }
  get_column(r, n, col);
  for (size_t i = 0; i < n; ++i) s[i].valid = static_cast<uint32_t>(col[i]);
  get_column(r, n, col);
  for (size_t i = 0; i < n; ++i) s[i].saturated = static_cast<uint32_t>(col[i]);
  get_column(r, n, col);
  for (size_t i = 0; i < n; ++i) s[i].extended = col[i] != 0;
  const uint64_t zero = r.varint();
  for (size_t c = 0; c < ingest::kCounterCount; ++c) {
    if (zero & (uint64_t{1} << c)) continue;
    get_column(r, n, col);
    for (size_t i = 0; i < n; ++i) s[i].value[c] = col[i];
  }
  if (!r.done()) throw StoreError("counter samples: trailing bytes in block");
}

}  // namespace ibw::store::sample_codec
