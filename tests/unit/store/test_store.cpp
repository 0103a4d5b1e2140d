// Store: field-exact round trips, de-duplication and queries on both backends, and a timing
// of a large SQLite batch.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <limits>
#include <string>

#include "store/schema.h"
#include "store/sqlite_store.h"
#include "store/store.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using namespace ibw::store_test;
using store::Store;
using store::StoreError;

TEST_CASE("store: every event field round-trips", "[store]") {
  STORE_UNDER_TEST(db, s);
  store::WriteBatch b;
  b.events.push_back(full_event(1));
  ingest::Event bare;  // defaults; no dedup key (stored as NULL)
  bare.kind = "sweep";
  b.events.push_back(bare);
  auto r = s->write(b);
  REQUIRE(r.events_inserted == 2);
  REQUIRE(r.event_ids.size() == 2);
  CHECK(r.event_ids[0] > 0);
  CHECK(r.event_ids[1] > r.event_ids[0]);

  db.reopen(s, /*read_only=*/true);
  auto got = s->events({});
  REQUIRE(got.size() == 2);
  CHECK(got[0].id == r.event_ids[0]);
  check_same_event(got[0].event, b.events[0]);
  check_same_event(got[1].event, b.events[1]);
}

TEST_CASE("store: ports round-trip with counters - rates and masks - and upserts replace",
          "[store]") {
  STORE_UNDER_TEST(db, s);
  store::WriteBatch b;
  b.ports.push_back(full_port(0xfe80'0000'0000'00aaULL, 1, "leaf001"));
  b.ports.push_back(full_port(0x0002'c902'0040'4f80ULL, 2, "leaf001"));
  s->write(b);
  auto got = s->ports();
  REQUIRE(got.size() == 2);
  check_same_port(got[0], b.ports[0]);
  check_same_port(got[1], b.ports[1]);

  store::PortRecord changed = full_port(0xfe80'0000'0000'00aaULL, 1, "leaf001");
  changed.state = 1;
  changed.counters = {};  // no sample yet: all zeros, guid 0
  changed.rates = {};
  changed.rates_valid = 0;
  s->write({.ports = {changed}});
  got = s->ports();
  REQUIRE(got.size() == 2);
  check_same_port(got[0], changed);
}

TEST_CASE("store: samples keep 64-bit values and come back oldest first", "[store]") {
  STORE_UNDER_TEST(db, s);
  const uint64_t guid = 0xf452'1403'0012'3450ULL;
  store::WriteBatch b;
  for (int64_t t : {300, 100, 200}) b.samples.push_back(big_sample(guid, 7, t));
  b.samples.push_back(big_sample(guid, 8, 100));  // another port
  s->write(b);
  auto got = s->samples(guid, 7, 0);
  REQUIRE(got.size() == 3);
  check_same_sample(got[0], b.samples[1]);
  check_same_sample(got[1], b.samples[2]);
  check_same_sample(got[2], b.samples[0]);
  CHECK(got[2].value[12] == std::numeric_limits<uint64_t>::max());
  CHECK(s->samples(guid, 7, 200).size() == 2);
  CHECK(s->samples(guid, 9, 0).empty());
}

TEST_CASE("store: a dedup_key is stored once and the duplicate gets id 0", "[store]") {
  STORE_UNDER_TEST(db, s);
  auto e = full_event(5);
  auto r1 = s->write({.events = {e}});
  REQUIRE(r1.events_inserted == 1);
  auto r2 = s->write({.events = {e, full_event(6), e}});
  CHECK(r2.events_inserted == 1);
  REQUIRE(r2.event_ids.size() == 3);
  CHECK(r2.event_ids[0] == 0);
  CHECK(r2.event_ids[1] > r1.event_ids[0]);
  CHECK(r2.event_ids[2] == 0);
  ingest::Event nokey = full_event(7);
  nokey.dedup_key.clear();  // events without a key never collide
  auto r3 = s->write({.events = {nokey, nokey}});
  CHECK(r3.events_inserted == 2);
  CHECK(event_count(*s) == 4);
}

TEST_CASE("store: event queries filter by time - port and id - in id order", "[store]") {
  STORE_UNDER_TEST(db, s);
  store::WriteBatch b;
  for (int i = 0; i < 10; ++i) {
    ingest::Event e = full_event(i);
    e.time_us = 1000 + (9 - i) * 10;  // ids ascend while times descend
    e.node_guid = i % 2 ? 0xaa : 0xfe80'0000'0000'00bbULL;
    e.port = i % 3;
    b.events.push_back(e);
  }
  auto ids = s->write(b).event_ids;
  store::EventQuery q;
  q.since_us = 1050;
  auto got = s->events(q);
  REQUIRE(got.size() == 5);
  CHECK(got[0].id == ids[0]);
  CHECK(got[4].id == ids[4]);
  q.after_id = ids[2];  // time bound and paging together
  got = s->events(q);
  REQUIRE(got.size() == 2);
  CHECK(got[0].id == ids[3]);

  q = {};
  q.node_guid = 0xfe80'0000'0000'00bbULL;  // i = 0, 2, 4, 6, 8
  CHECK(s->events(q).size() == 5);
  q.port = 0;  // i = 0, 6
  got = s->events(q);
  REQUIRE(got.size() == 2);
  CHECK(got[1].id == ids[6]);

  q = {};
  q.limit = 3;
  got = s->events(q);
  REQUIRE(got.size() == 3);
  q.after_id = got.back().id;
  got = s->events(q);
  REQUIRE(got.size() == 3);
  CHECK(got[0].id == ids[3]);
  q.port = 1;  // ignored without a node_guid
  CHECK(s->events(q).size() == 3);
}

TEST_CASE("store: ports filter by display name or 0xGUID - ordered by name then port", "[store]") {
  STORE_UNDER_TEST(db, s);
  s->write({.ports = {full_port(0xfe80'0000'0000'0002ULL, 2, "leaf002"),
                      full_port(0xfe80'0000'0000'0002ULL, 1, "leaf002"),
                      full_port(0x0000'0000'0000'0001ULL, 10, "leaf001"),
                      full_port(0x0000'0000'0000'0001ULL, 9, "leaf001")}});
  auto all = s->ports();
  REQUIRE(all.size() == 4);
  CHECK((all[0].node == "leaf001" && all[0].port == 9));
  CHECK((all[1].node == "leaf001" && all[1].port == 10));
  CHECK((all[2].node == "leaf002" && all[2].port == 1));
  CHECK(s->ports("leaf002").size() == 2);
  CHECK(s->ports("0xfe80000000000002").size() == 2);
  CHECK(s->ports("0xFE80000000000002").size() == 2);
  CHECK(s->ports("0x0000000000000001").size() == 2);
  CHECK(s->ports("leaf00").empty());
  CHECK(s->ports("0x").empty());
}

TEST_CASE("store: timing of 10000 samples + 2000 port upserts in one batch", "[store]") {
  // Wall time depends on what else the machine runs; the thread's CPU time much less so.
  auto thread_cpu_ms = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
  };
  // SQLite only: its synchronous modes (bench/bench_store.sh compares the backends).
  TempDir dir;
  for (bool full_sync : {false, true}) {
    store::SqliteStore s(dir.file(full_sync ? "full.db" : "normal.db"), {.full_sync = full_sync});
    for (int round = 0; round < 4; ++round) {
      store::WriteBatch b;
      for (int i = 0; i < 10'000; ++i)
        b.samples.push_back(big_sample(0x1000 + i / 40, i % 40 + 1, round * 1'000'000 + i));
      for (int i = 0; i < 2'000; ++i)
        b.ports.push_back(full_port(0x1000 + i / 40, i % 40 + 1, "sw" + std::to_string(i / 40)));
      b.cursors = {{"counters", std::to_string(round)}};
      const double cpu0 = thread_cpu_ms();
      const auto t0 = std::chrono::steady_clock::now();
      s.write(b);
      const auto ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0);
      std::printf(
          "store timing: synchronous=%s, batch %d (10000 samples + 2000 ports): %.1f ms wall, "
          "%.1f ms CPU\n",
          full_sync ? "FULL" : "NORMAL", round, ms.count(), thread_cpu_ms() - cpu0);
    }
    CHECK(s.ports().size() == 2000);
  }
}
