// Helpers shared by the unit tests of the pure parsers.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/diagnostics.h"
#include "tests/test_paths.h"

namespace ibw::test {

// A recorded UFM answer from tests/data/ufm/ (fails the test when missing or empty).
inline std::string ufm_recording(const std::string& name) {
  std::ifstream in(std::string(IBW_TEST_DATA) + "/ufm/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  REQUIRE(!ss.str().empty());
  return ss.str();
}

// Joins lines with '\n' so that element i is line i + 1.
inline std::string join_lines(std::initializer_list<std::string_view> lines) {
  std::string s;
  for (auto l : lines) s.append(l).append("\n");
  return s;
}

// Runs parse(text, file) and returns the diagnostics it threw; fails the test if it did not.
template <typename Parse>
std::vector<fabric::Diagnostic> errors_of(Parse parse, const std::string& text,
                                          const std::string& file) {
  try {
    parse(text, file);
  } catch (const fabric::InputError& e) {
    return e.diagnostics();
  }
  FAIL("the parser did not throw InputError for " << file);
  return {};
}

// "line:field" keys, sorted, for exact comparison.
inline std::vector<std::string> keys(const std::vector<fabric::Diagnostic>& diags) {
  std::vector<std::string> out;
  for (const auto& d : diags) out.push_back(std::to_string(d.line) + ":" + d.field);
  std::sort(out.begin(), out.end());
  return out;
}

// `diags` holds exactly one diagnostic: at `line`, about `field`, its message containing `text`.
inline void check_only_diag(const std::vector<fabric::Diagnostic>& diags, int line,
                            const std::string& field, std::string_view text) {
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].line == line);
  CHECK(diags[0].field == field);
  CHECK(diags[0].message.find(text) != std::string::npos);
}

inline const fabric::Diagnostic* find_diag(const std::vector<fabric::Diagnostic>& diags, int line,
                                           const std::string& field) {
  for (const auto& d : diags)
    if (d.line == line && d.field == field) return &d;
  return nullptr;
}

// This process's resident memory now (VmRSS of /proc/self/status), in bytes; 0 unknown. The
// input-cap tests print the growth as their figure.
inline int64_t rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  return 0;
}

}  // namespace ibw::test
