// Small text helpers shared by the ingest parsers (UFM REST, event.log, telemetry):
// ASCII lower-casing for case-insensitive keys and states, trimming white space, and
// flattening a field that may hold line breaks or tabs into one log-safe line.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace ibw::ingest {

// "HEALTHY" -> "healthy"; bytes >= 0x80 are left alone (no locale).
inline std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// White space as isspace() has it in the C locale: space, \t, \n, \v, \f, \r.
constexpr bool ascii_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

// "  a b \n" -> "a b": without the white space (ascii_space) at both ends.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

// "a\nb\tc" -> "a b c": each CR, LF or tab becomes a space, so a message stays one line.
inline std::string single_line(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return out;
}

}  // namespace ibw::ingest
