// Thin RAII layer over the sqlite3 C API, used only inside store/.
//
// Db owns one connection and a cache of prepared statements (prepared once with
// SQLITE_PREPARE_PERSISTENT, reused for every call). Db::query() hands out a cached statement
// wrapped in a StatementLease that resets it and clears its bindings when the lease ends, so
// an exception in the middle of a row loop leaves nothing bound or half-stepped.
// Transaction is BEGIN IMMEDIATE .. COMMIT, rolled back by its destructor unless committed.
// Every failure throws StoreError naming the database path and SQLite's message.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "store/store.h"

namespace ibw::store::sqlite_detail {

class Db;

// One prepared statement. Columns and parameters are 0- and 1-based as in the C API.
class Statement {
 public:
  Statement(Db& db, std::string_view sql, bool persistent);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, int64_t value);
  void bind(int index, double value);
  void bind(int index, std::string_view value);       // copied (SQLITE_TRANSIENT)
  void bind_blob(int index, std::string_view value);  // copied, stored as a BLOB
  // Not copied: value must stay valid and unchanged until the statement is reset (a large
  // blob bound for one step).
  void bind_blob_static(int index, std::string_view value);
  void bind_null(int index);
  // Unsigned 64-bit values (GUIDs, counters) are stored as the same bit pattern in a signed
  // INTEGER: exact both ways, and equality still works in SQL.
  void bind_u64(int index, uint64_t value) { bind(index, static_cast<int64_t>(value)); }

  // Runs one step: true when a row is available, false when done. Throws on error.
  bool step();
  // Steps a statement that returns no rows.
  void run() { step(); }
  void reset();
  // Resets for the next row but keeps the bindings: for a row loop that binds every
  // parameter before each step (clearing them is a measurable part of a large batch).
  void rewind();

  bool is_null(int col) const;
  int64_t column_int64(int col) const;
  uint64_t column_u64(int col) const { return static_cast<uint64_t>(column_int64(col)); }
  int column_int(int col) const { return static_cast<int>(column_int64(col)); }
  double column_double(int col) const;
  std::string_view column_text(int col) const;  // valid until the next step/reset
  std::string_view column_blob(int col) const;  // valid until the next step/reset

 private:
  Db& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Borrowed cached statement; resets it when it goes out of scope.
class StatementLease {
 public:
  explicit StatementLease(Statement& s) : stmt_(&s) {}
  ~StatementLease() { stmt_->reset(); }
  StatementLease(const StatementLease&) = delete;
  StatementLease& operator=(const StatementLease&) = delete;
  Statement* operator->() const { return stmt_; }
  Statement& operator*() const { return *stmt_; }

 private:
  Statement* stmt_;
};

class Db {
 public:
  // flags: SQLITE_OPEN_* as for sqlite3_open_v2.
  Db(const std::string& path, int flags);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_; }

  // Runs one or more statements without results (DDL, PRAGMA assignments).
  void exec(const std::string& sql);
  // A cached prepared statement for this exact SQL text.
  StatementLease query(std::string_view sql);
  // First column of the first row of a one-off statement, as an integer (PRAGMA reads).
  int64_t scalar_int(const std::string& sql);
  std::string scalar_text(const std::string& sql);

  int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
  int64_t changes() const { return sqlite3_changes64(db_); }
  bool in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

  // Throws StoreError "store PATH: WHAT: <sqlite message> (code N)".
  [[noreturn]] void fail(std::string_view what, int rc) const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, std::unique_ptr<Statement>> cache_;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit() ran.
class Transaction {
 public:
  explicit Transaction(Db& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Db& db_;
  bool done_ = false;
};

}  // namespace ibw::store::sqlite_detail
