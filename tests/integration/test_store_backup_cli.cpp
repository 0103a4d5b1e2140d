// Integration: `ibwarden store backup FILE` while the daemon ingests a busy OpenSM log.
// A writer thread appends trap lines without pause; backups are taken meanwhile. Each copy
// opens, passes integrity_check, and holds every event the live store had committed just
// before the backup started, identical row for row; no temporary file is left. At the end
// every line written is in the live store once. Errors exit 2 and name the file.
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/integration/daemon_fixture.h"
#include "tests/test_paths.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw::test;

namespace store_backup_cli {

std::string trap_line(int i) {
  return trap129_line(i, 2, i);
}

// One integer from a read-only connection that waits out the daemon's writes.
using ibw::store_test::raw_int;

std::string sql_text(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string v;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
      v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return v;
}

// A digest of the events with id <= max_id, to compare the copy and the live store row by row.
std::string digest_sql(int64_t max_id) {
  return "SELECT count(*) || ':' || sum(id) || ':' || sum(length(message)) || ':' || "
         "group_concat(substr(message, -12), '') FROM (SELECT id, message FROM events WHERE id "
         "<= " +
         std::to_string(max_id) + " ORDER BY id)";
}

TEST_CASE("store backup: copies taken while the daemon ingests hold every committed event",
          "[integration][store][backup][cli]") {
  namespace fs = std::filesystem;
  std::string dir = topology_dir("ibw-bak-");
  const std::string config = dir + "/ibwarden.yaml", live = dir + "/ibwarden.db";
  ibw::lab::tailing_config("20ms").write(config);
  std::ofstream(dir + "/opensm.log") << trap_line(0);
  Daemon d({config, dir, "", dir + "/daemon.log"});
  d.start();
  REQUIRE(d.wait_log("fabric discovered", 1, std::chrono::seconds(10)));

  std::atomic<bool> stop{false};
  std::atomic<int> written{1};
  std::thread writer([&] {
    std::ofstream out(dir + "/opensm.log", std::ios::app);
    while (!stop) {
      for (int k = 0; k < 20; ++k) out << trap_line(written++);
      out << std::flush;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  for (int i = 0; i < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    const int64_t before = raw_int(live, "SELECT max(id) FROM events");
    REQUIRE(before > 0);
    const std::string copy = dir + "/backup" + std::to_string(i) + ".db";
    CmdResult r = run_cmd({IBW_BINARY, "store", "backup", copy, "--config", config});
    INFO("backup " << i << ": " << r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find(copy) != std::string::npos);
    CHECK(sql_text(copy, "PRAGMA integrity_check") == "ok");
    const int64_t in_copy = raw_int(copy, "SELECT max(id) FROM events");
    CHECK(in_copy >= before);  // nothing committed before the backup began is missing
    CHECK(sql_text(copy, digest_sql(in_copy)) == sql_text(live, digest_sql(in_copy)));
    CHECK(raw_int(copy, "SELECT count(*) FROM cursors") >= 1);
  }
  stop = true;
  writer.join();
  for (const auto& f : fs::directory_iterator(dir))
    CHECK(f.path().string().find(".tmp-") == std::string::npos);

  // Errors: exit 2, the file named; an existing FILE is left as it was.
  CmdResult again =
      run_cmd({IBW_BINARY, "store", "backup", dir + "/backup0.db", "--config", config});
  CHECK(again.status == 2);
  CHECK(again.err.find("backup0.db") != std::string::npos);
  DaemonConfig().set("store", "path", "missing.db").null("rules").write(dir + "/other.yaml");
  CmdResult missing =
      run_cmd({IBW_BINARY, "store", "backup", dir + "/x.db", "--config", dir + "/other.yaml"});
  CHECK(missing.status == 2);
  CHECK(missing.err.find("missing.db") != std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/x.db"));

  // The ingest itself lost and repeated nothing while the copies were taken.
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (raw_int(live, "SELECT count(*) FROM events WHERE kind = 'trap'") < written &&
         std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(raw_int(live, "SELECT count(*) FROM events WHERE kind = 'trap'") == written.load());
  CHECK(d.stop() == 0);
  fs::remove_all(dir);
}

}  // namespace store_backup_cli
