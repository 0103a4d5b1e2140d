// SqliteStore: the remediation records (core/remedy_records.h) - decisions, work orders with their
// webhook outbox, and the ports ibwarden disabled. Written inside write()'s transaction (after
// events, samples, ports and cursors); read by the queries below on any connection.
//
// Each table's columns are the shared field list of store/record_columns.h, bound and read
// through store/sqlite_fields.h (PgStore uses the same lists).
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "store/sqlite_fields.h"
#include "store/sqlite_store.h"
#include "store/write_rules.h"

namespace ibw::store {

namespace remedy_detail {

using sqlite_detail::read_row;
using sqlite_detail::Statement;

int64_t limit_param(size_t limit) {
  const auto max_limit = static_cast<size_t>(std::numeric_limits<int64_t>::max());
  return limit == 0 ? int64_t{-1} : static_cast<int64_t>(std::min(limit, max_limit));
}

// ---- decisions ----

const std::string& insert_decision_sql() {
  static const std::string sql = "INSERT INTO decisions (" + columns::list<columns::Decisions>() +
                                 ") VALUES (" +
                                 columns::params('?', 1, columns::count<columns::Decisions>()) +
                                 ") ON CONFLICT (dedup_key) DO NOTHING";
  return sql;
}

// ?1 since_us, ?2 after_id, ?3 limit (-1 = none), ?4 link_key (by_link only).
const std::string& select_decisions_sql(bool by_link) {
  static const std::string head = "SELECT id, " + columns::list<columns::Decisions>() +
                                  " FROM decisions WHERE time_us >= ?1 AND id > ?2";
  static const std::string all = head + " ORDER BY id LIMIT ?3";
  static const std::string link = head + " AND link_key = ?4 ORDER BY id LIMIT ?3";
  return by_link ? link : all;
}

DecisionRecord read_decision(const Statement& s) {  // id, then the columns
  DecisionRecord d;
  d.id = s.column_int64(0);
  read_row<columns::Decisions>(s, 1, d);
  return d;
}

// ---- work orders ----

const std::string& insert_workorder_sql() {
  static const std::string sql =
      "INSERT INTO workorders (" + columns::list<columns::Workorders>() + ") VALUES (" +
      columns::params('?', 1, columns::count<columns::Workorders>()) + ")";
  return sql;
}

// The columns as ?1..?25, the id as ?26.
const std::string& update_workorder_sql() {
  static const std::string sql =
      "UPDATE workorders SET " +
      columns::assignments(columns::names<columns::Workorders>(), '?', 1) + " WHERE id = ?" +
      std::to_string(columns::count<columns::Workorders>() + 1);
  return sql;
}

const std::string& select_workorder_sql(bool by_link) {
  static const std::string head =
      "SELECT id, " + columns::list<columns::Workorders>() + " FROM workorders WHERE ";
  static const std::string id = head + "id = ?1";
  static const std::string link = head + "link_key = ?1";
  return by_link ? link : id;
}

enum class StatusFilter { any, active, exact };

// ?1 after_id, ?2 limit (-1 = none), ?3 status (exact only).
const std::string& select_workorders_sql(StatusFilter f) {
  static const std::string head =
      "SELECT id, " + columns::list<columns::Workorders>() + " FROM workorders WHERE id > ?1";
  static const std::string tail = " ORDER BY id LIMIT ?2";
  static const std::string any = head + tail;
  static const std::string active = head + " AND status IN " + columns::kActiveStatuses + tail;
  static const std::string exact = head + " AND status = ?3" + tail;
  return f == StatusFilter::any ? any : f == StatusFilter::active ? active : exact;
}

WorkOrder read_workorder(const Statement& s) {  // id, then the columns
  WorkOrder o;
  o.id = s.column_int64(0);
  read_row<columns::Workorders>(s, 1, o);
  return o;
}

// ---- outbox and disabled ports ----

template <class List>
typename List::Record read(const Statement& s) {
  typename List::Record r;
  read_row<List>(s, 0, r);
  return r;
}

}  // namespace remedy_detail

// ---- writes (inside write()'s transaction) ----

void SqliteStore::write_remedy_rows(const WriteBatch& batch, WriteResult& result) {
  namespace rd = remedy_detail;
  result.decision_ids.reserve(batch.decisions.size());
  {
    auto s = db_.query(rd::insert_decision_sql());
    for (const DecisionRecord& d : batch.decisions) {
      sqlite_detail::bind_row<columns::Decisions>(*s, 1, d);
      s->run();
      result.decision_ids.push_back(db_.changes() > 0 ? db_.last_insert_rowid() : 0);
      s->reset();
      row_written();
    }
  }
  complete_decisions(batch);
  result.workorder_ids.reserve(batch.workorders.size());
  for (const WorkOrder& o : batch.workorders)
    result.workorder_ids.push_back(upsert_workorder(o, batch.outbox, batch.workorders_if_version));
  {
    auto s = db_.query("INSERT INTO disabled_ports (" + columns::list<columns::DisabledPorts>() +
                       ") VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (node_guid, port) DO UPDATE "
                       "SET time_us = excluded.time_us, decision_id = excluded.decision_id, "
                       "link_key = excluded.link_key");
    for (DisabledPort d : batch.disabled_add) {
      // 0: the decision of this batch that caused it (its id is only known now).
      if (!d.decision_id && !result.decision_ids.empty())
        d.decision_id = result.decision_ids.back();
      sqlite_detail::bind_row<columns::DisabledPorts>(*s, 1, d);
      s->run();
      s->reset();
      row_written();
    }
  }
  delete_ports("disabled_ports", batch.disabled_remove);
}

// Returns the order's id. See WriteBatch::workorders for the rules (store/write_rules.h).
int64_t SqliteStore::upsert_workorder(const WorkOrder& order, bool outbox, bool if_version) {
  namespace rd = remedy_detail;
  using List = columns::Workorders;
  std::optional<WorkOrder> stored;
  if (!order.link_key.empty()) {
    auto s = db_.query(rd::select_workorder_sql(/*by_link=*/true));
    s->bind(1, order.link_key);
    if (s->step()) stored = rd::read_workorder(*s);
  }
  const WorkOrderUpsert up = plan_upsert(order, stored, if_version, db_.path());
  WorkOrder o = up.row;
  if (up.kind == WorkOrderUpsert::insert) {
    auto s = db_.query(rd::insert_workorder_sql());
    sqlite_detail::bind_row<List>(*s, 1, o);
    s->run();
    o.id = db_.last_insert_rowid();
  } else if (up.kind == WorkOrderUpsert::update) {
    auto s = db_.query(rd::update_workorder_sql());
    sqlite_detail::bind_row<List>(*s, 1, o);
    s->bind(columns::count<List>() + 1, o.id);
    s->run();
  }
  row_written();
  if (outbox && up.kind != WorkOrderUpsert::unchanged) {
    const OutboxItem it = outbox_item(o);
    auto s = db_.query(
        "INSERT INTO outbox (workorder_id, version, idempotency_key, payload, attempts, "
        "next_attempt_us, delivered_us, last_error) VALUES (?1, ?2, ?3, ?4, 0, 0, 0, '')");
    s->bind(1, it.workorder_id);
    s->bind(2, it.version);
    s->bind(3, it.idempotency_key);
    s->bind(4, it.payload);
    s->run();
    row_written();
  }
  return o.id;
}

// ---- outbox delivery (each its own implicit transaction) ----

void SqliteStore::outbox_delivered(int64_t id, int64_t delivered_us) {
  check_writable();
  if (delivered_us <= 0)
    throw StoreError("store " + db_.path() + ": outbox item " + std::to_string(id) +
                     ": delivery time must be > 0");
  auto s = db_.query("UPDATE outbox SET delivered_us = ?2 WHERE id = ?1");
  s->bind(1, id);
  s->bind(2, delivered_us);
  s->run();
  if (db_.changes() == 0)
    throw StoreError("store " + db_.path() + ": no outbox item " + std::to_string(id));
}

void SqliteStore::outbox_failed(int64_t id, int64_t next_attempt_us, const std::string& error) {
  check_writable();
  auto s = db_.query(
      "UPDATE outbox SET attempts = attempts + 1, next_attempt_us = ?2, last_error = ?3 "
      "WHERE id = ?1");
  s->bind(1, id);
  s->bind(2, next_attempt_us);
  s->bind(3, error);
  s->run();
  if (db_.changes() == 0)
    throw StoreError("store " + db_.path() + ": no outbox item " + std::to_string(id));
}

// ---- reads ----

std::vector<DecisionRecord> SqliteStore::decisions(const DecisionQuery& q) {
  namespace rd = remedy_detail;
  const bool by_link = !q.link_key.empty();
  auto s = db_.query(rd::select_decisions_sql(by_link));
  s->bind(1, q.since_us);
  s->bind(2, q.after_id);
  s->bind(3, rd::limit_param(q.limit));
  if (by_link) s->bind(4, q.link_key);
  std::vector<DecisionRecord> out;
  while (s->step()) out.push_back(rd::read_decision(*s));
  return out;
}

std::vector<WorkOrder> SqliteStore::workorders(const WorkOrderQuery& q) {
  namespace rd = remedy_detail;
  const rd::StatusFilter f = q.status.empty()       ? rd::StatusFilter::any
                             : q.status == "active" ? rd::StatusFilter::active
                                                    : rd::StatusFilter::exact;
  auto s = db_.query(rd::select_workorders_sql(f));
  s->bind(1, q.after_id);
  s->bind(2, rd::limit_param(q.limit));
  if (f == rd::StatusFilter::exact) s->bind(3, q.status);
  std::vector<WorkOrder> out;
  while (s->step()) out.push_back(rd::read_workorder(*s));
  return out;
}

std::optional<WorkOrder> SqliteStore::workorder(int64_t id) {
  auto s = db_.query(remedy_detail::select_workorder_sql(/*by_link=*/false));
  s->bind(1, id);
  if (!s->step()) return std::nullopt;
  return remedy_detail::read_workorder(*s);
}

std::optional<WorkOrder> SqliteStore::workorder_by_link(const std::string& link_key) {
  auto s = db_.query(remedy_detail::select_workorder_sql(/*by_link=*/true));
  s->bind(1, link_key);
  if (!s->step()) return std::nullopt;
  return remedy_detail::read_workorder(*s);
}

std::vector<DisabledPort> SqliteStore::disabled_ports() {
  auto s = db_.query("SELECT " + columns::list<columns::DisabledPorts>() +
                     " FROM disabled_ports ORDER BY time_us, node_guid, port");
  std::vector<DisabledPort> out;
  while (s->step()) out.push_back(remedy_detail::read<columns::DisabledPorts>(*s));
  return out;
}

std::vector<DecisionRecord> SqliteStore::pending_decisions() {
  auto s = db_.query("SELECT id, " + columns::list<columns::Decisions>() +
                     " FROM decisions WHERE status = 'pending' ORDER BY id");
  std::vector<DecisionRecord> out;
  while (s->step()) out.push_back(remedy_detail::read_decision(*s));
  return out;
}

std::vector<int64_t> SqliteStore::disable_times(int64_t since_us) {
  auto s = db_.query(
      "SELECT time_us FROM decisions WHERE time_us >= ?1 AND action = 'disable' AND "
      "status IN ('executed', 'pending') ORDER BY time_us, id");
  s->bind(1, since_us);
  std::vector<int64_t> out;
  while (s->step()) out.push_back(s->column_int64(0));
  return out;
}

std::vector<OutboxItem> SqliteStore::outbox_due(int64_t now_us, size_t limit) {
  auto s = db_.query("SELECT " + columns::list<columns::Outbox>() +
                     " FROM outbox WHERE delivered_us = 0 AND next_attempt_us <= ?1"
                     " ORDER BY id LIMIT ?2");
  s->bind(1, now_us);
  s->bind(2, remedy_detail::limit_param(limit));
  std::vector<OutboxItem> out;
  while (s->step()) out.push_back(remedy_detail::read<columns::Outbox>(*s));
  return out;
}

OutboxBacklog SqliteStore::outbox_backlog() {
  OutboxBacklog b;
  {
    auto s = db_.query(
        "SELECT COUNT(*), COALESCE(SUM(attempts > 0), 0), COALESCE(SUM(attempts), 0) FROM outbox "
        "WHERE delivered_us = 0");
    if (s->step()) {
      b.pending = s->column_int64(0);
      b.failing = s->column_int64(1);
      b.failed_attempts = s->column_int64(2);
    }
  }
  if (b.pending > 0) {
    auto s = db_.query("SELECT " + columns::list<columns::Outbox>() +
                       " FROM outbox WHERE delivered_us = 0 ORDER BY id LIMIT 1");
    if (s->step()) b.oldest = remedy_detail::read<columns::Outbox>(*s);
  }
  return b;
}

}  // namespace ibw::store
