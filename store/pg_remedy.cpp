// PgStore: the remediation writes (core/remedy_records.h) inside write()'s transaction, after the
// core rows: decisions (one multi-row INSERT of unnest()ed columns, a stored dedup_key
// skipped), completions of pending intents (one UPDATE), work orders with their outbox items
// (a few round trips per order: they are few), disabled ports (one upsert, one delete). The
// semantics are SqliteStore::write_remedy_rows' (sqlite_remedy.cpp), row for row.
// Any batch with remediation rows first takes the fabric's remediation lock
// (pg_remedy_rows.h), so read-modify-writes of orders serialize across processes as SQLite's
// one writer does.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "store/pg_fields.h"
#include "store/pg_remedy_rows.h"
#include "store/pg_store.h"
#include "store/write_rules.h"

namespace ibw::store {

namespace pg_remedy_write_detail {

using pg_detail::ArrayText;
using pg_detail::Params;
using pg_detail::Result;

bool has_remedy_rows(const WriteBatch& b) {
  return !b.decisions.empty() || !b.decisions_completed.empty() || !b.workorders.empty() ||
         !b.disabled_add.empty() || !b.disabled_remove.empty();
}

// Inserts the decisions in batch order (ids ascend with it) and returns an id per decision,
// 0 for one skipped because its dedup_key is stored (or came earlier in the batch).
std::vector<int64_t> insert_decisions(pg_detail::Db& db, const std::string& fabric,
                                      const std::vector<DecisionRecord>& ds) {
  static const std::vector<pg_rows::Col> cols = pg_detail::typed_columns<columns::Decisions>();
  static const std::string sql =
      "WITH ins AS (INSERT INTO decisions (fabric, " + pg_rows::names(cols) + ") " +
      pg_rows::unnest_select(cols, /*ordered=*/true) +
      " ON CONFLICT (fabric, dedup_key) DO NOTHING RETURNING id, dedup_key) "
      "SELECT id, dedup_key FROM ins ORDER BY id";
  std::vector<ArrayText> col(cols.size());
  for (const DecisionRecord& d : ds) pg_detail::fill_row<columns::Decisions>(d, col);
  const Result r = db.exec(sql, pg_detail::fabric_and_arrays(fabric, col));
  // The inserted rows, in id (= batch) order, are a subsequence of the batch: a decision is
  // the next inserted row when that row has its dedup_key (NULL for none, always inserted);
  // a skipped key cannot come back later in the batch.
  std::vector<int64_t> ids;
  ids.reserve(ds.size());
  int next = 0;
  for (const DecisionRecord& d : ds) {
    const bool match = next < r.rows() && r.is_null(next, 1) == d.dedup_key.empty() &&
                       r.text(next, 1) == d.dedup_key;
    ids.push_back(match ? r.i64(next++, 0) : 0);
  }
  if (next != r.rows())
    db.fail("insert decisions", "inserted rows do not match the batch (" +
                                    std::to_string(r.rows()) + " rows, " + std::to_string(next) +
                                    " matched)");
  return ids;
}

// Completions applied one after the other (SqliteStore) end as: per id, the first that sets a
// status other than "pending" (later ones find it no longer pending), else the last.
std::vector<const DecisionRecord*> effective_completions(const std::vector<DecisionRecord>& cs) {
  std::map<int64_t, const DecisionRecord*> by_id;
  std::vector<int64_t> order;
  for (const DecisionRecord& c : cs) {
    auto [it, added] = by_id.try_emplace(c.id, &c);
    if (added)
      order.push_back(c.id);
    else if (it->second->status == "pending")
      it->second = &c;
  }
  std::vector<const DecisionRecord*> out;
  out.reserve(order.size());
  for (int64_t id : order) out.push_back(by_id[id]);
  return out;
}

// Returns the order's id. See WriteBatch::workorders for the rules (store/write_rules.h).
int64_t upsert_workorder(pg_detail::Db& db, const std::string& fabric, const WorkOrder& order,
                         bool outbox, bool if_version) {
  using List = columns::Workorders;
  static const std::string insert_sql =
      "INSERT INTO workorders (fabric, " + columns::list<List>() + ") VALUES ($1, " +
      columns::params('$', 2, columns::count<List>()) + ") RETURNING id";
  static const std::string update_sql =
      "UPDATE workorders SET " + columns::assignments(columns::names<List>(), '$', 2) +
      " WHERE fabric = $1 AND id = $" + std::to_string(columns::count<List>() + 2);
  std::optional<WorkOrder> stored;
  if (!order.link_key.empty())
    stored = pg_remedy_detail::workorder_by_link(db, fabric, order.link_key);
  const WorkOrderUpsert up = plan_upsert(order, stored, if_version, db.server());
  WorkOrder o = up.row;
  if (up.kind == WorkOrderUpsert::unchanged) return o.id;
  Params p;
  p.text(fabric);
  if (up.kind == WorkOrderUpsert::insert)
    o.id = db.exec(insert_sql, pg_detail::bind_row<List>(p, o)).i64(0, 0);
  else
    db.exec(update_sql, pg_detail::bind_row<List>(p, o).i64(o.id));
  if (outbox) {
    const OutboxItem it = outbox_item(o);
    db.exec(
        "INSERT INTO outbox (fabric, workorder_id, version, idempotency_key, payload, attempts, "
        "next_attempt_us, delivered_us, last_error) VALUES ($1, $2, $3, $4, $5, 0, 0, 0, '')",
        Params()
            .text(fabric)
            .i64(it.workorder_id)
            .i64(it.version)
            .text(it.idempotency_key)
            .text(it.payload));
  }
  return o.id;
}

// Upserts by port; a port given twice in the batch ends as its last entry (as one row after
// another would). decision_id 0 takes the batch's last decision id.
void add_disabled(pg_detail::Db& db, const std::string& fabric,
                  const std::vector<DisabledPort>& add, int64_t batch_decision) {
  static const std::vector<pg_rows::Col> cols = pg_detail::typed_columns<columns::DisabledPorts>();
  static const std::string sql = "INSERT INTO disabled_ports (fabric, " + pg_rows::names(cols) +
                                 ") " + pg_rows::unnest_select(cols, /*ordered=*/false) +
                                 " ON CONFLICT (fabric, node_guid, port) DO UPDATE SET " +
                                 pg_rows::set_excluded(cols);
  std::map<std::pair<uint64_t, int>, DisabledPort> last;
  for (const DisabledPort& d : add) last[{d.node_guid, d.port}] = d;
  std::vector<ArrayText> col(cols.size());
  for (auto& [key, d] : last) {
    if (!d.decision_id) d.decision_id = batch_decision;
    pg_detail::fill_row<columns::DisabledPorts>(d, col);
  }
  db.exec(sql, pg_detail::fabric_and_arrays(fabric, col));
}

void remove_disabled(pg_detail::Db& db, const std::string& fabric,
                     const std::vector<std::pair<uint64_t, int>>& remove) {
  ArrayText guid, port;
  for (const auto& [g, p] : remove) {
    guid.u64(g);
    port.i64(p);
  }
  db.exec(
      "DELETE FROM disabled_ports d USING unnest($2::bigint[], $3::integer[]) AS t(node_guid, "
      "port) WHERE d.fabric = $1 AND d.node_guid = t.node_guid AND d.port = t.port",
      Params().text(fabric).text(guid.take()).text(port.take()));
}

}  // namespace pg_remedy_write_detail

void PgStore::write_remedy_rows(const WriteBatch& batch, WriteResult& result) {
  namespace wd = pg_remedy_write_detail;
  if (!wd::has_remedy_rows(batch)) return;
  pg_remedy_detail::lock_remediation(db_, fabric_);
  if (!batch.decisions.empty())
    result.decision_ids = wd::insert_decisions(db_, fabric_, batch.decisions);
  complete_decisions(batch);
  result.workorder_ids.reserve(batch.workorders.size());
  for (const WorkOrder& o : batch.workorders)
    result.workorder_ids.push_back(
        wd::upsert_workorder(db_, fabric_, o, batch.outbox, batch.workorders_if_version));
  if (!batch.disabled_add.empty())
    wd::add_disabled(db_, fabric_, batch.disabled_add,
                     result.decision_ids.empty() ? 0 : result.decision_ids.back());
  if (!batch.disabled_remove.empty()) wd::remove_disabled(db_, fabric_, batch.disabled_remove);
}

void PgStore::complete_decisions(const WriteBatch& batch) {
  if (batch.decisions_completed.empty()) return;
  pg_detail::ArrayText id, status, reason, evidence;
  for (const DecisionRecord* d :
       pg_remedy_write_detail::effective_completions(batch.decisions_completed)) {
    id.i64(d->id);
    status.text(d->status);
    reason.text(d->reason);
    evidence.text(d->evidence_json);
  }
  db_.exec(
      "UPDATE decisions d SET status = u.status, reason = u.reason, evidence = u.evidence FROM "
      "unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) AS u(id, status, reason, "
      "evidence) WHERE d.fabric = $1 AND d.id = u.id AND d.status = 'pending'",
      pg_detail::Params()
          .text(fabric_)
          .text(id.take())
          .text(status.take())
          .text(reason.take())
          .text(evidence.take()));
}

// ---- outbox delivery (each its own small transaction) ----

void PgStore::outbox_delivered(int64_t id, int64_t delivered_us) {
  check_writable();
  if (delivered_us <= 0)
    throw StoreError("store " + db_.server() + ": outbox item " + std::to_string(id) +
                     ": delivery time must be > 0");
  pg_detail::Transaction tx(db_);
  check_fence();
  const pg_detail::Result r =
      db_.exec("UPDATE outbox SET delivered_us = $3 WHERE fabric = $1 AND id = $2",
               pg_detail::Params().text(fabric_).i64(id).i64(delivered_us));
  if (r.affected() == 0)
    throw StoreError("store " + db_.server() + ": no outbox item " + std::to_string(id));
  tx.commit();
}

void PgStore::outbox_failed(int64_t id, int64_t next_attempt_us, const std::string& error) {
  check_writable();
  pg_detail::Transaction tx(db_);
  check_fence();
  const pg_detail::Result r = db_.exec(
      "UPDATE outbox SET attempts = attempts + 1, next_attempt_us = $3, last_error = $4 "
      "WHERE fabric = $1 AND id = $2",
      pg_detail::Params().text(fabric_).i64(id).i64(next_attempt_us).text(error));
  if (r.affected() == 0)
    throw StoreError("store " + db_.server() + ": no outbox item " + std::to_string(id));
  tx.commit();
}

}  // namespace ibw::store
