// store/backup.h: SQLite's online backup API, copied in one step so the copy is one snapshot,
// over the store's own connection wrapper (sqlite_db.h).
#include "store/backup.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "store/sqlite_db.h"

namespace ibw::store {
namespace backup_detail {

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw std::runtime_error(file + ": " + what);
}

}  // namespace backup_detail

BackupResult backup_store(const std::string& store_path, const std::string& dest_path) {
  using backup_detail::fail;
  using sqlite_detail::Db;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(store_path, ec)) fail(store_path, "no store here (is the path right?)");
  if (fs::exists(dest_path, ec)) fail(dest_path, "already exists; refusing to overwrite it");
  // Read-only: a backup run by another user must not create WAL files the daemon cannot open.
  Db src(store_path, SQLITE_OPEN_READONLY);
  sqlite3_busy_timeout(src.handle(), 10'000);  // the daemon's checkpoints hold locks briefly
  if (src.scalar_int(
          "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'events'") != 1)
    fail(store_path, "not an ibwarden store (no events table)");

  const std::string tmp = dest_path + ".tmp-" + std::to_string(getpid());
  fs::remove(tmp, ec);
  BackupResult result;
  try {
    Db dst(tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    sqlite3_backup* b = sqlite3_backup_init(dst.handle(), "main", src.handle(), "main");
    if (!b) fail(dest_path, sqlite3_errmsg(dst.handle()));
    int rc = sqlite3_backup_step(b, -1);  // every page under one read transaction: one snapshot
    result.pages = sqlite3_backup_pagecount(b);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) fail(dest_path, std::string("backup failed: ") + sqlite3_errstr(rc));
    // The copy inherits WAL mode; fold it into one self-contained file before it is renamed.
    dst.scalar_text("PRAGMA journal_mode = DELETE");
    std::string check = dst.scalar_text("PRAGMA quick_check");
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
