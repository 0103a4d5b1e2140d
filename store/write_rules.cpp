#include "store/write_rules.h"

#include "fabric/json_text.h"
#include "store/record_columns.h"
#include "store/remedy_json.h"

namespace ibw::store {

bool empty_batch(const WriteBatch& b) {
  return b.events.empty() && b.samples.empty() && b.ports.empty() && b.port_counters.empty() &&
         b.ufm_ports.empty() && b.ufm_ports_removed.empty() && b.cursors.empty() &&
         b.decisions.empty() && b.decisions_completed.empty() && b.workorders.empty() &&
         b.disabled_add.empty() && b.disabled_remove.empty();
}

WorkOrderUpsert plan_upsert(const WorkOrder& order, const std::optional<WorkOrder>& stored,
                            bool if_version, const std::string& where) {
  if (order.link_key.empty())
    throw StoreError("store " + where + ": work order without link_key (cable '" + order.cable_id +
                     "', " + order.a.node + "/" + std::to_string(order.a.port) + ")");
  WorkOrder o = order;
  if (!stored) {
    o.version = 1;
    if (o.opened_us == 0) o.opened_us = o.updated_us;
    return {WorkOrderUpsert::insert, o};
  }
  if (if_version && order.version != stored->version)
    throw StoreConflict("store " + where + ": work order " + std::to_string(stored->id) +
                        " changed (version " + std::to_string(stored->version) + ", expected " +
                        std::to_string(order.version) + ")");
  o.id = stored->id;
  if (o.opened_us == 0) o.opened_us = stored->opened_us;
  if (columns::same_content(o, *stored)) return {WorkOrderUpsert::unchanged, o};
  o.version = stored->version + 1;
  return {WorkOrderUpsert::update, o};
}

OutboxItem outbox_item(const WorkOrder& o) {
  OutboxItem it;
  it.workorder_id = o.id;
  it.version = o.version;
  it.idempotency_key = std::to_string(o.id) + "-v" + std::to_string(o.version);
  it.payload = fabric::json_text(workorder_json(o));
  return it;
}

}  // namespace ibw::store
