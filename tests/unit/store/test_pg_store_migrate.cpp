// Migration 2 of the PostgreSQL store (store/pg_migrate.h): a database written by version 1
// (a row per sample, a port's counters in columns of arrays) opens with every sample and every
// counter state intact, in the packed forms, and the old table and columns are gone.
#if __has_include("tests/lab/pg_server.h")

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "store/pg_schema.h"
#include "store/pg_store.h"
#include "tests/lab/pg_server.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;

TEST_CASE("pg store migration: version 1 samples and port counters survive the move to 2") {
  const std::string url = lab::pg_test_database("ibwmig");
  {
    store::pg_detail::Db db(url, "");
    store::pg_schema::migrate(db, 1);
    REQUIRE(store::pg_schema::version(db) == 1);
    // Rows as version 1 wrote them. Two samples at time 300 keep their write order.
    db.exec(
        "INSERT INTO samples (fabric, node_guid, port, time_us, counter_values, valid, saturated, "
        "extended) VALUES "
        "('fab', 16, 1, 300, '{1,2,3,4,5,6,7,8,9,10,11,12,-1,-9223372036854775808,0,0,7}', "
        "131070, 5, true), "
        "('fab', 16, 1, 100, '{0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1}', 1, 0, false), "
        "('fab', 16, 1, 300, '{0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2}', 1, 0, false), "
        "('other', 16, 1, 200, '{0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3}', 1, 0, true)");
    db.exec(
        "INSERT INTO ports VALUES ('fab', 16, 1, 'sw1', 7, -2, 'spine', 9, 'C1', 4, 5, 4, 'NDR', "
        "300, 16, 1, '{1,2,3,4,5,6,7,8,9,10,11,12,-1,-9223372036854775808,0,0,7}', 131070, 5, "
        "true, '{0.5,NaN,-Infinity,Infinity,-0,1e300}', 63, '{3,0,-1}', 7, 4, 1234)");
  }
  CHECK_THROWS_AS(store::Store::open(store_test::pg_store_spec(url, "fab"), /*read_only=*/true),
                  store::StoreError);
  auto s = store::Store::open(store_test::pg_store_spec(url, "fab"));
  CHECK(s->schema_version() == store::pg_schema::latest_version());

  auto got = s->samples(16, 1, 0);
  REQUIRE(got.size() == 3);
  CHECK(got[0].time_us == 100);
  CHECK(got[0].value[16] == 1);
  CHECK_FALSE(got[0].extended);
  CHECK(got[1].time_us == 300);
  CHECK(got[1].value[0] == 1);
  CHECK(got[1].value[12] == UINT64_MAX);
  CHECK(got[1].value[13] == uint64_t{1} << 63);
  CHECK(got[1].valid == 131070);
  CHECK(got[1].saturated == 5);
  CHECK(got[1].extended);
  CHECK(got[2].time_us == 300);
  CHECK(got[2].value[16] == 2);  // written after got[1]
  auto other = store::Store::open(store_test::pg_store_spec(url, "other"))->samples(16, 1, 0);
  REQUIRE(other.size() == 1);
  CHECK(other[0].value[16] == 3);

  auto ports = s->ports();
  REQUIRE(ports.size() == 1);
  const store::PortRecord& p = ports[0];
  CHECK(p.node == "sw1");
  CHECK(p.peer_guid == UINT64_MAX - 1);
  CHECK(p.last_change_us == 1234);
  CHECK(p.counters.time_us == 300);
  CHECK(p.counters.node_guid == 16);
  CHECK(p.counters.value[12] == UINT64_MAX);
  CHECK(p.counters.valid == 131070);
  CHECK(p.counters.extended);
  CHECK(p.rates[0] == 0.5);
  CHECK(std::isnan(p.rates[1]));
  CHECK(p.rates[2] == -std::numeric_limits<double>::infinity());
  CHECK(p.rates[3] == std::numeric_limits<double>::infinity());
  CHECK(std::signbit(p.rates[4]));
  CHECK(p.rates[5] == 1e300);
  CHECK(p.rates_valid == 63);
  CHECK(p.deltas[0] == 3);
  CHECK(p.deltas[2] == UINT64_MAX);
  CHECK(p.deltas_valid == 7);
  CHECK(p.deltas_at_least == 4);

  store::pg_detail::Db db(url, "");
  CHECK(db.exec("SELECT to_regclass('samples') IS NULL").boolean(0, 0));
  CHECK(db.exec("SELECT count(*) FROM information_schema.columns WHERE table_name = 'ports' AND "
                "column_name LIKE 'counter%'")
            .i64(0, 0) == 0);  // `counters` too went to port_state (migration 4)

  // The moved samples fold like any others.
  store::Retention r;
  r.raw_window_us = 1;
  CHECK(s->compact(1000, r) == 3);
  CHECK(s->samples(16, 1, 0).empty());
  CHECK(s->aggregates(16, 1, 0).size() == 1);
}

#endif  // tests/lab/pg_server.h
