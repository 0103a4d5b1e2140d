// Unit tests for the counter state of ports packed per partition (store/port_state.h, table
// port_state): every field read back as written over many partitions, a write rewrites only
// the partitions of the ports it changes, and a corrupt blob is a StoreError naming the table
// and partition that loses nothing already stored; on both backends. And the migrations from
// the previous schemas (SQLite 5: JSON columns; PostgreSQL 3: a bytea per row) keep every
// port's state.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "store/pg_binary.h"
#include "store/pg_db.h"
#include "store/pg_schema.h"
#include "store/port_state.h"
#include "store/sample_codec.h"
#include "store/schema.h"
#include "store/store.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw::store_test;
using ibw::store::PortRecord;
using ibw::store::WriteBatch;
namespace port_state = ibw::store::port_state;

namespace {

// n ports over many partitions, every field set, each a little different.
std::vector<PortRecord> many_ports(int n) {
  std::vector<PortRecord> out;
  for (int i = 0; i < n; ++i) {
    PortRecord p = full_port(0xfe80'0000'0000'0000ULL + static_cast<uint64_t>(i / 8), 1 + i % 8 * 5,
                             "sw" + std::to_string(i / 8));
    p.counters.time_us = -5 + i;  // negative times too
    p.counters.value[i % 17] = static_cast<uint64_t>(i) * 977;
    p.counters.extended = i % 3 != 0;
    p.rates[i % 17] = i % 2 ? -0.0 : static_cast<double>(i) / 7;
    p.deltas[(i + 5) % 17] = UINT64_MAX - static_cast<uint64_t>(i);
    p.deltas_at_least = static_cast<uint32_t>(i);
    if (i % 50 == 0) p.counters = {};  // no reading yet: all zeros, guid 0
    out.push_back(std::move(p));
  }
  return out;
}

ibw::ingest::CounterDelta reading(const PortRecord& p, int64_t t) {
  ibw::ingest::CounterDelta d;
  d.sample = big_sample(p.node_guid, p.port, t);
  for (size_t i = 0; i < ibw::ingest::kCounterCount; ++i) {
    d.delta[i] = i * 31 + static_cast<uint64_t>(t);
    d.rate[i] = static_cast<double>(t) / static_cast<double>(i + 1);
  }
  d.rate[2] = std::numeric_limits<double>::quiet_NaN();
  d.valid = 0x1fff0;
  d.rate_carried = 0x3;
  d.at_least = 0x40;
  return d;
}

// ports() keyed by (GUID, port).
std::map<std::pair<uint64_t, int>, PortRecord> by_key(const std::vector<PortRecord>& v) {
  std::map<std::pair<uint64_t, int>, PortRecord> m;
  for (const PortRecord& p : v) m[{p.node_guid, p.port}] = p;
  return m;
}

void raw_sql(const StoreUnderTest& t, const std::string& sql) {
  if (t.backend == "sqlite") return raw_exec(t.spec.path, sql);
  PGconn* c = PQconnectdb(t.spec.url.c_str());
  REQUIRE(PQstatus(c) == CONNECTION_OK);
  PGresult* r = PQexec(c, sql.c_str());
  const std::string err = PQresultErrorMessage(r);
  PQclear(r);
  PQfinish(c);
  REQUIRE(err == "");
}

}  // namespace

TEST_CASE("store port state: every field of many ports reads back as written", "[store]") {
  STORE_UNDER_TEST(db, s);
  std::vector<PortRecord> want = many_ports(1200);
  s->write({.ports = want});
  std::set<int> parts;
  for (const PortRecord& p : want) parts.insert(port_state::part_of(p.node_guid, p.port));
  CHECK(parts.size() > 200);  // most of the 256 partitions hold some
  auto got = by_key(s->ports());
  REQUIRE(got.size() == want.size());
  for (const PortRecord& p : want) check_same_port(got.at({p.node_guid, p.port}), p);

  // Readings of every third port (and one port twice: the later one wins), through a second
  // connection; the others keep their state.
  WriteBatch b;
  for (size_t i = 0; i < want.size(); i += 3) {
    b.port_counters.push_back(reading(want[i], 1000 + static_cast<int64_t>(i)));
    ibw::store::set_counters(want[i], b.port_counters.back());
  }
  b.port_counters.insert(b.port_counters.begin(), reading(want[3], 7));  // overwritten below
  db.open()->write(b);
  got = by_key(db.open(true)->ports());
  REQUIRE(got.size() == want.size());
  for (const PortRecord& p : want) {
    INFO("port " << p.node_guid << ":" << p.port);
    check_same_port(got.at({p.node_guid, p.port}), p);
  }
  CHECK(got.at({want[3].node_guid, want[3].port}).counters.time_us == 1003);

  // A node filter reads only its ports, with their state.
  auto one = s->ports("sw9");
  REQUIRE(one.size() == 8);
  for (const PortRecord& p : one) check_same_port(p, got.at({p.node_guid, p.port}));
}

TEST_CASE("store port state: a write rewrites only the partitions of its ports", "[store]") {
  STORE_UNDER_TEST(db, s);
  const std::vector<PortRecord> ports = many_ports(600);
  s->write({.ports = ports});
  // Ports of one partition, and one port of another.
  const int part = port_state::part_of(ports[0].node_guid, ports[0].port);
  WriteBatch b;
  for (const PortRecord& p : ports)
    if (port_state::part_of(p.node_guid, p.port) == part) b.port_counters.push_back(reading(p, 9));
  REQUIRE(b.port_counters.size() >= 1);
  if (db.backend == "sqlite") {
    // Every row written to port_state is recorded by a trigger.
    raw_sql(db,
            "CREATE TABLE touched (part INTEGER); CREATE TRIGGER t1 AFTER INSERT ON port_state "
            "BEGIN INSERT INTO touched VALUES (new.part); END; CREATE TRIGGER t2 AFTER UPDATE ON "
            "port_state BEGIN INSERT INTO touched VALUES (new.part); END;");
    s->write(b);
    CHECK(raw_int(db, "SELECT count(*) FROM touched") == 1);
    CHECK(raw_int(db, "SELECT min(part) FROM touched") == part);
  } else {
    // A row PostgreSQL rewrote has a new xmin.
    raw_sql(db, "CREATE TABLE before AS SELECT part, xmin::text::bigint AS x FROM port_state");
    s->write(b);
    CHECK(raw_int(db,
                  "SELECT count(*) FROM port_state p JOIN before b USING (part) WHERE "
                  "p.xmin::text::bigint <> b.x") == 1);
    CHECK(raw_int(db,
                  "SELECT min(part) FROM port_state p JOIN before b USING (part) WHERE "
                  "p.xmin::text::bigint <> b.x") == part);
  }
  // And the partition holds the new states next to the others.
  auto got = by_key(s->ports());
  for (const auto& d : b.port_counters)
    CHECK(got.at({d.sample.node_guid, d.sample.port}).counters.time_us == 9);
  CHECK(got.at({ports[1].node_guid, ports[1].port}).counters.time_us == ports[1].counters.time_us);
}

TEST_CASE("store port state: a corrupt partition is an error naming it and loses nothing",
          "[store]") {
  STORE_UNDER_TEST(db, s);
  const std::vector<PortRecord> ports = many_ports(400);
  s->write({.ports = ports});
  const PortRecord& bad = ports[5];
  const int part = port_state::part_of(bad.node_guid, bad.port);
  const std::string cut = db.backend == "sqlite" ? "substr(data, 1, length(data) - 3)"
                                                 : "substring(data from 1 for length(data) - 3)";
  raw_sql(db, "UPDATE port_state SET data = " + cut + " WHERE part = " + std::to_string(part));
  const int64_t size =
      raw_int(db, "SELECT length(data) FROM port_state WHERE part = " + std::to_string(part));
  const std::string where = "partition " + std::to_string(part);
  CHECK_THROWS_WITH(s->ports(), Catch::Contains("port_state") && Catch::Contains(where));

  // A write touching that partition fails whole: its event is not stored either.
  WriteBatch b;
  b.events = {full_event(1)};
  b.port_counters = {reading(bad, 77)};
  CHECK_THROWS_WITH(s->write(b), Catch::Contains("port_state") && Catch::Contains(where));
  CHECK(s->events({}).empty());
  CHECK(raw_int(db, "SELECT length(data) FROM port_state WHERE part = " + std::to_string(part)) ==
        size);

  // Other partitions still read and write: a node none of whose ports is in the bad one.
  std::set<std::string> touching;
  for (const PortRecord& p : ports)
    if (port_state::part_of(p.node_guid, p.port) == part) touching.insert(p.node);
  const PortRecord* good = nullptr;
  for (const PortRecord& p : ports)
    if (!touching.count(p.node)) good = &p;
  REQUIRE(good != nullptr);
  s->write({.events = {full_event(2)}, .port_counters = {reading(*good, 78)}});
  CHECK(s->events({}).size() == 1);
  auto mine = s->ports(good->node);
  bool found = false;
  for (const PortRecord& p : mine) {
    if (p.port != good->port) continue;
    found = true;
    CHECK(p.counters.time_us == 78);
  }
  CHECK(found);
}

TEST_CASE("store port state: a schema 5 SQLite store migrates with every port's state", "[store]") {
  TempDir dir;
  const std::string path = dir.file("v5.db");
  std::vector<PortRecord> want = many_ports(700);
  {
    auto s = ibw::store::Store::open(path);
    s->write({.events = {full_event(1)}, .ports = want});
  }
  undo_port_state(path);  // the twelve JSON columns, filled; no port_state
  raw_exec(path, "PRAGMA user_version = 5");
  CHECK_THROWS_WITH(ibw::store::Store::open(path, true), Catch::Contains("older"));
  auto s = ibw::store::Store::open(path);
  CHECK(s->schema_version() == ibw::store::schema::latest_version());
  CHECK(raw_int(path, "SELECT count(*) FROM pragma_table_info('ports')") == 13);
  CHECK(raw_int(path, "SELECT count(*) FROM port_state") > 200);
  CHECK(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'ports_node'") == 1);
  auto got = by_key(s->ports());
  REQUIRE(got.size() == want.size());
  for (const PortRecord& p : want) check_same_port(got.at({p.node_guid, p.port}), p);
  CHECK(s->events({}).size() == 1);
  // And it is written like any other.
  s->write({.port_counters = {reading(want[0], 5)}});
  CHECK(by_key(s->ports()).at({want[0].node_guid, want[0].port}).counters.time_us == 5);
}

TEST_CASE("store port state: a schema 3 PostgreSQL store migrates every fabric's states",
          "[store]") {
  const std::string url = ibw::lab::pg_test_database("ibwpstate");
  std::vector<PortRecord> fab = many_ports(500), other = many_ports(30);
  for (PortRecord& p : other) p.counters.time_us += 1'000'000;
  {
    ibw::store::pg_detail::Db db(url, "");
    ibw::store::pg_schema::migrate(db, 3);
    REQUIRE(ibw::store::pg_schema::version(db) == 3);
    // Rows as version 3 wrote them: the state as one bytea per row.
    for (const auto& [name, ports] : {std::pair{"fab", &fab}, std::pair{"other", &other}}) {
      std::string sql =
          "INSERT INTO ports (fabric, node_guid, port, node, lid, peer_guid, peer_node, "
          "peer_port, cable_id, state, phys_state, width, speed, last_change_us, counters) "
          "VALUES ";
      for (const PortRecord& p : *ports)
        sql += std::string(&p == ports->data() ? "" : ", ") + "('" + name + "', " +
               std::to_string(static_cast<int64_t>(p.node_guid)) + ", " + std::to_string(p.port) +
               ", '" + p.node + "', " + std::to_string(p.lid) + ", " +
               std::to_string(static_cast<int64_t>(p.peer_guid)) + ", '" + p.peer_node + "', " +
               std::to_string(p.peer_port) + ", '" + p.cable_id + "', 4, 5, 4, 'NDR', " +
               std::to_string(p.last_change_us) + ", '" +
               ibw::store::pg_detail::bytea_hex(ibw::store::sample_codec::encode_port_state(p)) +
               "')";
      db.exec(sql);
    }
  }
  for (const auto& [name, ports] : {std::pair{"fab", &fab}, std::pair{"other", &other}}) {
    INFO("fabric " << name);
    auto s = ibw::store::Store::open(pg_store_spec(url, name));
    CHECK(s->schema_version() == ibw::store::pg_schema::latest_version());
    auto got = by_key(s->ports());
    REQUIRE(got.size() == ports->size());
    for (const PortRecord& p : *ports) check_same_port(got.at({p.node_guid, p.port}), p);
  }
  ibw::store::pg_detail::Db db(url, "");
  CHECK(db.exec("SELECT count(*) FROM information_schema.columns WHERE table_name = 'ports' AND "
                "column_name = 'counters'")
            .i64(0, 0) == 0);
  CHECK(db.exec("SELECT count(DISTINCT fabric) FROM port_state").i64(0, 0) == 2);
}
