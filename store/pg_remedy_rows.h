// Row mapping of the PostgreSQL store's remediation tables (decisions, workorders, outbox,
// disabled_ports; store/pg_schema.cpp), used only by pg_remedy*.cpp and pg_intent.cpp: one
// column list per table shared by INSERT, UPDATE and SELECT (so bind and read orders cannot
// drift apart), the readers of a result row, and the advisory lock that serializes a
// fabric's remediation writes across processes (as SQLite's one writer does).
// Every statement takes the fabric as $1 and touches only that fabric's rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/pg_db.h"
#include "store/records.h"

namespace ibw::store::pg_remedy_detail {

// Columns after fabric and id, in table order.
inline constexpr const char* kDecisionColumns =
    "time_us, rule, node_guid, node, port, peer_guid, peer_node, peer_port, cable_id, action, "
    "status, reason, evidence, link_key, dedup_key";
inline constexpr const char* kWorkOrderColumns =
    "link_key, cable_id, a_guid, a_node, a_port, a_location, b_guid, b_node, b_port, "
    "b_location, status, rule, severity, summary, advice, needs_human, port_disabled, offences, "
    "evidence, assignee, note, opened_us, updated_us, resolved_us, version";
inline constexpr int kWorkOrderColumnCount = 25;
inline constexpr const char* kOutboxColumns =
    "id, workorder_id, version, idempotency_key, payload, attempts, next_attempt_us, "
    "delivered_us, last_error";
inline constexpr const char* kDisabledColumns = "node_guid, port, time_us, decision_id, link_key";

// Reads "id, <kDecisionColumns>" (dedup_key NULL reads as "").
DecisionRecord read_decision(const pg_detail::Result& r, int row);
// Reads "id, <kWorkOrderColumns>".
WorkOrder read_workorder(const pg_detail::Result& r, int row);
OutboxItem read_outbox(const pg_detail::Result& r, int row);      // kOutboxColumns
DisabledPort read_disabled(const pg_detail::Result& r, int row);  // kDisabledColumns

// The fabric's order with this link key ($1 fabric, $2 link_key), or nullopt.
std::optional<WorkOrder> workorder_by_link(pg_detail::Db& db, const std::string& fabric,
                                           const std::string& link_key);

// Inside an open transaction: waits for, then holds until commit or rollback, the fabric's
// remediation lock (pg_advisory_xact_lock on the two-int4 key space: a constant class and
// hashtext(fabric); migrations use the one-bigint space, so the two never collide). Taken by
// write_guarded before decide() reads and by every write with remediation rows, always after
// check_fence() (one lock order everywhere: lease row, then this).
void lock_remediation(pg_detail::Db& db, const std::string& fabric);

}  // namespace ibw::store::pg_remedy_detail
