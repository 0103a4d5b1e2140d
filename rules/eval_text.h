// Private to rules/: the text pieces of verdict explanations, written without printf: port
// labels ("0x%016" PRIx64 "/%d"), integers, durations ("12m"), printf's %.<p>e / %.<p>g via
// to_chars, and append_sci2, printf's "%.2e" (BER estimates) without the general to_chars
// machinery, which cost about 500 instructions per verdict on a fabric failing everywhere.
// append_sci2 takes std::to_chars (specified to match printf) for values whose rounding is
// not clear-cut in double arithmetic (ties, 3-digit edges, exponents beyond +-20, non-finite,
// <= 0), so its text is always printf's.
#pragma once

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace ibw::rules {

inline void append_sci2(std::string* out, double x) {
  char buf[48];
  char* end = nullptr;
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  auto scaled = [&](int e) {  // x * 10^(2 - e): one correctly rounded operation
    int k = 2 - e;
    return k >= 0 ? x * kPow10[k] : x / kPow10[-k];
  };
  if (std::isfinite(x) && x > 0) {
    // floor(log10(x)) or one less, from the binary exponent b (x = f 2^b, f in [0.5, 1), so
    // log10 x lies in [(b - 1) log10 2, b log10 2)); the step up below puts it right. No log10
    // call. (A subnormal x reads as 2^-1022: far out of the range below, printed by to_chars.)
    const int b = static_cast<int>(std::bit_cast<uint64_t>(x) >> 52 & 0x7ff) - 1022;
    int e = static_cast<int>(std::floor((b - 1) * 0.30102999566398120));
    if (e >= -20 && e <= 20) {
      double m = scaled(e);
      if (m >= 1000) m = scaled(++e);
      if (m < 100 && e > -20) m = scaled(--e);
      double f = m - std::floor(m);
      // Clear-cut only away from a tie and from the 100 / 1000 edges.
      if (m >= 100.001 && m < 999.49 && std::fabs(f - 0.5) > 1e-6) {
        int r = static_cast<int>(f < 0.5 ? std::floor(m) : std::floor(m) + 1);
        buf[0] = static_cast<char>('0' + r / 100);
        buf[1] = '.';
        buf[2] = static_cast<char>('0' + r / 10 % 10);
        buf[3] = static_cast<char>('0' + r % 10);
        buf[4] = 'e';
        buf[5] = e < 0 ? '-' : '+';
        int a = e < 0 ? -e : e;
        buf[6] = static_cast<char>('0' + a / 10);
        buf[7] = static_cast<char>('0' + a % 10);
        end = buf + 8;
      }
    }
  }
  if (!end) end = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific, 2).ptr;
  out->append(buf, end);
}

namespace eval_detail {

// Appends "0x%016" PRIx64 "/%d" (the port label of explanations) without printf: two hex
// digits per byte from a table, one append.
inline void append_port_label(std::string* out, uint64_t guid, int port) {
  static constexpr auto kHex2 = [] {
    std::array<char, 512> t{};
    for (int i = 0; i < 256; ++i) {
      t[2 * i] = "0123456789abcdef"[i >> 4];
      t[2 * i + 1] = "0123456789abcdef"[i & 15];
    }
    return t;
  }();
  char buf[32] = {'0', 'x'};
  for (int i = 0; i < 8; ++i)
    std::memcpy(buf + 2 + 2 * i, &kHex2[2 * ((guid >> (56 - 8 * i)) & 0xff)], 2);
  buf[18] = '/';
  out->append(buf, std::to_chars(buf + 19, buf + sizeof buf, port).ptr);
}
inline void append_num(std::string* out, uint64_t n) {
  char buf[24];
  out->append(buf, std::to_chars(buf, buf + sizeof buf, n).ptr);
}
// printf's %.<precision>e / %.<precision>g of x (to_chars is specified to match them).
inline std::string fmt(std::chars_format f, int precision, double x) {
  char buf[48];
  auto end = std::to_chars(buf, buf + sizeof buf, x, f, precision).ptr;
  return std::string(buf, end);
}
inline std::string duration_text(int64_t us) {
  if (us % 3'600'000'000LL == 0) return std::to_string(us / 3'600'000'000LL) + "h";
  if (us % 60'000'000 == 0) return std::to_string(us / 60'000'000) + "m";
  if (us % 1'000'000 == 0) return std::to_string(us / 1'000'000) + "s";
  return std::to_string(us / 1000) + "ms";
}

}  // namespace eval_detail
}  // namespace ibw::rules
