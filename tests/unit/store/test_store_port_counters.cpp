// Unit tests for WriteBatch::port_counters (store/store.h): a counter reading sets the counter
// columns of a port's row exactly as a whole record after store::set_counters() does, leaves the
// other columns alone, and skips a port that has no row; its sample is stored as a counter sample
// (after the batch's own samples); on both backends.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "store/store.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw::store_test;
using ibw::store::Store;

namespace {

ibw::ingest::CounterDelta reading(uint64_t guid, int port, int64_t t) {
  ibw::ingest::CounterDelta d;
  d.sample = big_sample(guid, port, t);
  for (size_t i = 0; i < ibw::ingest::kCounterCount; ++i) {
    d.delta[i] = i * 1000 + static_cast<uint64_t>(t % 7);
    d.rate[i] = static_cast<double>(i) / 3.0 + 1e-9 * static_cast<double>(t);
  }
  d.delta[3] = std::numeric_limits<uint64_t>::max();
  d.rate[4] = std::numeric_limits<double>::quiet_NaN();
  d.rate[5] = std::numeric_limits<double>::infinity();
  d.rate[6] = -std::numeric_limits<double>::infinity();
  d.valid = 0x1ffff;
  d.at_least = 0x12;
  d.reset = 0x4;  // not stored
  d.interval_us = 60'000'000;
  return d;
}

}  // namespace

TEST_CASE("store: port_counters set the same rows as whole records after set_counters", "[store]") {
  STORE_BACKEND(backend);
  auto db_whole = open_test_store(backend, "whole");
  auto whole = db_whole.open();
  auto db_counters = open_test_store(backend, "counters");
  auto counters = db_counters.open();
  std::vector<ibw::store::PortRecord> records = {
      full_port(0xfe80'0000'0000'00aaULL, 1, "leaf001"),
      full_port(0x0002'c902'0040'4f80ULL, 2, "leaf002"),
      full_port(0x8000'0000'0000'0001ULL, 36, "spine001")};
  whole->write({.ports = records});
  counters->write({.ports = records});
  for (int64_t t : {1'700'000'000'000'000LL, 1'700'000'060'000'000LL}) {
    ibw::store::WriteBatch a, b;
    for (auto& r : records) {
      auto d = reading(r.node_guid, r.port, t + r.port);
      ibw::store::set_counters(r, d);
      a.ports.push_back(r);
      b.port_counters.push_back(d);
    }
    b.port_counters.push_back(reading(0x1234, 5, t));  // no row: skipped
    whole->write(a);
    counters->write(b);
    auto x = whole->ports(), y = counters->ports();
    REQUIRE(x.size() == 3);
    REQUIRE(y.size() == 3);
    for (size_t i = 0; i < x.size(); ++i) {
      check_same_port(x[i], y[i]);
      CHECK(y[i].counters.time_us == t + y[i].port);
      CHECK(y[i].deltas_at_least == 0x12);
      CHECK(std::isnan(y[i].rates[4]));
      CHECK(y[i].rates[6] == -std::numeric_limits<double>::infinity());
    }
  }
  // The other columns are left as the last whole record wrote them.
  auto y = counters->ports();
  CHECK(y[0].node == "leaf001");
  CHECK(y[0].peer_node == "spine001");
  CHECK(y[0].cable_id == "C-leaf001");
  // Each reading is stored as a counter sample too, of a port with a row or without, and the
  // batch's own samples come first.
  for (const auto& [guid, port] :
       {std::pair{records[2].node_guid, 36}, std::pair{uint64_t{0x1234}, 5}}) {
    auto stored = counters->samples(guid, port, 0);
    REQUIRE(stored.size() == 2);
    int64_t t = 1'700'000'000'000'000LL;
    for (const auto& s : stored) {
      check_same_sample(s, reading(guid, port, t + (guid == 0x1234 ? 0 : port)).sample);
      t += 60'000'000;
    }
  }
  CHECK(whole->samples(records[2].node_guid, 36, 0).empty());  // whole records are not samples
  ibw::store::WriteBatch both;
  both.samples.push_back(big_sample(0x77, 1, 5));
  both.port_counters.push_back(reading(0x77, 1, 5));
  both.port_counters.back().sample.value[0] = 42;
  counters->write(both);
  auto two = counters->samples(0x77, 1, 0);
  REQUIRE(two.size() == 2);
  CHECK(two[0].value[0] != 42);  // equal times: write order
  CHECK(two[1].value[0] == 42);
}
