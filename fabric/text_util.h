// Small string_view helpers shared by the pure parsers (no allocation, no locale).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ibw::fabric::text {

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Calls fn(line, line_number) for every line (without the newline), 1-based.
template <typename Fn>
void for_each_line(std::string_view data, Fn&& fn) {
  if (data.substr(0, 3) == "\xEF\xBB\xBF") data.remove_prefix(3);  // UTF-8 BOM (Excel CSV)
  int number = 0;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t end = data.find('\n', pos);
    if (end == std::string_view::npos) end = data.size();
    std::string_view line = data.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line, ++number);
    pos = end + 1;
  }
}

template <typename T>
std::optional<T> to_int(std::string_view s, int base = 10) {
  T v{};
  if (s.empty()) return std::nullopt;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// "500ms", "1s", "12m", "1h", "2d" (also "us") -> microseconds; nullopt when malformed, not
// positive, or overflowing. Shared by the daemon config and the rules files.
inline std::optional<int64_t> parse_duration(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == 0 || i == s.size()) return std::nullopt;
  int64_t n = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + i, n);
  if (ec != std::errc() || n <= 0) return std::nullopt;
  std::string_view unit = s.substr(i);
  int64_t mult = unit == "us"   ? 1
                 : unit == "ms" ? 1'000
                 : unit == "s"  ? 1'000'000
                 : unit == "m"  ? 60'000'000
                 : unit == "h"  ? 3'600'000'000LL
                 : unit == "d"  ? 86'400'000'000LL
                                : 0;
  if (!mult || n > INT64_MAX / mult) return std::nullopt;
  return n * mult;
}

inline bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace ibw::fabric::text
