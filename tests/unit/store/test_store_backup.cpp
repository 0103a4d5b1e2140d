// store::backup_store (store/backup.h) during a busy ingest: a writer thread commits numbered
// batches without pause while copies are taken. Every copy must open as a store, hold every
// batch committed before the copy started, and hold only whole batches (its cursor and its
// rows agree). And the refusals: an existing FILE, a missing store, a file that is not SQLite,
// an SQLite file that is not an ibwarden store; none leaves a file behind.
// SQLite only: a backup is a copy of the SQLite file (PostgreSQL has pg_dump and its own tools).
#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "store/backup.h"
#include "store/store.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using ibw::store_test::raw_exec;
using ibw::store_test::raw_int;
using ibw::store_test::TempDir;

namespace {

constexpr int kEventsPerBatch = 25;

store::WriteBatch backup_batch(int n) {
  store::WriteBatch b;
  for (int j = 0; j < kEventsPerBatch; ++j) {
    ingest::Event e;
    e.time_us = 1'700'000'000'000'000 + n;
    e.kind = "trap";
    e.node_guid = 0x200 + j;
    e.port = 1;
    e.message = "batch " + std::to_string(n) + std::string(300, 'x');
    e.dedup_key = "b" + std::to_string(n) + "/e" + std::to_string(j);
    b.events.push_back(e);
  }
  b.cursors.push_back({"src", std::to_string(n)});
  return b;
}

size_t files_in(const std::filesystem::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& f : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("store backup: copies taken during a busy ingest hold every committed batch whole",
          "[store][backup]") {
  TempDir dir;
  const std::string path = dir.file("ibwarden.db");
  auto db = store::Store::open(path);
  db->write(backup_batch(1));
  // committed: every batch up to it is committed; started: no batch after it has begun (a
  // batch commits before `committed` says so: a copy may hold one more than it read).
  std::atomic<int> committed{1}, started{1};
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int n = 2; !stop; ++n) {
      started = n;
      db->write(backup_batch(n));
      committed = n;
    }
  });
  for (int i = 0; i < 6; ++i) {
    while (committed < 40 * (i + 1)) std::this_thread::yield();  // let the ingest run
    const int before = committed.load();
    const std::string copy = dir.file("copy" + std::to_string(i) + ".db");
    store::BackupResult r = store::backup_store(path, copy);
    const int after = started.load();
    CHECK(r.pages > 0);
    CHECK(r.bytes == static_cast<int64_t>(std::filesystem::file_size(copy)));
    auto c = store::Store::open(copy, /*read_only=*/true);
    auto cursor = c->cursor("src");
    REQUIRE(cursor.has_value());
    const int n = std::stoi(*cursor);
    INFO("copy " << i << ": cursor " << n << ", committed before " << before
                 << ", started by the end " << after);
    CHECK(n >= before);  // nothing committed before the copy began is missing
    CHECK(n <= after);
    CHECK(raw_int(copy, "SELECT count(*) FROM events") == int64_t{n} * kEventsPerBatch);
    CHECK(raw_int(copy, "SELECT count(DISTINCT dedup_key) FROM events") ==
          int64_t{n} * kEventsPerBatch);
  }
  stop = true;
  writer.join();
  // The source is untouched and still takes writes after the copies.
  int last = committed.load();
  db->write(backup_batch(last + 1));
  CHECK(db->cursor("src") == std::to_string(last + 1));
  // No temporary file is left: the store, its WAL and shm, and the six copies.
  CHECK(files_in(dir.path) <= 3 + 6);
}

TEST_CASE("store backup: refusals name the file and leave nothing behind", "[store][backup]") {
  TempDir dir;
  const std::string path = dir.file("ibwarden.db");
  store::Store::open(path)->write(backup_batch(1));
  const std::string existing = dir.file("existing.db");
  std::ofstream(existing) << "keep me";

  auto error_of = [](const std::string& src, const std::string& dst) -> std::string {
    try {
      store::backup_store(src, dst);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(error_of(path, existing), Catch::Contains(existing) && Catch::Contains("exists"));
  std::ifstream in(existing);
  std::string kept;
  std::getline(in, kept);
  CHECK(kept == "keep me");

  CHECK_THAT(error_of(dir.file("missing.db"), dir.file("a.db")),
             Catch::Contains("missing.db") && Catch::Contains("no store"));
  const std::string garbage = dir.file("garbage.db");
  std::ofstream(garbage) << std::string(8192, 'g');
  CHECK_THAT(error_of(garbage, dir.file("b.db")), Catch::Contains("garbage.db"));
  const std::string other = dir.file("other.db");
  raw_exec(other, "CREATE TABLE t(x)");
  CHECK_THAT(error_of(other, dir.file("c.db")), Catch::Contains("not an ibwarden store"));
  CHECK_THAT(error_of(path, dir.file("no/such/dir/d.db")), Catch::Contains("d.db"));
  for (const char* f : {"a.db", "b.db", "c.db"}) CHECK_FALSE(std::filesystem::exists(dir.file(f)));
  for (const auto& f : std::filesystem::directory_iterator(dir.path))
    CHECK(f.path().string().find(".tmp-") == std::string::npos);
}
