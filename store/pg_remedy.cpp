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
#include <tuple>
#include <utility>
#include <vector>

#include "fabric/json_text.h"
#include "store/pg_remedy_rows.h"
#include "store/pg_store.h"
#include "store/remedy_json.h"

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
  static const std::string sql =
      std::string("WITH ins AS (INSERT INTO decisions (fabric, ") +
      pg_remedy_detail::kDecisionColumns +
      ") SELECT $1, t.time_us, t.rule, t.node_guid, t.node, t.port, t.peer_guid, t.peer_node, "
      "t.peer_port, t.cable_id, t.action, t.status, t.reason, t.evidence, t.link_key, "
      "t.dedup_key FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[], "
      "$6::integer[], $7::bigint[], $8::text[], $9::integer[], $10::text[], $11::text[], "
      "$12::text[], $13::text[], $14::text[], $15::text[], $16::text[]) WITH ORDINALITY AS "
      "t(time_us, rule, node_guid, node, port, peer_guid, peer_node, peer_port, cable_id, "
      "action, status, reason, evidence, link_key, dedup_key, ord) ORDER BY t.ord "
      "ON CONFLICT (fabric, dedup_key) DO NOTHING RETURNING id, dedup_key) "
      "SELECT id, dedup_key FROM ins ORDER BY id";
  std::vector<ArrayText> col(15);
  for (const DecisionRecord& d : ds) {
    col[0].i64(d.time_us);
    col[1].text(d.rule);
    col[2].u64(d.node_guid);
    col[3].text(d.node);
    col[4].i64(d.port);
    col[5].u64(d.peer_guid);
    col[6].text(d.peer_node);
    col[7].i64(d.peer_port);
    col[8].text(d.cable_id);
    col[9].text(d.action);
    col[10].text(d.status);
    col[11].text(d.reason);
    col[12].text(d.evidence_json);
    col[13].text(d.link_key);
    if (d.dedup_key.empty())
      col[14].null();  // never collides
    else
      col[14].text(d.dedup_key);
  }
  Params p;
  p.text(fabric);
  for (ArrayText& c : col) p.text(c.take());
  const Result r = db.exec(sql, p);
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

Params& bind_workorder(Params& p, const WorkOrder& o) {
  return p.text(o.link_key)
      .text(o.cable_id)
      .u64(o.a.guid)
      .text(o.a.node)
      .i64(o.a.port)
      .text(o.a.location)
      .u64(o.b.guid)
      .text(o.b.node)
      .i64(o.b.port)
      .text(o.b.location)
      .text(o.status)
      .text(o.rule)
      .text(o.severity)
      .text(o.summary)
      .text(o.advice)
      .boolean(o.needs_human)
      .boolean(o.port_disabled)
      .i64(o.offences)
      .text(o.evidence_json)
      .text(o.assignee)
      .text(o.note)
      .i64(o.opened_us)
      .i64(o.updated_us)
      .i64(o.resolved_us)
      .i64(o.version);
}

// "$2, $3, ..." for the work-order columns ($1 is the fabric).
std::string workorder_params() {
  std::string s;
  for (int i = 0; i < pg_remedy_detail::kWorkOrderColumnCount; ++i)
    s += (i ? ", $" : "$") + std::to_string(i + 2);
  return s;
}

// "a = $2, b = $3, ..." for the work-order columns.
std::string workorder_assignments() {
  std::string out, cols = pg_remedy_detail::kWorkOrderColumns;
  int n = 0;
  for (size_t pos = 0; pos <= cols.size();) {
    size_t end = cols.find(',', pos);
    if (end == std::string::npos) end = cols.size();
    std::string name = cols.substr(pos, end - pos);
    name.erase(0, name.find_first_not_of(' '));
    out += (n ? ", " : "") + name + " = $" + std::to_string(n + 2);
    ++n;
    pos = end + 1;
  }
  return out;
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

// Returns the order's id. See WriteBatch::workorders for the rules.
int64_t upsert_workorder(pg_detail::Db& db, const std::string& fabric, const WorkOrder& order,
                         bool outbox, bool if_version) {
  static const std::string insert_sql = std::string("INSERT INTO workorders (fabric, ") +
                                        pg_remedy_detail::kWorkOrderColumns + ") VALUES ($1, " +
                                        workorder_params() + ") RETURNING id";
  static const std::string update_sql = "UPDATE workorders SET " + workorder_assignments() +
                                        " WHERE fabric = $1 AND id = $" +
                                        std::to_string(pg_remedy_detail::kWorkOrderColumnCount + 2);
  if (order.link_key.empty())
    throw StoreError("store " + db.server() + ": work order without link_key (cable '" +
                     order.cable_id + "', " + order.a.node + "/" + std::to_string(order.a.port) +
                     ")");
  const std::optional<WorkOrder> stored =
      pg_remedy_detail::workorder_by_link(db, fabric, order.link_key);
  WorkOrder o = order;
  if (!stored) {
    o.version = 1;
    if (o.opened_us == 0) o.opened_us = o.updated_us;
    Params p;
    p.text(fabric);
    o.id = db.exec(insert_sql, bind_workorder(p, o)).i64(0, 0);
  } else {
    if (if_version && order.version != stored->version)
      throw StoreConflict("store " + db.server() + ": work order " + std::to_string(stored->id) +
                          " changed (version " + std::to_string(stored->version) + ", expected " +
                          std::to_string(order.version) + ")");
    o.id = stored->id;
    if (o.opened_us == 0) o.opened_us = stored->opened_us;
    if (content_fields(o) == content_fields(*stored)) return o.id;
    o.version = stored->version + 1;
    Params p;
    p.text(fabric);
    db.exec(update_sql, bind_workorder(p, o).i64(o.id));
  }
  if (outbox)
    db.exec(
        "INSERT INTO outbox (fabric, workorder_id, version, idempotency_key, payload, attempts, "
        "next_attempt_us, delivered_us, last_error) VALUES ($1, $2, $3, $4, $5, 0, 0, 0, '')",
        Params()
            .text(fabric)
            .i64(o.id)
            .i64(o.version)
            .text(std::to_string(o.id) + "-v" + std::to_string(o.version))
            .text(fabric::json_text(workorder_json(o))));
  return o.id;
}

// Upserts by port; a port given twice in the batch ends as its last entry (as one row after
// another would). decision_id 0 takes the batch's last decision id.
void add_disabled(pg_detail::Db& db, const std::string& fabric,
                  const std::vector<DisabledPort>& add, int64_t batch_decision) {
  std::map<std::pair<uint64_t, int>, const DisabledPort*> last;
  for (const DisabledPort& d : add) last[{d.node_guid, d.port}] = &d;
  ArrayText guid, port, time, decision, link;
  for (const auto& [key, d] : last) {
    guid.u64(d->node_guid);
    port.i64(d->port);
    time.i64(d->time_us);
    decision.i64(d->decision_id ? d->decision_id : batch_decision);
    link.text(d->link_key);
  }
  db.exec(std::string("INSERT INTO disabled_ports (fabric, ") + pg_remedy_detail::kDisabledColumns +
              ") SELECT $1, t.* FROM unnest($2::bigint[], $3::integer[], $4::bigint[], "
              "$5::bigint[], $6::text[]) AS t ON CONFLICT (fabric, node_guid, port) DO UPDATE "
              "SET time_us = excluded.time_us, decision_id = excluded.decision_id, "
              "link_key = excluded.link_key",
          Params()
              .text(fabric)
              .text(guid.take())
              .text(port.take())
              .text(time.take())
              .text(decision.take())
              .text(link.take()));
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
