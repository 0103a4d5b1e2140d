// Store: cursors across reopen and read-only opens on both backends; SQLite only: atomic
// batches through its failure hook, lock contention, schema versions and refused files.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "store/schema.h"
#include "store/sqlite_store.h"
#include "store/store.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using namespace ibw::store_test;
using store::Store;
using store::StoreError;

TEST_CASE("store: a batch failing midway leaves nothing behind", "[store]") {
  // SQLite only: the failure hook (fail_write_after_rows_for_testing) is SqliteStore's.
  TempDir dir;
  const std::string path = dir.file("w.db");
  store::SqliteStore s(path, {});
  store::WriteBatch first;
  first.events = {full_event(1)};
  first.ports = {full_port(0x10, 1, "a")};
  first.cursors = {{"opensm", "inode:1:offset:100"}};
  s.write(first);

  store::WriteBatch b;
  for (int i = 10; i < 20; ++i) b.events.push_back(full_event(i));
  for (int i = 0; i < 10; ++i) b.samples.push_back(big_sample(0x10, 1, i));
  store::PortRecord p = full_port(0x10, 1, "a");
  p.state = 1;
  b.ports = {p, full_port(0x11, 1, "b")};
  b.cursors = {{"opensm", "inode:1:offset:999"}, {"ufm", "7"}};

  // Fail in each part: events (3), samples (15), ports (21), the last cursor (24).
  for (size_t fail_at : {1, 3, 15, 21, 24}) {
    INFO("failing after row " << fail_at);
    s.fail_write_after_rows_for_testing(fail_at);
    CHECK_THROWS_AS(s.write(b), StoreError);
    CHECK(event_count(s) == 1);
    CHECK(s.samples(0x10, 1, 0).empty());
    auto ports = s.ports();
    REQUIRE(ports.size() == 1);
    CHECK(ports[0].state == 4);
    CHECK(s.cursor("opensm") == "inode:1:offset:100");
    CHECK_FALSE(s.cursor("ufm").has_value());
  }
  // The store stays usable, and the same batch then lands whole.
  auto r = s.write(b);
  CHECK(r.events_inserted == 10);
  CHECK(event_count(s) == 11);
  CHECK(s.samples(0x10, 1, 0).size() == 10);
  CHECK(s.ports().size() == 2);
  CHECK(s.cursor("opensm") == "inode:1:offset:999");
  CHECK(s.cursor("ufm") == "7");
}

TEST_CASE("store: a write blocked by another writer fails cleanly after busy_timeout", "[store]") {
  // SQLite only: its file lock and busy_timeout.
  TempDir dir;
  const std::string path = dir.file("w.db");
  store::SqliteStore s(path, {.busy_timeout_ms = 50});
  s.write({.cursors = {{"opensm", "1"}}});
  sqlite3* other = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &other) == SQLITE_OK);
  REQUIRE(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
  try {
    s.write({.events = {full_event(1)}, .cursors = {{"opensm", "2"}}});
    FAIL("write succeeded while another connection held the write lock");
  } catch (const StoreError& e) {
    CHECK_THAT(e.what(), Catch::Contains(path) && Catch::Contains("locked"));
  }
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  CHECK(s.cursor("opensm") == "1");
  CHECK(event_count(s) == 0);
  s.write({.cursors = {{"opensm", "3"}}});
  CHECK(s.cursor("opensm") == "3");
}

TEST_CASE("store: cursors persist across reopen", "[store]") {
  STORE_BACKEND(backend);
  auto db = open_test_store(backend);
  {
    auto s = db.open();
    CHECK_FALSE(s->cursor("opensm").has_value());
    s->write({.cursors = {{"opensm", "a"}, {"ufm", "b"}}});
    s->write({.cursors = {{"opensm", "c"}}});
  }
  auto s = db.open();
  CHECK(s->cursor("opensm") == "c");
  CHECK(s->cursor("ufm") == "b");
  auto ro = db.open(true);
  CHECK(ro->cursor("opensm") == "c");
}

TEST_CASE("store: schema version is recorded - newer or foreign files are refused", "[store]") {
  // SQLite only: PRAGMA user_version and application_id of a file, and files not ours.
  TempDir dir;
  const std::string path = dir.file("w.db");
  {
    auto s = Store::open(path);
    CHECK(s->schema_version() == store::schema::latest_version());
    CHECK(s->schema_version() >= 1);
  }
  CHECK(Store::open(path)->schema_version() == store::schema::latest_version());
  CHECK(raw_int(path, "PRAGMA user_version") == store::schema::latest_version());
  CHECK(raw_int(path, "PRAGMA application_id") == store::schema::kApplicationId);
  CHECK(raw_int(path, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'") == 1);
  CHECK(raw_int(path, "PRAGMA page_size") == 16384);  // a new file: 16 KiB pages

  SECTION("a file made with 4 KiB pages keeps them and works") {
    const std::string old = dir.file("old.db");
    raw_exec(old, "PRAGMA page_size = 4096; PRAGMA user_version = 0");
    {
      auto s = Store::open(old);
      s->write({.cursors = {{"opensm", "1"}}});
    }
    CHECK(raw_int(old, "PRAGMA page_size") == 4096);
    CHECK(Store::open(old)->cursor("opensm") == "1");
  }

  SECTION("a newer schema") {
    raw_exec(path, "PRAGMA user_version = 99");
    for (bool ro : {false, true}) {
      try {
        Store::open(path, ro);
        FAIL("opened a future schema");
      } catch (const StoreError& e) {
        CHECK_THAT(e.what(),
                   Catch::Contains(path) && Catch::Contains("99") && Catch::Contains("newer"));
      }
    }
  }
  SECTION("someone else's SQLite database") {
    const std::string other = dir.file("other.db");
    raw_exec(other, "CREATE TABLE t (x)");
    CHECK_THROWS_WITH(Store::open(other), Catch::Contains("not an ibwarden store"));
    raw_exec(path, "PRAGMA application_id = 1234");
    CHECK_THROWS_WITH(Store::open(path), Catch::Contains("not an ibwarden store"));
  }
  SECTION("not a database at all") {
    const std::string junk = dir.file("junk.db");
    std::FILE* f = std::fopen(junk.c_str(), "w");
    std::fputs("this is not an SQLite file, not even close; padding padding padding\n", f);
    std::fclose(f);
    CHECK_THROWS_WITH(Store::open(junk), Catch::Contains(junk));
  }
  SECTION("read-only never migrates") {
    const std::string empty = dir.file("empty.db");
    raw_exec(empty, "PRAGMA user_version = 0");
    CHECK_THROWS_WITH(Store::open(empty, true), Catch::Contains("not initialised"));
  }
}

TEST_CASE("store: read-only open of a missing file names it and creates nothing", "[store]") {
  // SQLite only: a file path.
  TempDir dir;
  const std::string path = dir.file("missing.db");
  try {
    Store::open(path, true);
    FAIL("opened a missing file");
  } catch (const StoreError& e) {
    CHECK_THAT(e.what(), Catch::Contains(path) && Catch::Contains("No such file"));
  }
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("store: a read-only store reads what was written and refuses writes", "[store]") {
  STORE_BACKEND(backend);
  auto db = open_test_store(backend);
  db.open()->write({.events = {full_event(1)}, .cursors = {{"x", "1"}}});
  auto ro = db.open(true);
  CHECK(event_count(*ro) == 1);
  CHECK_THROWS_AS(ro->write({.cursors = {{"x", "2"}}}), StoreError);
  CHECK_THROWS_AS(ro->compact(0, {}), StoreError);
  CHECK(ro->cursor("x") == "1");
}
