// The rules of a write that both stores follow, one copy for SQLite and PostgreSQL, used only
// inside store/: what counts as an empty batch, how a failure leaves a write transaction, and
// the work-order upsert (WriteBatch::workorders): given the order and the stored row of its
// link, what to write, and the outbox item of a change.
#pragma once

#include <exception>
#include <optional>
#include <string>

#include "store/records.h"

namespace ibw::store {

// True when the batch has no rows of any kind (write() then opens no transaction).
bool empty_batch(const WriteBatch& b);

// Runs body (a transaction: it rolls back when left by an exception). A StoreError (and so
// StoreConflict, StoreFenced) passes unchanged; any other failure leaves as a StoreError
// "store <where>: <what> failed: <message>".
template <class Body>
auto with_store_errors(const std::string& where, const char* what, Body&& body) {
  try {
    return body();
  } catch (const StoreError&) {
    throw;
  } catch (const std::exception& e) {
    throw StoreError("store " + where + ": " + what + " failed: " + e.what());
  }
}

struct WorkOrderUpsert {
  enum Kind { insert, update, unchanged };
  Kind kind;
  // The row to write, settled: a new link's at version 1 (opened_us 0 takes updated_us); a
  // known link's with the stored id and opened_us (when 0) and, when changed, version + 1.
  WorkOrder row;
};

// Throws StoreError naming `where` (the file or server) for an order without link_key, and
// StoreConflict when if_version is set and the stored version is not the order's.
WorkOrderUpsert plan_upsert(const WorkOrder& order, const std::optional<WorkOrder>& stored,
                            bool if_version, const std::string& where);

// The webhook item of an order at its version (WriteBatch::outbox): idempotency key
// "<id>-v<version>", payload the order's JSON (workorder_json).
OutboxItem outbox_item(const WorkOrder& o);

}  // namespace ibw::store
