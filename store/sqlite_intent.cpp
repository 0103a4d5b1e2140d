// SqliteStore: intent before action (store/store.h write_guarded): the guard's check and the
// pending decision it allows in one BEGIN IMMEDIATE transaction, and the completion of
// pending decisions once the port action's outcome is known.
#include <utility>

#include "store/sqlite_store.h"
#include "store/write_rules.h"

namespace ibw::store {

WriteResult SqliteStore::write_guarded(const std::function<std::optional<WriteBatch>()>& decide) {
  check_writable();
  WriteResult result;
  fail_at_row_ = std::exchange(fail_after_rows_, 0);
  rows_written_ = 0;
  return with_store_errors(db_.path(), "guarded write", [&] {
    // Taken before the guard reads anything: another process's check-and-intent waits here
    // (busy_timeout), so both can never pass a cap that only one of them fits under.
    sqlite_detail::Transaction tx(db_);
    std::optional<WriteBatch> batch = decide();
    if (batch) write_rows(*batch, result);
    tx.commit();
    return result;
  });
}

void SqliteStore::complete_decisions(const WriteBatch& batch) {
  if (batch.decisions_completed.empty()) return;
  auto s = db_.query(
      "UPDATE decisions SET status = ?2, reason = ?3, evidence = ?4 WHERE id = ?1 AND "
      "status = 'pending'");
  for (const DecisionRecord& d : batch.decisions_completed) {
    s->bind(1, d.id);
    s->bind(2, d.status);
    s->bind(3, d.reason);
    s->bind(4, d.evidence_json);
    s->run();
    s->reset();
    row_written();
  }
}

}  // namespace ibw::store
