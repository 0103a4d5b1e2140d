// store/backup.h: SQLite's online backup API, copied in one step so the copy is one snapshot.
#include "store/backup.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace ibw::store {
namespace backup_detail {

struct Closer {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Handle = std::unique_ptr<sqlite3, Closer>;

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw std::runtime_error(file + ": " + what);
}

Handle open_db(const std::string& path, int flags) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  Handle db(raw);
  if (rc != SQLITE_OK) fail(path, std::string("cannot open: ") + sqlite3_errstr(rc));
  sqlite3_busy_timeout(db.get(), 10'000);  // the daemon's checkpoints hold locks briefly
  return db;
}

// One integer from a query, or throws naming `file` and SQLite's message.
int64_t scalar(sqlite3* db, const std::string& file, const char* sql) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) fail(file, sqlite3_errmsg(db));
  int rc = sqlite3_step(st);
  int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  std::string err = sqlite3_errmsg(db);
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) fail(file, err);
  return v;
}

std::string text(sqlite3* db, const std::string& file, const char* sql) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK) fail(file, sqlite3_errmsg(db));
  std::string out;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return out;
}

}  // namespace backup_detail

BackupResult backup_store(const std::string& store_path, const std::string& dest_path) {
  using namespace backup_detail;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(store_path, ec)) fail(store_path, "no store here (is the path right?)");
  if (fs::exists(dest_path, ec)) fail(dest_path, "already exists; refusing to overwrite it");
  // Read-only: a backup run by another user must not create WAL files the daemon cannot open.
  Handle src = open_db(store_path, SQLITE_OPEN_READONLY);
  if (scalar(src.get(), store_path,
             "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'events'") != 1)
    fail(store_path, "not an ibwarden store (no events table)");

  const std::string tmp = dest_path + ".tmp-" + std::to_string(getpid());
  fs::remove(tmp, ec);
  BackupResult result;
  try {
    Handle dst = open_db(tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    sqlite3_backup* b = sqlite3_backup_init(dst.get(), "main", src.get(), "main");
    if (!b) fail(dest_path, sqlite3_errmsg(dst.get()));
    int rc = sqlite3_backup_step(b, -1);  // every page under one read transaction: one snapshot
    result.pages = sqlite3_backup_pagecount(b);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) fail(dest_path, std::string("backup failed: ") + sqlite3_errstr(rc));
    // The copy inherits WAL mode; fold it into one self-contained file before it is renamed.
    text(dst.get(), tmp, "PRAGMA journal_mode = DELETE");
    std::string check = text(dst.get(), tmp, "PRAGMA quick_check");
    if (check != "ok") fail(dest_path, "the copy does not pass quick_check: " + check);
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
  // link() rather than rename(): it fails instead of replacing a FILE created meanwhile.
  int err = ::link(tmp.c_str(), dest_path.c_str()) == 0 ? 0 : errno;
  fs::remove(tmp, ec);
  if (err)
    fail(dest_path, std::string("cannot move the finished copy into place: ") + strerror(err));
  result.bytes = static_cast<int64_t>(fs::file_size(dest_path, ec));
  return result;
}

}  // namespace ibw::store
