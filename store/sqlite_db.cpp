#include "store/sqlite_db.h"

#include <utility>

namespace ibw::store::sqlite_detail {

// ---- Statement ----

Statement::Statement(Db& db, std::string_view sql, bool persistent) : db_(db) {
  const unsigned flags = persistent ? SQLITE_PREPARE_PERSISTENT : 0;
  int rc = sqlite3_prepare_v3(db_.handle(), sql.data(), static_cast<int>(sql.size()), flags, &stmt_,
                              nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    db_.fail("prepare \"" + std::string(sql.substr(0, 60)) + "\"", rc);
  }
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::bind(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) db_.fail("bind", rc);
}

void Statement::bind(int index, double value) {
  int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) db_.fail("bind", rc);
}

void Statement::bind(int index, std::string_view value) {
  // A zero-length text must still be TEXT (not NULL): pass a non-null pointer.
  const char* data = value.empty() ? "" : value.data();
  int rc = sqlite3_bind_text64(stmt_, index, data, value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) db_.fail("bind", rc);
}

void Statement::bind_blob(int index, std::string_view value) {
  const char* data = value.empty() ? "" : value.data();  // a null pointer would bind NULL
  int rc = sqlite3_bind_blob64(stmt_, index, data, value.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) db_.fail("bind", rc);
}

void Statement::bind_blob_static(int index, std::string_view value) {
  const char* data = value.empty() ? "" : value.data();
  int rc = sqlite3_bind_blob64(stmt_, index, data, value.size(), SQLITE_STATIC);
  if (rc != SQLITE_OK) db_.fail("bind", rc);
}

void Statement::bind_null(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) db_.fail("bind", rc);
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  std::string sql = sqlite3_sql(stmt_) ? sqlite3_sql(stmt_) : "";
  if (sql.size() > 60) sql.resize(60);
  db_.fail("step \"" + sql + "\"", rc);
}

void Statement::reset() {
  sqlite3_reset(stmt_);  // the error (if any) was already reported by step()
  sqlite3_clear_bindings(stmt_);
}

void Statement::rewind() {
  sqlite3_reset(stmt_);  // the error (if any) was already reported by step()
}

bool Statement::is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

int64_t Statement::column_int64(int col) const {
  return sqlite3_column_int64(stmt_, col);
}

double Statement::column_double(int col) const {
  return sqlite3_column_double(stmt_, col);
}

std::string_view Statement::column_text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (!p) return {};
  return {p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}

std::string_view Statement::column_blob(int col) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
  if (!p) return {};
  return {p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}

// ---- Db ----

Db::Db(const std::string& path, int flags) : path_(path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw StoreError("store " + path + ": cannot open: " + msg);
  }
  sqlite3_extended_result_codes(db_, 1);
}

Db::~Db() {
  cache_.clear();  // statements must be finalized before the connection closes
  sqlite3_close_v2(db_);
}

void Db::fail(std::string_view what, int rc) const {
  std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
  throw StoreError("store " + path_ + ": " + std::string(what) + ": " + msg + " (code " +
                   std::to_string(rc) + ")");
}

void Db::exec(const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    std::string head = sql.substr(0, 60);
    throw StoreError("store " + path_ + ": \"" + head + "\": " + msg + " (code " +
                     std::to_string(rc) + ")");
  }
}

StatementLease Db::query(std::string_view sql) {
  auto it = cache_.find(std::string(sql));
  if (it == cache_.end())
    it = cache_.emplace(std::string(sql), std::make_unique<Statement>(*this, sql, true)).first;
  return StatementLease(*it->second);
}

int64_t Db::scalar_int(const std::string& sql) {
  Statement s(*this, sql, false);
  return s.step() ? s.column_int64(0) : 0;
}

std::string Db::scalar_text(const std::string& sql) {
  Statement s(*this, sql, false);
  return s.step() ? std::string(s.column_text(0)) : std::string();
}

// ---- Transaction ----

Transaction::Transaction(Db& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (done_ || !db_.in_transaction()) return;
  // Best effort: SQLite may already have rolled back after some errors (e.g. SQLITE_FULL).
  sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace ibw::store::sqlite_detail
