// Reconciling intents left pending by a crash between a port request and its record
// (Remediator::reconcile, actions/remedy.h): the fabric, read back, says what happened.
#include "actions/evidence.h"
#include "actions/execute_step.h"
#include "actions/link_view.h"
#include "actions/order_text.h"
#include "actions/remedy.h"
#include "fabric/json_text.h"

namespace ibw::actions {

std::vector<core::DecisionRecord> Remediator::reconcile(const RemedyContext& ctx, int64_t now,
                                                        size_t* left, int64_t before_us) {
  std::vector<core::DecisionRecord> done;
  size_t still = 0;
  GuardState state = load_guard_state(store_, now);
  for (core::DecisionRecord d : store_.pending_decisions()) {
    if (!core::is_port_action(d)) continue;  // Slurm drains finish their own
    if (d.time_us >= before_us) continue;    // may still be in flight
    const bool disable = d.action == "disable";
    nlohmann::json evidence = nlohmann::json::parse(d.evidence_json, nullptr, false);
    if (!evidence.is_object()) evidence = nlohmann::json::object();
    PortReading now_reading;
    try {
      // Around every other disabled link; this one may or may not be down.
      std::set<PortKey> avoid = ports_to_avoid(state);
      avoid.erase(PortKey{d.node_guid, d.port});
      PortAddress where =
          reach(executor_, ctx, {d.node_guid, d.port, d.node, d.rule, d.reason, false}, avoid,
                "the port");
      now_reading = executor_->read(where, d.port);
      evidence["reconciled"] = {{"address", where.text()}, {"readback", reading_json(now_reading)}};
    } catch (const std::exception&) {
      ++still;  // stays pending: it keeps counting against the caps until it can be read
      continue;
    }
    const bool is_disabled = now_reading.phys_state == fabric::kPhysDisabled;
    const bool happened = disable == is_disabled;
    const std::string seen = std::string(fabric::phys_state_name(now_reading.phys_state));
    const std::string base = d.reason.substr(0, d.reason.find("; "));
    d.status = happened ? "executed" : "failed";
    d.reason = base + "; " + d.action + (happened ? " done" : " not done") +
               (before_us == INT64_MAX
                    ? ": the outcome was not recorded (ibwarden stopped); reconciled at start "
                      "from the port's state, PhysState "
                    : ": the outcome was not known; reconciled later from the port's state, "
                      "PhysState ") +
               seen;
    d.evidence_json = fabric::json_text(evidence);
    store::WriteBatch batch;
    batch.outbox = config_.outbox;
    batch.decisions_completed.push_back(d);
    std::optional<core::WorkOrder> order;
    if (!is_disabled) {  // a disable not done, or an enable done: no longer counted
      batch.disabled_remove.emplace_back(d.node_guid, d.port);
    } else if (disable) {  // the port is down: the technician needs the order
      LinkView link = link_view(ctx, d.node_guid, d.port);
      if (!d.link_key.empty()) link.link_key = d.link_key;
      order = store_.workorder_by_link(link.link_key);
      if (!order || !order->port_disabled)
        batch.workorders.push_back(
            disabled_order(order, link, now, d.rule,
                           d.rule + ": link disabled at " +
                               end_text(core::LinkEnd{d.node_guid, d.node, d.port, ""}) +
                               " (recorded after a restart)",
                           d.evidence_json));
    }
    write_after_action(batch, order);
    done.push_back(std::move(d));
  }
  if (left) *left = still;
  return done;
}

}  // namespace ibw::actions
