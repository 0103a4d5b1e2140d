// fabric::FlatTable (the per-port state of the counter tracker, port table and correlator)
// against std::map: lookups in insertion order (the hinted walk of a steady scrape), in other
// orders, misses, the key FlatMap64 reserves, stable addresses and insertion-order iteration.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "fabric/flat_table.h"

using ibw::fabric::FlatTable;

namespace {

struct Value {
  uint64_t key = 0;
  int touched = 0;
};

std::vector<uint64_t> port_keys(size_t nodes) {
  std::vector<uint64_t> out;
  for (uint64_t n = 0; n < nodes; ++n)
    for (uint64_t port = 1; port <= 40; ++port)
      out.push_back((0x0002c90300a00000ULL + n * 4096) * 256 + port);
  return out;
}

}  // namespace

TEST_CASE("flat table: finds what std::map finds in any lookup order", "[fabric]") {
  std::vector<uint64_t> keys = port_keys(100);  // 4,000 keys: several chunks
  keys.push_back(0);
  keys.push_back(UINT64_MAX);  // FlatMap64's empty marker: kept aside here
  FlatTable<Value> table;
  std::map<uint64_t, Value*> want;
  for (uint64_t k : keys) {
    auto [v, added] = table.try_emplace(k);
    REQUIRE(added);
    v->key = k;
    want[k] = v;
  }
  REQUIRE(table.size() == keys.size());
  // Addresses stay valid across later inserts (values are never moved).
  for (const auto& [k, v] : want) CHECK(v->key == k);

  auto check_all = [&](const std::vector<uint64_t>& order) {
    for (uint64_t k : order) {
      Value* v = table.find(k);
      REQUIRE(v == want.at(k));
      CHECK(table.contains(k));
      CHECK_FALSE(table.find(k + 41));  // port 41 of the node: never added
      const auto& ct = table;
      CHECK(ct.find(k) == v);
    }
  };
  SECTION("insertion order, as a steady scrape") {
    check_all(keys);
  }
  SECTION("reverse order") {
    check_all({keys.rbegin(), keys.rend()});
  }
  SECTION("random order") {
    std::vector<uint64_t> shuffled = keys;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(7));
    check_all(shuffled);
  }
  SECTION("adding an existing key returns its value") {
    for (uint64_t k : keys) {
      auto [v, added] = table.try_emplace(k);
      CHECK_FALSE(added);
      CHECK(v == want.at(k));
    }
    CHECK(table.size() == keys.size());
  }
}

TEST_CASE("flat table: an empty table - the reserved key absent", "[fabric]") {
  FlatTable<Value> table;
  CHECK(table.empty());
  CHECK_FALSE(table.find(0));
  CHECK_FALSE(table.find(UINT64_MAX));
  table[5].touched = 1;
  CHECK_FALSE(table.find(UINT64_MAX));  // the hint slot past the end is not a hit
  CHECK_FALSE(table.find(0));
  CHECK(table.find(5)->touched == 1);
  table[UINT64_MAX].touched = 2;
  CHECK(table.find(UINT64_MAX)->touched == 2);
  CHECK(table.find(5)->touched == 1);
  CHECK(table.size() == 2);
}

TEST_CASE("flat table: for_each walks insertion order - a moved table keeps its entries",
          "[fabric]") {
  const std::vector<uint64_t> keys = {900, 3, UINT64_MAX, 41, 0, 2048};
  FlatTable<Value> table;
  for (uint64_t k : keys) table[k].key = k;
  std::vector<uint64_t> seen;
  table.for_each([&](uint64_t k, Value& v) {
    CHECK(v.key == k);
    ++v.touched;
    seen.push_back(k);
  });
  CHECK(seen == keys);
  FlatTable<Value> moved(std::move(table));
  CHECK(table.empty());
  CHECK_FALSE(table.find(900));
  for (uint64_t k : keys) {
    REQUIRE(moved.find(k));
    CHECK(moved.find(k)->touched == 1);
  }
}

TEST_CASE("flat table: const lookups from two threads at once", "[fabric]") {
  const std::vector<uint64_t> keys = port_keys(50);
  FlatTable<Value> table;
  for (uint64_t k : keys) table[k].key = k;
  const FlatTable<Value>& ct = table;
  auto walk = [&](bool reverse, size_t& found) {
    for (int round = 0; round < 20; ++round)
      for (size_t i = 0; i < keys.size(); ++i) {
        const uint64_t k = keys[reverse ? keys.size() - 1 - i : i];
        const Value* v = ct.find(k);
        if (v && v->key == k) ++found;
      }
  };
  size_t a = 0, b = 0;
  std::thread t([&] { walk(true, b); });
  walk(false, a);
  t.join();
  CHECK(a == 20 * keys.size());
  CHECK(b == 20 * keys.size());
}
