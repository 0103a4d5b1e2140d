// fabric::FlatMap64 (the open-addressing port/GUID index of the audit and the rules) against
// std::map on GUID-like keys, and its reserved empty-marker key.
#include <catch2/catch.hpp>

#include <map>

#include "fabric/flat_map.h"

TEST_CASE("flat map: finds what std::map finds and keeps the first value", "[fabric]") {
  std::map<uint64_t, uint32_t> want;
  ibw::fabric::FlatMap64 index;  // no reserve: grows by rehashing
  uint32_t n = 0;
  for (uint64_t guid = 0x0002c90300a00000ULL; guid < 0x0002c90300a00000ULL + 64 * 4096;
       guid += 4096)  // GUIDs alike except in a few bits
    for (int port = 1; port <= 40; ++port, ++n) {
      uint64_t key = guid * 257 + static_cast<uint64_t>(port);
      CHECK(index.emplace(key, n).second);
      want.emplace(key, n);
      CHECK(index.emplace(key, n + 100000) == std::pair<uint32_t, bool>{n, false});
    }
  REQUIRE(index.size() == want.size());
  for (const auto& [key, value] : want) {
    REQUIRE(index.find(key));
    CHECK(*index.find(key) == value);
    CHECK_FALSE(index.find(key + 40));  // ports 41-80: never inserted
  }
}

TEST_CASE("flat map: the reserved key is never stored nor found", "[fabric]") {
  ibw::fabric::FlatMap64 index;
  CHECK_FALSE(index.find(UINT64_MAX));
  index.emplace(7, 1);
  CHECK_FALSE(index.find(UINT64_MAX));  // an empty slot must not read as a hit
  CHECK_FALSE(index.emplace(UINT64_MAX, 2).second);
  CHECK_FALSE(index.find(UINT64_MAX));
  CHECK(index.size() == 1);
  CHECK(*index.find(7) == 1);
}
