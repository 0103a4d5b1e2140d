// Byte-level pieces of the store's binary encodings (store/sample_codec.h, store/port_state.h),
// used only inside store/: zigzag, varints (appended to a string, or written into a buffer the
// caller sized, at most kMaxVarint bytes each), fixed 8-byte little-endian words and Reader, which
// walks a blob and throws StoreError "<what>: <why>" (what: "counter samples", or the table and
// partition) when it ends early or holds a malformed varint or bit width.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/records.h"

namespace ibw::store::codec_io {

inline constexpr size_t kMaxVarint = 10;

inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t unzigzag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Writes v at w; returns the end.
inline char* put_varint(char* w, uint64_t v) {
  while (v >= 0x80) {
    *w++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *w++ = static_cast<char>(v);
  return w;
}
// v as 8 bytes, least significant first, at w; returns the end.
inline char* put_le64(char* w, uint64_t v) {
  for (int k = 0; k < 8; ++k) *w++ = static_cast<char>(v >> (8 * k));
  return w;
}
// The word put_le64 wrote in b (8 bytes).
inline uint64_t le64(std::string_view b) {
  uint64_t v = 0;
  for (int k = 0; k < 8; ++k) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[k])) << (8 * k);
  return v;
}

inline void put_varint(std::string& out, uint64_t v) {
  char buf[kMaxVarint];
  out.append(buf, static_cast<size_t>(put_varint(buf, v) - buf));
}

class Reader {
 public:
  // `what` must outlive the reader.
  explicit Reader(std::string_view b, std::string_view what = "counter samples")
      : b_(b), what_(what) {}
  bool done() const { return pos_ == b_.size(); }
  size_t pos() const { return pos_; }
  uint8_t byte() {
    need(1);
    return static_cast<uint8_t>(b_[pos_++]);
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t c = byte();
      v |= static_cast<uint64_t>(c & 0x7f) << shift;
      if (!(c & 0x80)) return v;
    }
    fail("malformed varint");
  }
  std::string_view bytes(uint64_t n) {
    need(n);
    const std::string_view v = b_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return v;
  }
  // count values of the width given by the next byte.
  void packed(size_t count, std::vector<uint64_t>& out) {
    const int width = byte();
    if (width > 64) fail("bad bit width");
    if (width == 0) {
      out.insert(out.end(), count, 0);
      return;
    }
    const size_t n = (count * static_cast<size_t>(width) + 7) / 8;
    need(n);
    const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    unsigned __int128 acc = 0;
    int bits = 0;
    size_t p = pos_;
    for (size_t i = 0; i < count; ++i) {
      while (bits < width) {
        acc |= static_cast<unsigned __int128>(static_cast<uint8_t>(b_[p++])) << bits;
        bits += 8;
      }
      out.push_back(static_cast<uint64_t>(acc) & mask);
      acc >>= width;
      bits -= width;
    }
    pos_ += n;
  }
  [[noreturn]] void fail(std::string_view why) const {
    throw StoreError(std::string(what_) + ": " + std::string(why));
  }

 private:
  void need(uint64_t n) const {
    if (b_.size() - pos_ < n) fail("truncated blob");
  }
  std::string_view b_;
  std::string_view what_;
  size_t pos_ = 0;
};

}  // namespace ibw::store::codec_io
