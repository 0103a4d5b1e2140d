// Fixtures shared by the store's unit tests (tests/unit/store/): the backends every
// interface-level case runs on (STORE_BACKEND, open_test_store), temporary directories, raw
// SQL access to the database behind a Store, records with every field set, and field-by-field
// comparisons.
#pragma once

#include <catch2/catch.hpp>

#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>

#include "store/counter_json.h"
#include "store/store.h"
#include "tests/lab/pg_server.h"

// One run of the enclosing test case per store backend (Catch2 GENERATE), as `const
// std::string var` = "sqlite" or "postgres"; every failure message names the backend.
#define STORE_BACKEND(var)                                                   \
  const std::string var = GENERATE(as<std::string>{}, "sqlite", "postgres"); \
  INFO("store backend: " << var)

// The start of most interface-level cases: STORE_BACKEND(backend), then `db`, a fresh store of
// that backend (open_test_store), and `s`, that store opened read-write.
#define STORE_UNDER_TEST(db, s)                        \
  STORE_BACKEND(backend);                              \
  auto db = ibw::store_test::open_test_store(backend); \
  auto s = db.open()

namespace ibw::store_test {

// A fresh directory under $TMPDIR, removed with everything in it.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ibw-store-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// A fresh, empty store of one backend, for one test case: a SQLite file in a temp dir, or a
// fresh database on the test PostgreSQL (tests/lab/pg_server.h). open() opens it (again), as
// the daemon or a CLI command would; every open sees the same data.
struct StoreUnderTest {
  std::string backend;
  store::StoreSpec spec;
  std::unique_ptr<TempDir> dir;  // sqlite

  std::unique_ptr<store::Store> open(bool read_only = false) const {
    return store::Store::open(spec, read_only);
  }
  // Closes `s` first (its connection and, for SQLite, its file), then opens the store again.
  void reopen(std::unique_ptr<store::Store>& s, bool read_only = false) const {
    s.reset();
    s = open(read_only);
  }
  // The same database seen as another fabric (postgres: one database, many fabrics).
  std::unique_ptr<store::Store> open_fabric(const std::string& fabric,
                                            bool read_only = false) const {
    store::StoreSpec other = spec;
    other.fabric = fabric;
    return store::Store::open(other, read_only);
  }
  // What the server or file is called in error messages: the path or the URL.
  const std::string& where() const { return backend == "sqlite" ? spec.path : spec.url; }
};

// backend: "sqlite" or "postgres"; `name` names the file or prefixes the database.
inline StoreUnderTest open_test_store(const std::string& backend,
                                      const std::string& name = "store") {
  StoreUnderTest t;
  t.backend = backend;
  t.spec.backend = backend;
  t.spec.fabric = "default";
  if (backend == "sqlite") {
    t.dir = std::make_unique<TempDir>();
    t.spec.path = t.dir->file(name + ".db");
  } else {
    REQUIRE(backend == "postgres");
    t.spec.url = lab::pg_test_database(name);
  }
  return t;
}

// A PostgreSQL store of `fabric` in the database at url (tests/lab/pg_server.h).
inline store::StoreSpec pg_store_spec(const std::string& url, const std::string& fabric) {
  store::StoreSpec spec;
  spec.backend = "postgres";
  spec.url = url;
  spec.fabric = fabric;
  return spec;
}

inline void raw_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  REQUIRE(msg == "");
  REQUIRE(rc == SQLITE_OK);
}

// SQL taking a store's samples back to before migration 4: the packed tables dropped, the
// one-row-per-sample table as migration 1 made it (empty). For tests that build an older file.
inline constexpr const char* kUndoPackedSamples =
    "DROP TABLE sample_stage; DROP TABLE sample_runs; DROP TABLE sample_blocks; "
    "CREATE TABLE samples (node_guid INTEGER NOT NULL, port INTEGER NOT NULL, "
    "time_us INTEGER NOT NULL, counter_values TEXT NOT NULL, valid INTEGER NOT NULL, "
    "saturated INTEGER NOT NULL, extended INTEGER NOT NULL); "
    "CREATE INDEX samples_port_time ON samples (node_guid, port, time_us); "
    "CREATE INDEX samples_time ON samples (time_us); ";

// Takes a SQLite store's port counter state back to before migration 6 (table port_state
// dropped, the twelve counter columns of `ports` added back and filled from what the store
// reads now). For tests that build an older file; call before the other undo SQL.
inline void undo_port_state(const std::string& path) {
  const std::vector<store::PortRecord> ports = store::Store::open(path, true)->ports();
  std::string sql = "DROP TABLE port_state; ";
  for (const char* c :
       {"counters_time_us INTEGER", "counters_node_guid INTEGER", "counters_port INTEGER",
        "counter_values TEXT", "counters_valid INTEGER", "counters_saturated INTEGER",
        "counters_extended INTEGER", "rates TEXT", "rates_valid INTEGER", "deltas TEXT",
        "deltas_valid INTEGER", "deltas_at_least INTEGER"})
    sql += std::string("ALTER TABLE ports ADD COLUMN ") + c + " NOT NULL DEFAULT 0; ";
  auto i64 = [](auto v) { return std::to_string(static_cast<int64_t>(v)); };
  for (const store::PortRecord& p : ports)
    sql += "UPDATE ports SET counters_time_us = " + i64(p.counters.time_us) +
           ", counters_node_guid = " + i64(p.counters.node_guid) +
           ", counters_port = " + i64(p.counters.port) + ", counter_values = '" +
           store::counter_json::encode_values(p.counters.value) +
           "', counters_valid = " + i64(p.counters.valid) +
           ", counters_saturated = " + i64(p.counters.saturated) +
           ", counters_extended = " + i64(p.counters.extended) + ", rates = '" +
           store::counter_json::encode_rates(p.rates) + "', rates_valid = " + i64(p.rates_valid) +
           ", deltas = '" + store::counter_json::encode_values(p.deltas) +
           "', deltas_valid = " + i64(p.deltas_valid) +
           ", deltas_at_least = " + i64(p.deltas_at_least) +
           " WHERE node_guid = " + i64(p.node_guid) + " AND port = " + i64(p.port) + "; ";
  raw_exec(path, sql);
}

// One integer from a read-only connection to the SQLite file at path, which waits up to 5 s
// for a writer (a live daemon's store); -1 when the query fails or returns no row.
inline int64_t raw_int(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* st = nullptr;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

// One integer from a query run straight on the database behind `t` (the SQLite file, or the
// PostgreSQL database over libpq); -1 when the query fails or returns no row.
inline int64_t raw_int(const StoreUnderTest& t, const std::string& sql) {
  if (t.backend == "sqlite") return raw_int(t.spec.path, sql);
  PGconn* c = PQconnectdb(t.spec.url.c_str());
  REQUIRE(PQstatus(c) == CONNECTION_OK);
  PGresult* r = PQexec(c, sql.c_str());
  int64_t v = -1;
  if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
    v = std::stoll(PQgetvalue(r, 0, 0));
  PQclear(r);
  PQfinish(c);
  return v;
}

inline ingest::Event full_event(int i) {
  ingest::Event e;
  e.time_us = 1'700'000'000'000'000 + i;
  e.source = ingest::EventSource::counters;
  e.kind = "counter_jump";
  e.severity = ingest::Severity::critical;
  e.node_guid = 0xfe80'0000'0000'0001ULL + i;  // top bit set: stored as a negative INTEGER
  e.port = 36;
  e.lid = 0xffff;
  e.trap_number = 131;
  e.message = "SymbolErrorCounter +12 \"quoted\" ünïcode, comma";
  e.node = "leaf003";
  e.peer_node = "spine001";
  e.peer_port = 17;
  e.peer_guid = 0x8000'0000'0000'0000ULL;
  e.cable_id = "C-leaf003-36";
  e.dedup_key = "counters:" + std::to_string(i);
  return e;
}

inline void check_same_event(const ingest::Event& a, const ingest::Event& b) {
  CHECK(a.time_us == b.time_us);
  CHECK(a.source == b.source);
  CHECK(a.kind == b.kind);
  CHECK(a.severity == b.severity);
  CHECK(a.node_guid == b.node_guid);
  CHECK(a.port == b.port);
  CHECK(a.lid == b.lid);
  CHECK(a.trap_number == b.trap_number);
  CHECK(a.message == b.message);
  CHECK(a.node == b.node);
  CHECK(a.peer_node == b.peer_node);
  CHECK(a.peer_port == b.peer_port);
  CHECK(a.peer_guid == b.peer_guid);
  CHECK(a.cable_id == b.cable_id);
  CHECK(a.dedup_key == b.dedup_key);
}

inline ingest::CounterSample big_sample(uint64_t guid, int port, int64_t t) {
  ingest::CounterSample c;
  c.node_guid = guid;
  c.port = port;
  c.time_us = t;
  for (size_t i = 0; i < ingest::kCounterCount; ++i)
    c.value[i] = (uint64_t{1} << 32) + i * 0x1'0000'0001ULL + static_cast<uint64_t>(t);
  c.value[12] = std::numeric_limits<uint64_t>::max();
  c.value[13] = uint64_t{1} << 63;
  c.valid = 0x1fffe;
  c.saturated = 0x5;
  c.extended = true;
  return c;
}

inline void check_same_sample(const ingest::CounterSample& a, const ingest::CounterSample& b) {
  CHECK(a.time_us == b.time_us);
  CHECK(a.node_guid == b.node_guid);
  CHECK(a.port == b.port);
  CHECK(a.value == b.value);
  CHECK(a.valid == b.valid);
  CHECK(a.saturated == b.saturated);
  CHECK(a.extended == b.extended);
}

inline store::PortRecord full_port(uint64_t guid, int port, const std::string& node) {
  store::PortRecord p;
  p.node_guid = guid;
  p.port = port;
  p.node = node;
  p.lid = 0xbfff;
  p.peer_guid = 0xffff'ffff'ffff'fffeULL;
  p.peer_node = "spine001";
  p.peer_port = 9;
  p.cable_id = "C-" + node;
  p.state = 4;
  p.phys_state = 5;
  p.width = 4;
  p.speed = "NDR";
  p.counters = big_sample(guid, port, 42);
  p.rates = {1.0 / 3, 1e300, 4.9e-324, -0.0, 123456789.123456789, 0.1, 2.5e-8};
  p.rates[7] = std::numeric_limits<double>::infinity();
  p.rates[8] = -std::numeric_limits<double>::infinity();
  p.rates[9] = std::numeric_limits<double>::quiet_NaN();
  p.rates_valid = 0x3ff;
  p.deltas = {1, 0, 65535, UINT64_MAX, 1ULL << 40};
  p.deltas_valid = 0x1f;
  p.deltas_at_least = 0x4;
  p.last_change_us = 1'700'000'123'456'789;
  return p;
}

inline void check_same_port(const store::PortRecord& a, const store::PortRecord& b) {
  CHECK(a.node_guid == b.node_guid);
  CHECK(a.port == b.port);
  CHECK(a.node == b.node);
  CHECK(a.lid == b.lid);
  CHECK(a.peer_guid == b.peer_guid);
  CHECK(a.peer_node == b.peer_node);
  CHECK(a.peer_port == b.peer_port);
  CHECK(a.cable_id == b.cable_id);
  CHECK(a.state == b.state);
  CHECK(a.phys_state == b.phys_state);
  CHECK(a.width == b.width);
  CHECK(a.speed == b.speed);
  check_same_sample(a.counters, b.counters);
  for (size_t i = 0; i < a.rates.size(); ++i) {
    INFO("rate " << i);
    if (std::isnan(a.rates[i]))
      CHECK(std::isnan(b.rates[i]));
    else
      CHECK(std::bit_cast<uint64_t>(a.rates[i]) == std::bit_cast<uint64_t>(b.rates[i]));
  }
  CHECK(a.rates_valid == b.rates_valid);
  CHECK(a.deltas == b.deltas);
  CHECK(a.deltas_valid == b.deltas_valid);
  CHECK(a.deltas_at_least == b.deltas_at_least);
  CHECK(a.last_change_us == b.last_change_us);
}

inline void check_same_aggregate(const store::SampleAggregate& a, const store::SampleAggregate& b) {
  CHECK(a.node_guid == b.node_guid);
  CHECK(a.port == b.port);
  CHECK(a.bucket_us == b.bucket_us);
  CHECK(a.sample_count == b.sample_count);
  CHECK(a.first_time_us == b.first_time_us);
  check_same_sample(a.last, b.last);
  CHECK(a.max_delta == b.max_delta);
  CHECK(a.delta_valid == b.delta_valid);
}

inline size_t event_count(store::Store& s) {
  store::EventQuery q;
  q.limit = 0;
  return s.events(q).size();
}

}  // namespace ibw::store_test
