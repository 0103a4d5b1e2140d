// PgStore: remediation records. Placeholder stubs; helper H1b replaces this file.
#include "store/pg_store.h"

namespace ibw::store {

namespace pg_remedy_stub {
[[noreturn]] void not_yet(const char* what) {
  throw StoreError(std::string("postgres store: ") + what + ": not yet");
}
}  // namespace pg_remedy_stub

void PgStore::write_remedy_rows(const WriteBatch& batch, WriteResult& /*result*/) {
  if (!batch.decisions.empty() || !batch.decisions_completed.empty() || !batch.workorders.empty() ||
      !batch.disabled_add.empty() || !batch.disabled_remove.empty())
    pg_remedy_stub::not_yet("write_remedy_rows");
}
void PgStore::complete_decisions(const WriteBatch& /*batch*/) {
  pg_remedy_stub::not_yet("complete_decisions");
}
std::vector<DecisionRecord> PgStore::decisions(const DecisionQuery& /*q*/) {
  pg_remedy_stub::not_yet("decisions");
}
std::vector<WorkOrder> PgStore::workorders(const WorkOrderQuery& /*q*/) {
  pg_remedy_stub::not_yet("workorders");
}
std::optional<WorkOrder> PgStore::workorder(int64_t /*id*/) {
  pg_remedy_stub::not_yet("workorder");
}
std::optional<WorkOrder> PgStore::workorder_by_link(const std::string& /*link_key*/) {
  pg_remedy_stub::not_yet("workorder_by_link");
}
std::vector<DisabledPort> PgStore::disabled_ports() {
  pg_remedy_stub::not_yet("disabled_ports");
}
std::vector<int64_t> PgStore::disable_times(int64_t /*since_us*/) {
  pg_remedy_stub::not_yet("disable_times");
}
WriteResult PgStore::write_guarded(const std::function<std::optional<WriteBatch>()>& /*decide*/) {
  pg_remedy_stub::not_yet("write_guarded");
}
std::vector<DecisionRecord> PgStore::pending_decisions() {
  pg_remedy_stub::not_yet("pending_decisions");
}
std::vector<OutboxItem> PgStore::outbox_due(int64_t /*now_us*/, size_t /*limit*/) {
  pg_remedy_stub::not_yet("outbox_due");
}
void PgStore::outbox_delivered(int64_t /*id*/, int64_t /*delivered_us*/) {
  pg_remedy_stub::not_yet("outbox_delivered");
}
void PgStore::outbox_failed(int64_t /*id*/, int64_t /*next_attempt_us*/,
                            const std::string& /*error*/) {
  pg_remedy_stub::not_yet("outbox_failed");
}
OutboxBacklog PgStore::outbox_backlog() {
  pg_remedy_stub::not_yet("outbox_backlog");
}

}  // namespace ibw::store
