// PgStore: the remediation reads (decisions, work orders, disabled ports, pending intents, the
// outbox), each one statement on this store's fabric, and the row readers they share with
// the writes in pg_remedy.cpp. Orders and filters are SqliteStore's (sqlite_remedy.cpp).
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "store/pg_remedy_rows.h"
#include "store/pg_store.h"

namespace ibw::store {

namespace pg_remedy_detail {

using pg_detail::Params;
using pg_detail::Result;

// Two-int4 advisory-lock class of the remediation lock ("ibwr").
constexpr int32_t kRemediationLockClass = 0x69627772;

// LIMIT $n: NULL means none (limit 0).
Params& limit_param(Params& p, size_t limit) {
  const auto max_limit = static_cast<size_t>(std::numeric_limits<int64_t>::max());
  if (limit == 0) return p.null();
  return p.i64(static_cast<int64_t>(std::min(limit, max_limit)));
}

DecisionRecord read_decision(const Result& r, int row) {
  DecisionRecord d;
  d.id = r.i64(row, 0);
  pg_detail::read_row<columns::Decisions>(r, row, 1, d);
  return d;
}

WorkOrder read_workorder(const Result& r, int row) {
  WorkOrder o;
  o.id = r.i64(row, 0);
  pg_detail::read_row<columns::Workorders>(r, row, 1, o);
  return o;
}

const std::string& select_workorder_sql(bool by_link) {
  static const std::string head = "SELECT id, " + columns::list<columns::Workorders>() +
                                  " FROM workorders WHERE fabric = $1 AND ";
  static const std::string id = head + "id = $2";
  static const std::string link = head + "link_key = $2";
  return by_link ? link : id;
}

std::optional<WorkOrder> workorder_by_link(pg_detail::Db& db, const std::string& fabric,
                                           const std::string& link_key) {
  const Result r = db.exec(select_workorder_sql(true), Params().text(fabric).text(link_key));
  if (r.rows() == 0) return std::nullopt;
  return read_workorder(r, 0);
}

void lock_remediation(pg_detail::Db& db, const std::string& fabric) {
  db.exec("SELECT pg_advisory_xact_lock($1::integer, hashtext($2))",
          Params().i64(kRemediationLockClass).text(fabric));
}

template <class T, class Read>
std::vector<T> read_all(const Result& r, Read read) {
  std::vector<T> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.push_back(read(r, i));
  return out;
}

}  // namespace pg_remedy_detail

std::vector<DecisionRecord> PgStore::decisions(const DecisionQuery& q) {
  namespace rd = pg_remedy_detail;
  static const std::string head = "SELECT id, " + columns::list<columns::Decisions>() +
                                  " FROM decisions WHERE fabric = $1 AND time_us >= $2 AND id > $3";
  static const std::string all = head + " ORDER BY id LIMIT $4";
  static const std::string link = head + " AND link_key = $5 ORDER BY id LIMIT $4";
  const bool by_link = !q.link_key.empty();
  pg_detail::Params p;
  p.text(fabric_).i64(q.since_us).i64(q.after_id);
  rd::limit_param(p, q.limit);
  if (by_link) p.text(q.link_key);
  return rd::read_all<DecisionRecord>(db_.exec(by_link ? link : all, p), rd::read_decision);
}

std::vector<WorkOrder> PgStore::workorders(const WorkOrderQuery& q) {
  namespace rd = pg_remedy_detail;
  static const std::string head = "SELECT id, " + columns::list<columns::Workorders>() +
                                  " FROM workorders WHERE fabric = $1 AND id > $2";
  static const std::string tail = " ORDER BY id LIMIT $3";
  static const std::string any = head + tail;
  static const std::string active = head + " AND status IN " + columns::kActiveStatuses + tail;
  static const std::string exact = head + " AND status = $4" + tail;
  pg_detail::Params p;
  p.text(fabric_).i64(q.after_id);
  rd::limit_param(p, q.limit);
  const std::string* sql = &any;
  if (q.status == "active") {
    sql = &active;
  } else if (!q.status.empty()) {
    sql = &exact;
    p.text(q.status);
  }
  return rd::read_all<WorkOrder>(db_.exec(*sql, p), rd::read_workorder);
}

std::optional<WorkOrder> PgStore::workorder(int64_t id) {
  namespace rd = pg_remedy_detail;
  const pg_detail::Result r =
      db_.exec(rd::select_workorder_sql(false), pg_detail::Params().text(fabric_).i64(id));
  if (r.rows() == 0) return std::nullopt;
  return rd::read_workorder(r, 0);
}

std::optional<WorkOrder> PgStore::workorder_by_link(const std::string& link_key) {
  return pg_remedy_detail::workorder_by_link(db_, fabric_, link_key);
}

std::vector<DisabledPort> PgStore::disabled_ports() {
  namespace rd = pg_remedy_detail;
  static const std::string sql = "SELECT " + columns::list<columns::DisabledPorts>() +
                                 " FROM disabled_ports WHERE fabric = $1"
                                 " ORDER BY time_us, node_guid, port";
  return rd::read_all<DisabledPort>(db_.exec(sql, pg_detail::Params().text(fabric_)),
                                    rd::read<columns::DisabledPorts>);
}

std::vector<int64_t> PgStore::disable_times(int64_t since_us) {
  // Pending intents count too (as in SqliteStore): a disable in flight is one the caps see.
  const pg_detail::Result r = db_.exec(
      "SELECT time_us FROM decisions WHERE fabric = $1 AND time_us >= $2 AND action = 'disable' "
      "AND status IN ('executed', 'pending') ORDER BY time_us, id",
      pg_detail::Params().text(fabric_).i64(since_us));
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.push_back(r.i64(i, 0));
  return out;
}

std::vector<DecisionRecord> PgStore::pending_decisions() {
  namespace rd = pg_remedy_detail;
  static const std::string sql = "SELECT id, " + columns::list<columns::Decisions>() +
                                 " FROM decisions WHERE fabric = $1 AND status = 'pending'"
                                 " ORDER BY id";
  return rd::read_all<DecisionRecord>(db_.exec(sql, pg_detail::Params().text(fabric_)),
                                      rd::read_decision);
}

std::vector<OutboxItem> PgStore::outbox_due(int64_t now_us, size_t limit) {
  namespace rd = pg_remedy_detail;
  static const std::string sql = "SELECT " + columns::list<columns::Outbox>() +
                                 " FROM outbox WHERE fabric = $1 AND delivered_us = 0"
                                 " AND next_attempt_us <= $2 ORDER BY id LIMIT $3";
  pg_detail::Params p;
  p.text(fabric_).i64(now_us);
  rd::limit_param(p, limit);
  return rd::read_all<OutboxItem>(db_.exec(sql, p), rd::read<columns::Outbox>);
}

OutboxBacklog PgStore::outbox_backlog() {
  namespace rd = pg_remedy_detail;
  OutboxBacklog b;
  const pg_detail::Result sums = db_.exec(
      "SELECT count(*), count(*) FILTER (WHERE attempts > 0), COALESCE(sum(attempts), 0) "
      "FROM outbox WHERE fabric = $1 AND delivered_us = 0",
      pg_detail::Params().text(fabric_));
  if (sums.rows() > 0) {
    b.pending = sums.i64(0, 0);
    b.failing = sums.i64(0, 1);
    b.failed_attempts = sums.i64(0, 2);
  }
  if (b.pending > 0) {
    static const std::string sql = "SELECT " + columns::list<columns::Outbox>() +
                                   " FROM outbox WHERE fabric = $1 AND delivered_us = 0"
                                   " ORDER BY id LIMIT 1";
    const pg_detail::Result r = db_.exec(sql, pg_detail::Params().text(fabric_));
    if (r.rows() > 0) b.oldest = rd::read<columns::Outbox>(r, 0);
  }
  return b;
}

}  // namespace ibw::store
