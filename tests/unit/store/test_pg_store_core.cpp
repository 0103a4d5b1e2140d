// PostgreSQL-specific behaviour of the store's core (store/pg_store.h): leases (take, renew,
// expire, takeover at epoch + 1, release), the fence of a leader's writes, many fabrics in one
// database, migrations of instances starting together, statements sent ahead (Db::send), and
// a differential run of the same batches through SqliteStore and PgStore. Each case gets a
// fresh database on the test server (tests/lab/pg_server.h). The Store behaviour both backends
// share is in test_store*.cpp.
#if __has_include("tests/lab/pg_server.h")

#include <libpq-fe.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include "store/pg_schema.h"
#include "store/pg_store.h"
#include "tests/lab/pg_server.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using namespace ibw::store_test;
using store::Store;

namespace {

store::StoreSpec pg_spec(const std::string& url, const std::string& fabric) {
  return pg_store_spec(url, fabric);
}

int64_t scalar(const std::string& url, const std::string& sql) {
  store::pg_detail::Db db(url, "");
  return db.exec(sql).i64(0, 0);
}

constexpr int64_t kMinute = 60LL * 1000000;

ingest::Event event(int i, const std::string& key) {
  ingest::Event e = full_event(i);
  e.dedup_key = key;
  return e;
}

}  // namespace

TEST_CASE("pg store: leases are taken renewed expire are taken over at epoch + 1 and released") {
  const std::string url = lab::pg_test_database("ibwlease");
  auto s = Store::open(pg_spec(url, "fab"));
  CHECK_FALSE(s->lease());
  CHECK(s->fabrics().empty());

  store::Lease a = s->take_lease("a", 0, kMinute, R"(["opensm"])");
  CHECK(a.taken);
  CHECK(a.holder == "a");
  CHECK(a.epoch == 1);
  CHECK(a.expires_us > a.now_us);
  CHECK(a.expires_us <= a.now_us + kMinute);
  CHECK(a.sources == R"(["opensm"])");
  CHECK(a.fabric == "fab");

  // Another instance while it is held: unchanged.
  store::Lease b = s->take_lease("b", 0, kMinute, "[]");
  CHECK_FALSE(b.taken);
  CHECK(b.holder == "a");
  CHECK(b.epoch == 1);
  CHECK(b.sources == R"(["opensm"])");
  // The same name at another epoch (a restarted process) is not the holder either.
  CHECK_FALSE(s->take_lease("a", 7, kMinute, "[]").taken);

  // Renewal: same epoch, later expiry, new sources.
  store::Lease r = s->take_lease("a", 1, kMinute, "[]");
  CHECK(r.taken);
  CHECK(r.epoch == 1);
  CHECK(r.expires_us >= a.expires_us);
  CHECK(r.sources == "[]");

  // Let it expire (renewed for 1 ms), then b takes over at epoch 2.
  s->take_lease("a", 1, 1000, "[]");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  store::Lease t = s->take_lease("b", 0, kMinute, "[]");
  CHECK(t.taken);
  CHECK(t.holder == "b");
  CHECK(t.epoch == 2);
  CHECK_FALSE(s->take_lease("a", 1, kMinute, "[]").taken);  // the old holder cannot renew

  auto fabrics = s->fabrics();
  REQUIRE(fabrics.size() == 1);
  CHECK(fabrics[0].name == "fab");
  REQUIRE(fabrics[0].lease);
  CHECK(fabrics[0].lease->holder == "b");
  CHECK(fabrics[0].lease->epoch == 2);

  // Release: only by the holder at its epoch; then anyone takes it at once.
  CHECK_FALSE(s->release_lease("a", 1));
  CHECK_FALSE(s->release_lease("b", 1));
  CHECK(s->release_lease("b", 2));
  CHECK_FALSE(s->release_lease("b", 2));  // no longer held
  auto l = s->lease();
  REQUIRE(l);
  CHECK(l->expires_us <= l->now_us);
  store::Lease c = s->take_lease("a", 1, kMinute, "[]");
  CHECK(c.taken);
  CHECK(c.holder == "a");
  CHECK(c.epoch == 3);

  // Read-only stores see the lease but cannot take it.
  auto ro = Store::open(pg_spec(url, "fab"), /*read_only=*/true);
  REQUIRE(ro->lease());
  CHECK(ro->lease()->holder == "a");
  CHECK_THROWS_AS(ro->take_lease("a", 3, kMinute, "[]"), store::StoreError);
}

TEST_CASE("pg store: a fenced write after a takeover throws StoreFenced and writes nothing") {
  const std::string url = lab::pg_test_database("ibwfence");
  auto admin = Store::open(pg_spec(url, "fab"));
  REQUIRE(admin->take_lease("a", 0, 1000, "[]").epoch == 1);

  store::StoreSpec spec = pg_spec(url, "fab");
  spec.fence = store::Fence{"a", 1};
  auto leader = Store::open(spec);
  store::WriteBatch first;
  first.events = {event(1, "k1")};
  first.cursors = {{"opensm", "1"}};
  CHECK(leader->write(first).events_inserted == 1);

  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(admin->take_lease("b", 0, kMinute, "[]").epoch == 2);

  store::WriteBatch late;
  late.events = {event(2, "k2")};
  late.samples = {big_sample(5, 1, 100)};
  late.ports = {full_port(5, 1, "n5")};
  late.cursors = {{"opensm", "2"}};
  CHECK_THROWS_AS(leader->write(late), store::StoreFenced);
  CHECK_THROWS_AS(leader->compact(1'800'000'000'000'000, store::Retention{}), store::StoreFenced);
  CHECK(event_count(*admin) == 1);
  CHECK(admin->cursor("opensm") == "1");
  CHECK(admin->ports().empty());
  CHECK(admin->samples(5, 1, 0).empty());
  // The connection is usable after the rollback: an unfenced store of the same fabric
  // writes, and the new holder's fenced store too.
  spec.fence = store::Fence{"b", 2};
  CHECK(Store::open(spec)->write(late).events_inserted == 1);
  CHECK(event_count(*admin) == 2);
  CHECK_THROWS_AS(leader->write(late), store::StoreFenced);
}

TEST_CASE("pg store: two fabrics in one database do not see each other's rows") {
  const std::string url = lab::pg_test_database("ibwfab");
  auto a = Store::open(pg_spec(url, "alpha"));
  auto b = Store::open(pg_spec(url, "beta"));
  auto write = [](Store& s, const std::string& node, int64_t t0) {
    store::WriteBatch w;
    w.events = {event(1, "same-key")};
    w.events[0].node = node;
    w.samples = {big_sample(7, 1, t0), big_sample(7, 1, t0 + kMinute)};
    w.ports = {full_port(7, 1, node)};
    ingest::UfmPortState u;
    u.node_guid = 7;
    u.port = 1;
    u.name = node;
    w.ufm_ports = {u};
    w.cursors = {{"opensm", node}};
    return s.write(w);
  };
  CHECK(write(*a, "a-node", 0).events_inserted == 1);
  CHECK(write(*b, "b-node", 10 * 3600 * kMinute).events_inserted == 1);  // same dedup key

  for (auto [s, node] : {std::pair{a.get(), "a-node"}, std::pair{b.get(), "b-node"}}) {
    INFO(node);
    auto ev = s->events({});
    REQUIRE(ev.size() == 1);
    CHECK(ev[0].event.node == node);
    auto ports = s->ports();
    REQUIRE(ports.size() == 1);
    CHECK(ports[0].node == node);
    REQUIRE(ports[0].ufm);
    CHECK(ports[0].ufm->name == node);
    CHECK(s->ufm_ports().size() == 1);
    CHECK(s->cursor("opensm") == node);
    CHECK(s->samples(7, 1, 0).size() == 2);
    CHECK(s->ports("0x7").size() == 1);
  }
  // Compacting alpha folds only alpha's samples.
  a->compact(3 * 24 * 60 * kMinute, store::Retention{});  // 3 days
  CHECK(a->samples(7, 1, 0).empty());
  CHECK(a->aggregates(7, 1, 0).size() == 1);
  CHECK(b->samples(7, 1, 0).size() == 2);
  CHECK(b->aggregates(7, 1, 0).empty());

  b->take_lease("x", 0, kMinute, "[]");
  auto fabrics = a->fabrics();
  REQUIRE(fabrics.size() == 2);
  CHECK(fabrics[0].name == "alpha");
  CHECK_FALSE(fabrics[0].lease);
  CHECK(fabrics[1].name == "beta");
  REQUIRE(fabrics[1].lease);
  CHECK(fabrics[1].lease->holder == "x");
  CHECK(scalar(url, "SELECT count(*) FROM events") == 2);
}

TEST_CASE("pg store: instances opening a new database together migrate it once") {
  const std::string url = lab::pg_test_database("ibwmig");
  // Read-only opens never create the schema.
  CHECK_THROWS_WITH(Store::open(pg_spec(url, "f"), true), Catch::Contains("not initialised"));
  std::vector<std::thread> threads;
  std::vector<std::string> errors(6);
  for (size_t i = 0; i < errors.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        auto s = Store::open(pg_spec(url, "f" + std::to_string(i)));
        if (s->schema_version() != store::pg_schema::latest_version()) errors[i] = "version";
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (const std::string& e : errors) CHECK(e == "");
  CHECK(scalar(url, "SELECT count(*) FROM ibwarden_schema") == store::pg_schema::latest_version());
  CHECK(Store::open(pg_spec(url, "f"), true)->schema_version() ==
        store::pg_schema::latest_version());

  // A newer schema (a later ibwarden migrated it) is refused, untouched, both ways.
  store::pg_detail::Db(url, "").exec(
      "INSERT INTO ibwarden_schema VALUES (999, 'from the future', 0)");
  CHECK_THROWS_WITH(Store::open(pg_spec(url, "f")), Catch::Contains("newer"));
  CHECK_THROWS_WITH(Store::open(pg_spec(url, "f"), true), Catch::Contains("newer"));
}

TEST_CASE("pg store: a wrong server or password fails naming the server without the password") {
  const std::string url = lab::pg_test_database("ibwconn");
  store::StoreSpec spec = pg_spec(url + "&dbname=no_such_db_ibw", "f");
  spec.password = "sekrit";
  try {
    Store::open(spec);
    FAIL("opened a missing database");
  } catch (const store::StoreError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("no_such_db_ibw") != std::string::npos);
    CHECK(msg.find("sekrit") == std::string::npos);
  }
  CHECK(store::pg_detail::mask_password("postgresql://u:pw@h/db") == "postgresql://u:***@h/db");
  CHECK(store::pg_detail::mask_password("host=h password=pw dbname=d") ==
        "host=h password=*** dbname=d");
}

TEST_CASE("pg store: a statement sent ahead is checked by the next call and rolls back with it") {
  using store::pg_detail::Db;
  using store::pg_detail::Params;
  using store::pg_detail::Transaction;
  const std::string url = lab::pg_test_database("ibwsend");
  Db db(url, "");
  db.exec("CREATE TABLE t (x integer PRIMARY KEY)");
  const std::string insert = "INSERT INTO t SELECT unnest($1::integer[])";
  CHECK_THROWS_WITH(db.send(insert, Params().text("{1}")),
                    Catch::Contains("a statement sent ahead needs a transaction"));
  {  // succeeds: the next statement sees its rows, commit keeps them
    Transaction tx(db);
    db.send(insert, Params().text("{1,2}"));
    CHECK(db.exec("SELECT count(*) FROM t").i64(0, 0) == 2);
    db.send(insert, Params().text("{3}"));
    tx.commit();  // finishes the second one first
  }
  CHECK(db.exec("SELECT count(*) FROM t").i64(0, 0) == 3);
  {  // fails: thrown by the next statement, naming the one sent; the transaction rolls back
    Transaction tx(db);
    db.send(insert, Params().text("{4}"));
    db.send(insert, Params().text("{1}"));  // duplicate key
    try {
      db.exec("SELECT 1");
      FAIL("the failed statement was not reported");
    } catch (const store::pg_detail::DbError& e) {
      CHECK(std::string(e.what()).find("INSERT INTO t") != std::string::npos);
      CHECK(e.sqlstate() == "23505");
    }
  }
  {  // fails and is found by commit: nothing of the transaction is kept
    Transaction tx(db);
    db.send(insert, Params().text("{5,5}"));
    CHECK_THROWS_AS(tx.commit(), store::pg_detail::DbError);
  }
  {  // in flight when the transaction is abandoned: rolled back, the connection still works
    Transaction tx(db);
    db.send(insert, Params().text("{6}"));
  }
  CHECK(db.exec("SELECT count(*) FROM t").i64(0, 0) == 3);
  CHECK(db.exec("SELECT max(x) FROM t").i64(0, 0) == 3);
}

#endif  // tests/lab/pg_server.h
