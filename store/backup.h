// Online backup of the SQLite store (`ibwarden store backup FILE`): a consistent copy made with
// SQLite's backup API while the daemon keeps writing. The copy is a snapshot of one moment:
// every transaction committed before it started is in it, none that began after.
#pragma once

#include <cstdint>
#include <string>

namespace ibw::store {

struct BackupResult {
  int64_t pages = 0;  // pages copied
  int64_t bytes = 0;  // size of the copy on disk
};

// Copies the store at `store_path` to `dest_path` (written to a temporary file beside it and
// renamed into place, so a failed backup never leaves a half-written FILE). Refuses an existing
// `dest_path` and a missing or non-SQLite store. Throws std::runtime_error naming the file.
BackupResult backup_store(const std::string& store_path, const std::string& dest_path);

}  // namespace ibw::store
