// PgStore: intent before action (store/store.h write_guarded). One transaction: the fence
// check (a fenced store that lost its lease writes nothing and decides nothing), then the
// fabric's remediation lock (pg_remedy_rows.h), then decide() reading the guard's inputs
// through this store on the same connection, then the batch it returns. Another process's
// guarded write, or any write with remediation rows, waits on the lock, so a check and the
// intent it allows never interleave with another's (SQLite gets this from BEGIN IMMEDIATE).
// Under READ COMMITTED each statement after the lock sees every commit made before it.
#include "store/pg_remedy_rows.h"
#include "store/pg_store.h"
#include "store/write_rules.h"

namespace ibw::store {

WriteResult PgStore::write_guarded(const std::function<std::optional<WriteBatch>()>& decide) {
  check_writable();
  WriteResult result;
  return with_store_errors(db_.server(), "guarded write", [&] {
    pg_detail::Transaction tx(db_);
    check_fence();  // first: the lease row, then the remediation lock, as in write()
    pg_remedy_detail::lock_remediation(db_, fabric_);
    std::optional<WriteBatch> batch = decide();
    if (batch) write_rows(*batch, result);
    tx.commit();
    return result;
  });
}

}  // namespace ibw::store
