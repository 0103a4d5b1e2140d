// Pieces of the OpenSM log parser shared by its three files (ingest/opensm_log.cpp: the line
// parser; ingest/opensm_log_date.cpp: dates and years; ingest/opensm_log_events.cpp: records to
// events). Not for other modules.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ibw::ingest::osm_log_detail {

constexpr int64_t kSecondsPerDay = 86400;

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);

bool valid_date(int y, int m, int d);

// [A-Za-z0-9_] by byte value (a table: strip_function runs on every line of the log).
constexpr std::array<bool, 256> kWordChars = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<size_t>(c)] =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  return t;
}();

[[gnu::always_inline]] inline bool is_word_char(char c) {
  return kWordChars[static_cast<unsigned char>(c)];
}

// The text without its "function_name: " prefix (OpenSM prefixes most messages with it).
[[gnu::always_inline]] inline std::string_view strip_function(std::string_view text) {
  size_t ident = 0;
  while (ident < text.size() && is_word_char(text[ident])) ++ident;
  if (ident > 0 && ident + 2 <= text.size() && text[ident] == ':' && text[ident + 1] == ' ')
    text.remove_prefix(ident + 2);
  return text;
}

}  // namespace ibw::ingest::osm_log_detail
