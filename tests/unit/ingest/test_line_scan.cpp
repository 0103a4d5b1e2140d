// ingest/line_scan.h against the plain loops it replaces (std::count, memchr) on random text
// with many and few newlines, at every alignment and length near the 8- and 16-byte steps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

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

// for_each_line against splitting at every memchr('\n'): the same lines at every alignment
// around the 64-byte blocks, a last line without '\n', and a stop after any line.
TEST_CASE("line scan: for_each_line visits the lines memchr finds and stops when told",
          "[tailer]") {
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {
    const size_t size = round < 140 ? static_cast<size_t>(round) : rng() % 3000;
    const unsigned every = 2 + rng() % 150;
    std::string text(size, ' ');
    for (char& c : text) c = rng() % every == 0 ? '\n' : static_cast<char>('!' + rng() % 90);
    for (size_t start : {size_t{0}, size_t{1}, size_t{13}, size_t{63}}) {
      if (start > size) continue;
      const char* p = text.data() + start;
      const char* end = text.data() + size;
      std::vector<std::string_view> want;
      for (const char* q = p; q < end;) {
        const char* nl =
            static_cast<const char*>(std::memchr(q, '\n', static_cast<size_t>(end - q)));
        want.emplace_back(q, static_cast<size_t>((nl ? nl : end) - q));
        q = nl ? nl + 1 : end;
      }
      std::vector<std::string_view> got;
      const char* after = for_each_line(p, end, [&got](const char* line, size_t len) {
        got.emplace_back(line, len);
        return true;
      });
      CHECK(after == end);
      CHECK(got == want);
      if (want.empty()) continue;
      const size_t stop = rng() % want.size();  // stop after line `stop`
      got.clear();
      after = for_each_line(p, end, [&got, stop](const char* line, size_t len) {
        got.emplace_back(line, len);
        return got.size() <= stop;
      });
      REQUIRE(got.size() == stop + 1);
      CHECK(got.back() == want[stop]);
      const char* line_end = want[stop].data() + want[stop].size();
      CHECK(after == (line_end < end ? line_end + 1 : end));
    }
  }
}
