// SqliteStore: the remediation records (core/remedy_records.h) - decisions, work orders with their
// webhook outbox, and the ports ibwarden disabled. Written inside write()'s transaction (after
// events, samples, ports and cursors); read by the queries below on any connection.
//
// Each table has one column list shared by its INSERT, UPDATE and SELECT statements, so bind
// and read orders cannot drift apart (as in sqlite_rows.cpp).
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "fabric/json_text.h"
#include "store/remedy_json.h"
#include "store/sqlite_fields.h"
#include "store/sqlite_rows.h"
#include "store/sqlite_store.h"

namespace ibw::store {

namespace remedy_detail {

using sqlite_detail::fields;
using sqlite_detail::Statement;

constexpr const char* kDecisionColumns =
    "time_us, rule, node_guid, node, port, peer_guid, peer_node, peer_port, cable_id, action, "
    "status, reason, evidence, link_key, dedup_key";
constexpr int kDecisionColumnCount = 15;

constexpr const char* kWorkOrderColumns =
    "link_key, cable_id, a_guid, a_node, a_port, a_location, b_guid, b_node, b_port, "
    "b_location, status, rule, severity, summary, advice, needs_human, port_disabled, offences, "
    "evidence, assignee, note, opened_us, updated_us, resolved_us, version";
constexpr int kWorkOrderColumnCount = 25;

constexpr const char* kOutboxColumns =
    "id, workorder_id, version, idempotency_key, payload, attempts, next_attempt_us, "
    "delivered_us, last_error";

constexpr const char* kDisabledColumns = "node_guid, port, time_us, decision_id, link_key";

// Work-order statuses WorkOrderQuery{.status = "active"} selects.
constexpr const char* kActiveStatuses = "('open', 'in_progress', 'reopened')";

// "?1, ?2, ..., ?n"
std::string numbered_params(int n) {
  std::string s;
  for (int i = 1; i <= n; ++i) s += (i > 1 ? ", ?" : "?") + std::to_string(i);
  return s;
}

// "a = ?1, b = ?2, ..." for a column list.
std::string numbered_assignments(const std::string& columns) {
  std::string out;
  int n = 0;
  for (const std::string& c : rows::column_names(columns)) {
    out += (n ? ", " : "") + c + " = ?" + std::to_string(n + 1);
    ++n;
  }
  return out;
}

int64_t limit_param(size_t limit) {
  const auto max_limit = static_cast<size_t>(std::numeric_limits<int64_t>::max());
  return limit == 0 ? int64_t{-1} : static_cast<int64_t>(std::min(limit, max_limit));
}

// ---- decisions ----

const std::string& insert_decision_sql() {
  static const std::string sql = std::string("INSERT INTO decisions (") + kDecisionColumns +
                                 ") VALUES (" + numbered_params(kDecisionColumnCount) +
                                 ") ON CONFLICT (dedup_key) DO NOTHING";
  return sql;
}

// ?1 since_us, ?2 after_id, ?3 limit (-1 = none), ?4 link_key (by_link only).
const std::string& select_decisions_sql(bool by_link) {
  static const std::string head = std::string("SELECT id, ") + kDecisionColumns +
                                  " FROM decisions WHERE time_us >= ?1 AND id > ?2";
  static const std::string all = head + " ORDER BY id LIMIT ?3";
  static const std::string link = head + " AND link_key = ?4 ORDER BY id LIMIT ?3";
  return by_link ? link : all;
}

// Every column of decisions but id and dedup_key, in table order (parameters 1-14).
constexpr auto kDecisionFields =
    fields(&DecisionRecord::time_us, &DecisionRecord::rule, &DecisionRecord::node_guid,
           &DecisionRecord::node, &DecisionRecord::port, &DecisionRecord::peer_guid,
           &DecisionRecord::peer_node, &DecisionRecord::peer_port, &DecisionRecord::cable_id,
           &DecisionRecord::action, &DecisionRecord::status, &DecisionRecord::reason,
           &DecisionRecord::evidence_json, &DecisionRecord::link_key);
constexpr int kDedupParameter = kDecisionFields.kCount + 1;

void bind_decision(Statement& s, const DecisionRecord& d) {
  kDecisionFields.bind(s, 1, d);
  if (d.dedup_key.empty())
    s.bind_null(kDedupParameter);
  else
    s.bind(kDedupParameter, d.dedup_key);
}

DecisionRecord read_decision(const Statement& s) {  // id, the fields, dedup_key
  DecisionRecord d;
  d.id = s.column_int64(0);
  kDecisionFields.read(s, 1, d);
  d.dedup_key = s.column_text(kDedupParameter);  // NULL reads as ""
  return d;
}

// ---- work orders ----

const std::string& insert_workorder_sql() {
  static const std::string sql = std::string("INSERT INTO workorders (") + kWorkOrderColumns +
                                 ") VALUES (" + numbered_params(kWorkOrderColumnCount) + ")";
  return sql;
}

// The columns as ?1..?25, the id as ?26.
const std::string& update_workorder_sql() {
  static const std::string sql = "UPDATE workorders SET " +
                                 numbered_assignments(kWorkOrderColumns) + " WHERE id = ?" +
                                 std::to_string(kWorkOrderColumnCount + 1);
  return sql;
}

const std::string& select_workorder_sql(bool by_link) {
  static const std::string head =
      std::string("SELECT id, ") + kWorkOrderColumns + " FROM workorders WHERE ";
  static const std::string id = head + "id = ?1";
  static const std::string link = head + "link_key = ?1";
  return by_link ? link : id;
}

enum class StatusFilter { any, active, exact };

// ?1 after_id, ?2 limit (-1 = none), ?3 status (exact only).
const std::string& select_workorders_sql(StatusFilter f) {
  static const std::string head =
      std::string("SELECT id, ") + kWorkOrderColumns + " FROM workorders WHERE id > ?1";
  static const std::string tail = " ORDER BY id LIMIT ?2";
  static const std::string any = head + tail;
  static const std::string active = head + " AND status IN " + kActiveStatuses + tail;
  static const std::string exact = head + " AND status = ?3" + tail;
  return f == StatusFilter::any ? any : f == StatusFilter::active ? active : exact;
}

void bind_workorder(Statement& s, const WorkOrder& o) {
  s.bind(1, o.link_key);
  s.bind(2, o.cable_id);
  s.bind_u64(3, o.a.guid);
  s.bind(4, o.a.node);
  s.bind(5, int64_t{o.a.port});
  s.bind(6, o.a.location);
  s.bind_u64(7, o.b.guid);
  s.bind(8, o.b.node);
  s.bind(9, int64_t{o.b.port});
  s.bind(10, o.b.location);
  s.bind(11, o.status);
  s.bind(12, o.rule);
  s.bind(13, o.severity);
  s.bind(14, o.summary);
  s.bind(15, o.advice);
  s.bind(16, int64_t{o.needs_human ? 1 : 0});
  s.bind(17, int64_t{o.port_disabled ? 1 : 0});
  s.bind(18, int64_t{o.offences});
  s.bind(19, o.evidence_json);
  s.bind(20, o.assignee);
  s.bind(21, o.note);
  s.bind(22, o.opened_us);
  s.bind(23, o.updated_us);
  s.bind(24, o.resolved_us);
  s.bind(25, o.version);
}

WorkOrder read_workorder(const Statement& s) {
  WorkOrder o;
  o.id = s.column_int64(0);
  o.link_key = s.column_text(1);
  o.cable_id = s.column_text(2);
  o.a.guid = s.column_u64(3);
  o.a.node = s.column_text(4);
  o.a.port = s.column_int(5);
  o.a.location = s.column_text(6);
  o.b.guid = s.column_u64(7);
  o.b.node = s.column_text(8);
  o.b.port = s.column_int(9);
  o.b.location = s.column_text(10);
  o.status = s.column_text(11);
  o.rule = s.column_text(12);
  o.severity = s.column_text(13);
  o.summary = s.column_text(14);
  o.advice = s.column_text(15);
  o.needs_human = s.column_int64(16) != 0;
  o.port_disabled = s.column_int64(17) != 0;
  o.offences = s.column_int(18);
  o.evidence_json = s.column_text(19);
  o.assignee = s.column_text(20);
  o.note = s.column_text(21);
  o.opened_us = s.column_int64(22);
  o.updated_us = s.column_int64(23);
  o.resolved_us = s.column_int64(24);
  o.version = s.column_int64(25);
  return o;
}

auto end_fields(const LinkEnd& e) {
  return std::tie(e.guid, e.node, e.port, e.location);
}

// Everything but id, version and updated_us.
auto content_fields(const WorkOrder& o) {
  return std::tuple_cat(
      std::tie(o.link_key, o.cable_id), end_fields(o.a), end_fields(o.b),
      std::tie(o.status, o.rule, o.severity, o.summary, o.advice, o.needs_human, o.port_disabled,
               o.offences, o.evidence_json, o.assignee, o.note, o.opened_us, o.resolved_us));
}

bool same_content(const WorkOrder& x, const WorkOrder& y) {
  return content_fields(x) == content_fields(y);
}

// ---- outbox and disabled ports ----

OutboxItem read_outbox(const Statement& s) {
  static constexpr auto kFields =
      fields(&OutboxItem::id, &OutboxItem::workorder_id, &OutboxItem::version,
             &OutboxItem::idempotency_key, &OutboxItem::payload, &OutboxItem::attempts,
             &OutboxItem::next_attempt_us, &OutboxItem::delivered_us, &OutboxItem::last_error);
  OutboxItem it;
  kFields.read(s, 0, it);
  return it;
}

DisabledPort read_disabled(const Statement& s) {
  static constexpr auto kFields =
      fields(&DisabledPort::node_guid, &DisabledPort::port, &DisabledPort::time_us,
             &DisabledPort::decision_id, &DisabledPort::link_key);
  DisabledPort d;
  kFields.read(s, 0, d);
  return d;
}

}  // namespace remedy_detail

// ---- writes (inside write()'s transaction) ----

void SqliteStore::write_remedy_rows(const WriteBatch& batch, WriteResult& result) {
  namespace rd = remedy_detail;
  result.decision_ids.reserve(batch.decisions.size());
  {
    auto s = db_.query(rd::insert_decision_sql());
    for (const DecisionRecord& d : batch.decisions) {
      rd::bind_decision(*s, d);
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
    auto s = db_.query(std::string("INSERT INTO disabled_ports (") + rd::kDisabledColumns +
                       ") VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (node_guid, port) DO UPDATE "
                       "SET time_us = excluded.time_us, decision_id = excluded.decision_id, "
                       "link_key = excluded.link_key");
    for (const DisabledPort& d : batch.disabled_add) {
      s->bind_u64(1, d.node_guid);
      s->bind(2, int64_t{d.port});
      s->bind(3, d.time_us);
      // 0: the decision of this batch that caused it (its id is only known now).
      int64_t decision = d.decision_id;
      if (!decision && !result.decision_ids.empty()) decision = result.decision_ids.back();
      s->bind(4, decision);
      s->bind(5, d.link_key);
      s->run();
      s->reset();
      row_written();
    }
  }
  {
    auto s = db_.query("DELETE FROM disabled_ports WHERE node_guid = ?1 AND port = ?2");
    for (const auto& [guid, port] : batch.disabled_remove) {
      s->bind_u64(1, guid);
      s->bind(2, int64_t{port});
      s->run();
      s->reset();
      row_written();
    }
  }
}

// Returns the order's id. See WriteBatch::workorders for the rules.
int64_t SqliteStore::upsert_workorder(const WorkOrder& order, bool outbox, bool if_version) {
  namespace rd = remedy_detail;
  if (order.link_key.empty())
    throw StoreError("store " + db_.path() + ": work order without link_key (cable '" +
                     order.cable_id + "', " + order.a.node + "/" + std::to_string(order.a.port) +
                     ")");
  std::optional<WorkOrder> stored;
  {
    auto s = db_.query(rd::select_workorder_sql(/*by_link=*/true));
    s->bind(1, order.link_key);
    if (s->step()) stored = rd::read_workorder(*s);
  }
  WorkOrder o = order;
  if (!stored) {
    o.version = 1;
    if (o.opened_us == 0) o.opened_us = o.updated_us;
    auto s = db_.query(rd::insert_workorder_sql());
    rd::bind_workorder(*s, o);
    s->run();
    o.id = db_.last_insert_rowid();
  } else {
    if (if_version && order.version != stored->version)
      throw StoreConflict("store " + db_.path() + ": work order " + std::to_string(stored->id) +
                          " changed (version " + std::to_string(stored->version) + ", expected " +
                          std::to_string(order.version) + ")");
    o.id = stored->id;
    if (o.opened_us == 0) o.opened_us = stored->opened_us;
    if (rd::same_content(o, *stored)) {
      row_written();
      return o.id;
    }
    o.version = stored->version + 1;
    auto s = db_.query(rd::update_workorder_sql());
    rd::bind_workorder(*s, o);
    s->bind(rd::kWorkOrderColumnCount + 1, o.id);
    s->run();
  }
  row_written();
  if (outbox) {
    auto s = db_.query(
        "INSERT INTO outbox (workorder_id, version, idempotency_key, payload, attempts, "
        "next_attempt_us, delivered_us, last_error) VALUES (?1, ?2, ?3, ?4, 0, 0, 0, '')");
    s->bind(1, o.id);
    s->bind(2, o.version);
    s->bind(3, std::to_string(o.id) + "-v" + std::to_string(o.version));
    s->bind(4, fabric::json_text(workorder_json(o)));
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
  auto s = db_.query(std::string("SELECT ") + remedy_detail::kDisabledColumns +
                     " FROM disabled_ports ORDER BY time_us, node_guid, port");
  std::vector<DisabledPort> out;
  while (s->step()) out.push_back(remedy_detail::read_disabled(*s));
  return out;
}

std::vector<DecisionRecord> SqliteStore::pending_decisions() {
  auto s = db_.query(std::string("SELECT id, ") + remedy_detail::kDecisionColumns +
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
  auto s = db_.query(std::string("SELECT ") + remedy_detail::kOutboxColumns +
                     " FROM outbox WHERE delivered_us = 0 AND next_attempt_us <= ?1"
                     " ORDER BY id LIMIT ?2");
  s->bind(1, now_us);
  s->bind(2, remedy_detail::limit_param(limit));
  std::vector<OutboxItem> out;
  while (s->step()) out.push_back(remedy_detail::read_outbox(*s));
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
    auto s = db_.query(std::string("SELECT ") + remedy_detail::kOutboxColumns +
                       " FROM outbox WHERE delivered_us = 0 ORDER BY id LIMIT 1");
    if (s->step()) b.oldest = remedy_detail::read_outbox(*s);
  }
  return b;
}

}  // namespace ibw::store
