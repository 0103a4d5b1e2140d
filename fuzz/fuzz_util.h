// Small helpers shared by the libFuzzer harnesses (fuzz/fuzz_*.cpp): the input as text, a
// zone offset taken from the input, and a line splitter for parsers of one line at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ibw::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A leading "@" and one byte choose a zone offset (-14 h .. +14 h in 15-minute steps, as the
// config allows) for parsers of timestamps without a zone; consumed from the input. 0 without.
inline int take_utc_offset(const uint8_t*& data, size_t& size) {
  if (size < 2 || data[0] != '@') return 0;
  int offset = (data[1] % 113 - 56) * 900;
  data += 2, size -= 2;
  return offset;
}

// Calls each(line) for every line of text, the "\n" kept as a tailer hands it over (the last
// line may lack it).
template <typename Each>
void for_each_line(std::string_view text, Each each) {
  while (!text.empty()) {
    size_t end = text.find('\n');
    size_t len = end == std::string_view::npos ? text.size() : end + 1;
    each(text.substr(0, len));
    text.remove_prefix(len);
  }
}

}  // namespace ibw::fuzz
