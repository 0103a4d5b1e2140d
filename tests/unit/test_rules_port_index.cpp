// rules::PortIndex (the flat port-key table of rule evaluation) against std::map on keys
// built like the real ones (guid * 257 + port), many sharing low bits.
#include <catch2/catch.hpp>

#include <map>

#include "rules/port_index.h"

TEST_CASE("rules port index: finds what std::map finds and keeps the first value", "[rules]") {
  std::map<uint64_t, uint32_t> want;
  ibw::rules::PortIndex index(3000);
  uint32_t n = 0;
  for (uint64_t guid = 0x0002c90300a00000ULL; guid < 0x0002c90300a00000ULL + 64 * 4096;
       guid += 4096)  // GUIDs alike except in a few bits
    for (int port = 1; port <= 40; ++port) {
      uint64_t key = guid * 257 + static_cast<uint64_t>(port);
      index.insert(key, n);
      want.emplace(key, n);
      index.insert(key, n + 100000);  // a repeated key keeps its first value
      ++n;
    }
  REQUIRE(want.size() == 2560);
  for (const auto& [key, value] : want) {
    auto got = index.find(key);
    REQUIRE(got);
    CHECK(*got == value);
    CHECK_FALSE(index.find(key + 40));  // ports 41-80: never inserted
  }
  CHECK_FALSE(index.find(0));
  ibw::rules::PortIndex empty(0);
  CHECK_FALSE(empty.find(12345));
}
