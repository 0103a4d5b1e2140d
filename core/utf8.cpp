#include "core/utf8.h"

#include <cstdint>

namespace ibw::core {
namespace utf8_detail {

// The length of the valid sequence at text[at], 0 when it is not one.
size_t sequence_length(std::string_view text, size_t at) {
  auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  uint8_t b = byte(at);
  if (b < 0x80) return 1;
  size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 ? 2 : 0;
  if (!n || b > 0xF4 || at + n > text.size()) return 0;
  for (size_t i = 1; i < n; ++i)
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
  uint8_t b1 = byte(at + 1);
  if (b == 0xE0 && b1 < 0xA0) return 0;   // overlong
  if (b == 0xED && b1 >= 0xA0) return 0;  // surrogate
  if (b == 0xF0 && b1 < 0x90) return 0;   // overlong
  if (b == 0xF4 && b1 >= 0x90) return 0;  // past U+10FFFF
  return n;
}

}  // namespace utf8_detail

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    size_t n = utf8_detail::sequence_length(text, at);
    if (n) {
      out.append(text, at, n);
      at += n;
    } else {
      out += "\xEF\xBF\xBD";
      ++at;
    }
  }
  return out;
}

}  // namespace ibw::core
