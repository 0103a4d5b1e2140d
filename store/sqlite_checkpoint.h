// Checkpointer: runs the WAL checkpoints of a SQLite store on a thread of its own, with its own
// connection, instead of inside the writer's commits.
//
// SQLite's automatic checkpoint runs in the commit that takes the WAL past 1,000 pages: that
// commit copies the whole WAL into the database file and syncs both before it returns. At
// k=64 every telemetry scrape's batch (samples and port states, about 100 MB) crossed it, and
// the checkpoint was 60-140 ms of a 230-330 ms store write, on the path of the scrape it
// stored (issue 32). The writer's hook now only asks for a checkpoint; this thread runs it
// (PASSIVE: it never blocks the writer or a reader) while the writer goes on, and SQLite
// restarts the WAL from its beginning at the first write after a complete one, as before.
// Bounded: when the WAL reaches inline_bytes anyway (the thread is behind), or the thread's
// last checkpoint failed (stats().failing), the commit checkpoints in place, as SQLite's
// own hook would have: a failing thread costs the old commit time, never an unbounded WAL.
// The thread starts at the first checkpoint asked for (a short-lived command that never
// fills the WAL never starts it); the destructor stops it and closes its connection.
#pragma once

#include <sqlite3.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "store/records.h"

namespace ibw::store::sqlite_detail {

// Set on the writer's connection and on the checkpoint thread's: a grown WAL is truncated
// back to 64 MiB after a checkpoint.
inline constexpr const char* kJournalSizeLimit = "PRAGMA journal_size_limit = 67108864";

class Checkpointer {
 public:
  struct Options {
    int64_t ask_pages = 1000;                 // SQLite's own threshold (wal_autocheckpoint)
    int64_t inline_bytes = int64_t{1} << 29;  // 512 MiB of WAL: checkpoint in the commit
    int busy_timeout_ms = 5000;
    bool full_sync = false;  // as the writer: synchronous=FULL instead of NORMAL
  };
  using Stats = CheckpointStats;

  // Hooks into `writer` (the store's connection to `path`, whose pages are `page_size`
  // bytes), replacing SQLite's automatic checkpoints. The writer must outlive this object.
  Checkpointer(sqlite3* writer, std::string path, int64_t page_size, const Options& options);
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  Stats stats() const;  // from any thread
  // Waits until every checkpoint asked for so far has run (tests). False on timeout.
  bool wait_idle(int timeout_ms);

 private:
  static int on_commit(void* self, sqlite3* db, const char* name, int pages);
  void ask();
  void run();
  void checkpoint_once(sqlite3*& conn);

  sqlite3* writer_;
  std::string path_;
  Options options_;
  int64_t inline_pages_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool due_ = false, busy_ = false, stop_ = false;
  Stats stats_;         // stats_.failing: commits checkpoint in place
  std::thread thread_;  // started by the first ask()
};

}  // namespace ibw::store::sqlite_detail
