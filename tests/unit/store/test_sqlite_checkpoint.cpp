// The SQLite store's checkpoints on their own thread (store/sqlite_checkpoint.h), on a bare
// connection in WAL mode: the writer's commits only ask; the thread copies the WAL into the
// database file; a commit checkpoints in place only when the WAL reached the bound or the
// thread's last checkpoint failed, so the WAL stays bounded whatever the thread does.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "store/sqlite_checkpoint.h"
#include "tests/unit/test_store_helpers.h"

using ibw::store::sqlite_detail::Checkpointer;
using ibw::store_test::TempDir;

namespace {

// A connection to a new WAL file with 4 KiB pages and SQLite's automatic checkpoints on.
struct Writer {
  sqlite3* db = nullptr;
  explicit Writer(const std::string& path) {
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    exec("PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE t (v BLOB)");
  }
  ~Writer() { sqlite3_close_v2(db); }
  void exec(const std::string& sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    INFO(sql << ": " << (err ? err : ""));
    sqlite3_free(err);
    REQUIRE(rc == SQLITE_OK);
  }
  // One commit of `pages` pages of fresh rows.
  void commit_pages(int pages) {
    exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
         std::to_string(pages) + ") INSERT INTO t SELECT randomblob(4000) FROM n");
  }
  // Frames in the WAL and how many of them are in the database file (a PASSIVE checkpoint
  // of nothing new: it reports both without waiting).
  std::pair<int, int> wal_frames() {
    int log = -1, done = -1;
    sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_PASSIVE, &log, &done);
    return {log, done};
  }
};

}  // namespace

TEST_CASE("sqlite checkpoints: commits ask and the thread copies the WAL into the file",
          "[store]") {
  TempDir dir;
  const std::string path = dir.file("c.db");
  Writer w(path);
  Checkpointer::Options o;
  o.ask_pages = 100;
  Checkpointer c(w.db, path, 4096, o);
  w.commit_pages(50);  // under the threshold: nothing asked
  CHECK(c.stats().asked == 0);
  w.commit_pages(80);
  REQUIRE(c.wait_idle(10'000));
  auto s = c.stats();
  CHECK(s.asked == 1);
  CHECK(s.done == 1);
  CHECK(s.in_commit == 0);
  CHECK(s.failed == 0);
  // Checkpointed whole by the thread; the next write restarts the WAL from its beginning.
  const auto size = std::filesystem::file_size(path);
  CHECK(size > 130 * 4096);
  w.commit_pages(10);
  auto [log, done] = w.wal_frames();
  INFO("wal frames " << log << ", checkpointed " << done);
  CHECK(log < 50);  // only what was written since (plus the rest of its transaction)
}

TEST_CASE("sqlite checkpoints: a commit checkpoints in place at the bound or after a failure",
          "[store]") {
  TempDir dir;
  const std::string path = dir.file("c.db");
  Writer w(path);
  SECTION("the WAL reached inline_bytes") {
    Checkpointer::Options o;
    o.ask_pages = 100;
    o.inline_bytes = 200 * 4096;
    Checkpointer c(w.db, path, 4096, o);
    w.commit_pages(250);  // one transaction past the bound: checkpointed in its commit
    auto s = c.stats();
    CHECK(s.in_commit == 1);
    CHECK(s.asked == 0);
    auto [log, done] = w.wal_frames();
    CHECK(log == done);  // every frame already copied (no reader held any back)
  }
  SECTION("the thread cannot open the file: each commit checkpoints in place, and says why") {
    Checkpointer::Options o;
    o.ask_pages = 100;
    Checkpointer c(w.db, dir.file("missing/c.db"), 4096, o);  // the thread's path does not open
    w.commit_pages(120);
    REQUIRE(c.wait_idle(10'000));
    auto s = c.stats();
    CHECK(s.failed == 1);
    CHECK(s.failing);
    CHECK(s.in_commit == 0);
    CHECK(s.last_error.find("missing/c.db") != std::string::npos);
    w.commit_pages(120);  // the WAL was never checkpointed: this commit does it
    REQUIRE(c.wait_idle(10'000));
    s = c.stats();
    CHECK(s.in_commit == 1);
    CHECK(s.failed == 2);  // asked again (it may recover), and failed again
    auto [log, done] = w.wal_frames();
    CHECK(log == done);
  }
}
