// Row mapping of the PostgreSQL store's remediation tables (decisions, workorders, outbox,
// disabled_ports; store/pg_schema.cpp), used only by pg_remedy*.cpp and pg_intent.cpp: the
// readers of a result row through the field lists SqliteStore shares (store/pg_fields.h),
// the query of one order, and the advisory lock that serializes a
// fabric's remediation writes across processes (as SQLite's one writer does).
// Every statement takes the fabric as $1 and touches only that fabric's rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/pg_db.h"
#include "store/pg_fields.h"
#include "store/records.h"

namespace ibw::store::pg_remedy_detail {

// Reads "id, <columns::Decisions>" and "id, <columns::Workorders>" (store/record_columns.h).
DecisionRecord read_decision(const pg_detail::Result& r, int row);
WorkOrder read_workorder(const pg_detail::Result& r, int row);
// Reads a row of the list's columns (outbox, disabled_ports).
template <class List>
typename List::Record read(const pg_detail::Result& r, int row) {
  typename List::Record out;
  pg_detail::read_row<List>(r, row, 0, out);
  return out;
}

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
