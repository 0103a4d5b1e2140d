// Checkpointer (store/sqlite_checkpoint.h): the WAL's checkpoints on a thread of their own.
#include "store/sqlite_checkpoint.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

namespace ibw::store::sqlite_detail {

Checkpointer::Checkpointer(sqlite3* writer, std::string path, int64_t page_size,
                           const Options& options)
    : writer_(writer), path_(std::move(path)), options_(options) {
  inline_pages_ = std::max<int64_t>(options_.ask_pages,
                                    options_.inline_bytes / std::max<int64_t>(page_size, 512));
  sqlite3_wal_hook(writer_, &Checkpointer::on_commit, this);  // replaces the automatic one
}

Checkpointer::~Checkpointer() {
  sqlite3_wal_hook(writer_, nullptr, nullptr);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int Checkpointer::on_commit(void* self, sqlite3* db, const char* name, int pages) {
  auto* c = static_cast<Checkpointer*>(self);
  if (pages < c->options_.ask_pages) return SQLITE_OK;
  bool failing = false;
  {
    std::lock_guard<std::mutex> lock(c->mutex_);
    failing = c->stats_.failing;
  }
  // Behind, or its last checkpoint failed: as SQLite's own hook would (the thread is still
  // asked after a failure, and clears it when one of its own succeeds).
  if (pages >= c->inline_pages_ || failing) {
    sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    std::lock_guard<std::mutex> lock(c->mutex_);
    ++c->stats_.in_commit;
    if (!failing) return SQLITE_OK;
  }
  c->ask();
  return SQLITE_OK;  // an error here would be reported as the commit's, which did commit
}

void Checkpointer::ask() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.asked;
    due_ = true;
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  cv_.notify_all();
}

void Checkpointer::run() {
  sqlite3* conn = nullptr;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    cv_.wait(lock, [&] { return due_ || stop_; });
    if (stop_) break;
    due_ = false, busy_ = true;
    lock.unlock();
    checkpoint_once(conn);
    lock.lock();
    busy_ = false;
    cv_.notify_all();  // wait_idle
  }
  lock.unlock();
  sqlite3_close_v2(conn);  // before the writer's close, which checkpoints what is left
}

void Checkpointer::checkpoint_once(sqlite3*& conn) {
  int rc = SQLITE_OK;
  if (!conn) {
    rc =
        sqlite3_open_v2(path_.c_str(), &conn, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc == SQLITE_OK) {
      sqlite3_busy_timeout(conn, options_.busy_timeout_ms);
      // As the writer's: how the checkpoint syncs, and the WAL truncated back after one.
      const std::string pragmas = std::string(options_.full_sync ? "PRAGMA synchronous = FULL;"
                                                                 : "PRAGMA synchronous = NORMAL;") +
                                  kJournalSizeLimit;
      rc = sqlite3_exec(conn, pragmas.c_str(), nullptr, nullptr, nullptr);
    }
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_wal_checkpoint_v2(conn, "main", SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  if (rc == SQLITE_BUSY && conn) rc = SQLITE_OK;  // another connection's checkpoint was running
  std::string error;
  if (rc != SQLITE_OK) {
    error = "checkpoint of " + path_ + ": " + (conn ? sqlite3_errmsg(conn) : "out of memory") +
            " (code " + std::to_string(rc) + ")";
    sqlite3_close_v2(conn);  // opened again next time
    conn = nullptr;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.failing = rc != SQLITE_OK;
  if (rc == SQLITE_OK) {
    ++stats_.done;
  } else {
    ++stats_.failed;
    stats_.last_error = std::move(error);
  }
}

Checkpointer::Stats Checkpointer::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

bool Checkpointer::wait_idle(int timeout_ms) {
  std::unique_lock<std::mutex> lock(mutex_);
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return !due_ && !busy_; });
}

}  // namespace ibw::store::sqlite_detail
