// Thin RAII layer over libpq, used only inside store/ (the PostgreSQL store, store/pg_store.h).
//
// Db owns one connection, opened with PQconnectdbParams and expand_dbname, so StoreSpec::url may
// be a URI or a "key=value" string and the password travels as its own keyword (never in the
// url). Client notices (NOTICE, WARNING) are silenced. Every failure throws DbError (a
// StoreError) naming the server (the url with any password masked) and what failed.
// Db::exec(sql, params) prepares each distinct SQL text once per connection and reuses it.
// Parameters and results are in text format, except Params::binary (a value already in the
// type's binary wire format, store/pg_binary.h): GUIDs and 64-bit counters travel as the signed
// BIGINT holding the uint64 bit pattern (Params::u64, Result::u64), exact both ways.
// Transaction is BEGIN .. COMMIT, rolled back by its destructor unless committed.
// Bulk writes pass whole columns as one array parameter (ArrayText, or ArrayBinary of
// store/pg_binary.h) and unnest() them.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/store.h"

namespace ibw::store::pg_detail {

// A failed libpq call. sqlstate() is the server's SQLSTATE ("" for client-side failures).
class DbError : public StoreError {
 public:
  DbError(const std::string& message, std::string sqlstate)
      : StoreError(message), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};

// Text parameters of one statement, $1 first.
class Params {
 public:
  Params& text(std::string_view v);
  Params& i64(int64_t v);
  Params& u64(uint64_t v) { return i64(static_cast<int64_t>(v)); }  // bit pattern
  Params& boolean(bool v) { return text(v ? "t" : "f"); }
  Params& null();
  // A value in binary format (bytea: the raw bytes; an array: store/pg_binary.h ArrayBinary).
  Params& binary(std::string v);
  size_t size() const { return values_.size(); }
  bool any_binary() const { return any_binary_; }
  // The arrays libpq wants (pointer nullptr = SQL NULL); valid while this object lives.
  std::vector<const char*> pointers() const;
  std::vector<int> lengths() const;
  std::vector<int> formats() const;

 private:
  std::vector<std::string> values_;
  std::vector<bool> null_;
  std::vector<bool> binary_;
  bool any_binary_ = false;
};

// An owned PGresult of a successful command. Rows and columns are 0-based.
class Result {
 public:
  explicit Result(PGresult* r) : r_(r, &PQclear) {}
  int rows() const { return PQntuples(r_.get()); }
  int cols() const { return PQnfields(r_.get()); }
  // Rows an INSERT/UPDATE/DELETE touched (PQcmdTuples).
  int64_t affected() const;
  bool is_null(int row, int col) const { return PQgetisnull(r_.get(), row, col) != 0; }
  std::string_view text(int row, int col) const;  // NULL reads as ""
  std::string str(int row, int col) const { return std::string(text(row, col)); }
  int64_t i64(int row, int col) const;  // NULL reads as 0
  uint64_t u64(int row, int col) const { return static_cast<uint64_t>(i64(row, col)); }
  int i32(int row, int col) const { return static_cast<int>(i64(row, col)); }
  bool boolean(int row, int col) const { return text(row, col) == "t"; }
  // A bytea column (text output "\\x0a1b..."), decoded; throws StoreError if malformed.
  std::string bytea(int row, int col) const;
  PGresult* get() const { return r_.get(); }

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> r_;
};

// v as PostgreSQL accepts text: each byte that does not start a valid UTF-8 sequence, and
// each NUL, becomes U+FFFD (an OpenSM or UFM line with a stray byte is stored, not refused).
std::string valid_utf8(std::string_view v);

class Db {
 public:
  // Connects (throws DbError naming the server when it cannot).
  Db(const std::string& url, const std::string& password);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // The url with any password masked: for messages.
  const std::string& server() const { return server_; }
  PGconn* handle() { return conn_; }
  // A Transaction of this connection is open.
  bool in_transaction() const { return tx_depth_ > 0; }

  // Runs SQL without parameters (simple protocol: may hold several statements).
  Result exec(const std::string& sql);
  // Runs one statement with text parameters ($1..$n); prepared on first use, then reused.
  // binary_result: every column in its binary wire format (Result::text gives the raw bytes:
  // a bytea as is, an integer big-endian), for large bytea results.
  Result exec(const std::string& sql, const Params& params, bool binary_result = false);
  // Sends one statement as exec(sql, params) does and returns without waiting for it, so the
  // caller can work while the server runs it (a sweep's samples INSERT while the counter
  // state is packed). Inside a Transaction only. Its result is checked, and dropped, by
  // finish(), which every other call on this Db (exec, send, commit, rollback) runs first:
  // a failure is thrown there, naming this statement. One statement in flight at a time.
  void send(const std::string& sql, const Params& params);
  // Waits for the statement send() left in flight, if any; throws DbError if it failed.
  void finish();
  // "store <server>: <what>: <detail>" as a StoreError.
  [[noreturn]] void fail(const std::string& what, const std::string& detail) const;
  // Runs a session setting now (e.g. "SET lock_timeout = '500ms'") and again after every
  // reconnection.
  void set_session(const std::string& sql);
  // A connection the server dropped (restart, idle-in-transaction timeout, network) is
  // opened again, outside a transaction only: statements run outside a transaction and every
  // Transaction start call it, so a transaction never continues on a new connection.
  void revive();

 private:
  friend class Transaction;
  Result check(PGresult* r, const std::string& sql);
  // The prepared statement's name for sql, prepared on first use.
  const std::string& prepared(const std::string& sql);

  PGconn* conn_ = nullptr;
  std::string server_;
  int tx_depth_ = 0;                                       // open Transactions
  std::vector<std::string> session_;                       // set_session() statements
  std::unordered_map<std::string, std::string> prepared_;  // SQL -> statement name
  const std::string* in_flight_ = nullptr;                 // send()'s SQL until finish()
};

// BEGIN (or `begin`, e.g. "BEGIN ISOLATION LEVEL SERIALIZABLE") .. COMMIT; ROLLBACK in the
// destructor unless committed (errors of the rollback itself are ignored).
class Transaction {
 public:
  explicit Transaction(Db& db, const char* begin = "BEGIN");
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Db& db_;
  bool done_ = false;
};

// A PostgreSQL array literal ("{1,2,NULL}", "{\"a\",\"b\"}"), built element by element, for
// one array parameter holding a whole column of a bulk write (unnest($n::bigint[]) ...).
// Elements that are themselves arrays (a counter array per row) are added with text() and
// cast in SQL (unnest($n::text[])::bigint[]).
class ArrayText {
 public:
  ArrayText() : s_("{") {}
  void i64(int64_t v);
  void u64(uint64_t v) { i64(static_cast<int64_t>(v)); }
  void text(std::string_view v);  // quoted and escaped
  void null();
  // The literal; the builder is empty again afterwards.
  std::string take();

 private:
  void sep();
  std::string s_;
  bool first_ = true;
};

// The format of integers in parameters and array literals.
void append_i64(std::string& out, int64_t v);

// Parses a one-dimensional array of numbers in PostgreSQL's text output ("{1,-2,3}").
// Missing trailing elements read as 0 (like counter_json); throws StoreError naming `what`.
void parse_i64_array(std::string_view text, int64_t* out, size_t n, std::string_view what);
void parse_f64_array(std::string_view text, double* out, size_t n, std::string_view what);

// The url with a password in it (URI user:pass@ or password=...) replaced by "***".
std::string mask_password(const std::string& url);

}  // namespace ibw::store::pg_detail
