// The statements of pg_detail::Db that span more than one call (store/pg_db.h): a statement
// sent ahead (Db::send, Db::finish) and Transaction.
#include <optional>

#include "store/pg_db.h"

namespace ibw::store::pg_detail {

void Db::send(const std::string& sql, const Params& params) {
  finish();
  if (tx_depth_ == 0) fail("send", "a statement sent ahead needs a transaction");
  const std::string& name = prepared(sql);
  const std::vector<const char*> p = params.pointers();
  const std::vector<int> lengths = params.lengths(), formats = params.formats();
  // In blocking mode the whole message is written before this returns (libpq copies the
  // parameters into its buffer), so params need not outlive the call.
  if (!PQsendQueryPrepared(conn_, name.c_str(), static_cast<int>(p.size()), p.data(),
                           lengths.data(), formats.data(), 0))
    check(nullptr, sql);                     // throws with the connection's message
  in_flight_ = &prepared_.find(sql)->first;  // a key of prepared_: stable
}

void Db::finish() {
  if (!in_flight_) return;
  const std::string& sql = *in_flight_;
  in_flight_ = nullptr;
  // The statement's one result, then the null that ends it; every result is read (and
  // cleared) even after an error, so the connection is ready for the next statement.
  std::optional<DbError> failed;
  while (PGresult* r = PQgetResult(conn_)) {
    try {
      check(r, sql);
    } catch (DbError& e) {
      if (!failed) failed = std::move(e);
    }
  }
  if (failed) throw *failed;
}

// ---- Transaction ----

Transaction::Transaction(Db& db, const char* begin) : db_(db) {
  db_.exec(begin);  // revives a dropped connection first
  ++db_.tx_depth_;
}

Transaction::~Transaction() {
  if (done_) return;
  --db_.tx_depth_;
  try {
    db_.finish();  // a statement still in flight is read first (its error is moot now)
  } catch (const StoreError&) {
  }
  PGresult* r = PQexec(db_.handle(), "ROLLBACK");
  if (r) PQclear(r);
}

void Transaction::commit() {
  db_.finish();  // a statement sent ahead that failed throws here; the destructor rolls back
  done_ = true;
  --db_.tx_depth_;
  const Result r = db_.exec("COMMIT");
  // COMMIT of a transaction that already failed answers ROLLBACK instead of an error.
  if (std::string_view(PQcmdStatus(r.get())) != "COMMIT")
    db_.fail("commit", "the transaction was rolled back");
}

}  // namespace ibw::store::pg_detail
