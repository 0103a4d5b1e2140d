// ingest/line_scan.h against the plain loops it replaces (std::count, memchr) on random text
// with many and few newlines, at every alignment and length near the 8- and 16-byte steps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include "ingest/line_scan.h"

using namespace ibw::ingest;

TEST_CASE("line scan: count_newlines find_byte and end_of_lines match plain loops", "[tailer]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 400; ++round) {
    const size_t size = round < 100 ? static_cast<size_t>(round) : rng() % 5000;
    const unsigned every = 2 + rng() % 200;  // one '\n' in `every` bytes on average
    std::string text(size + 16, '\0');
    for (char& c : text) c = rng() % every == 0 ? '\n' : static_cast<char>(' ' + rng() % 95);
    for (size_t start : {size_t{0}, size_t{1}, size_t{7}, size_t{15}}) {
      if (start > size) continue;
      const char* p = text.data() + start;
      const size_t len = size - start;
      const size_t want = static_cast<size_t>(std::count(p, p + len, '\n'));
      CHECK(count_newlines(p, len) == want);
      for (char c : {'\n', '>', ' ', 'x'}) {
        const void* m = std::memchr(p, c, len);
        CHECK(find_byte(p, p + len, c) == static_cast<const char*>(m));
      }
      if (want > 0) {
        const size_t k = 1 + rng() % want;
        const size_t got = end_of_lines(p, len, k);
        CHECK(got >= 1);
        CHECK(p[got - 1] == '\n');
        CHECK(static_cast<size_t>(std::count(p, p + got, '\n')) == k);
      }
    }
  }
}
