// The operator path of remediation (`ibwarden disable|enable`, later the web API); see
// remedy.h.
#include "actions/evidence.h"
#include "actions/execute_step.h"
#include "actions/link_view.h"
#include "actions/order_text.h"
#include "actions/remedy.h"
#include "fabric/json_text.h"

namespace ibw::actions {
namespace remedy_manual_detail {

// The port ibwarden disabled for this link, if any: the port itself or the stored entry whose
// link includes it.
std::optional<core::DisabledPort> disabled_entry(store::RemedyStore& store, uint64_t guid,
                                                 int port) {
  for (const auto& d : store.disabled_ports()) {
    if (d.node_guid == guid && d.port == port) return d;
    if (auto ends = parse_link_key(d.link_key))
      if ((ends->first == PortKey{guid, port}) || (ends->second == PortKey{guid, port})) return d;
  }
  return std::nullopt;
}

}  // namespace remedy_manual_detail

core::DecisionRecord Remediator::manual(PortAction action, uint64_t guid, int port,
                                        const std::string& reason, bool force,
                                        const RemedyContext& ctx, int64_t now) {
  namespace md = remedy_manual_detail;
  store::WriteBatch batch;
  batch.outbox = config_.outbox;
  auto entry = action == PortAction::enable ? md::disabled_entry(store_, guid, port) : std::nullopt;
  PortKey target = entry ? PortKey{entry->node_guid, entry->port} : PortKey{guid, port};
  LinkView link = link_view(ctx, target.guid, target.port);
  if (entry && !entry->link_key.empty()) link.link_key = entry->link_key;

  core::DecisionRecord d = decision_for(link, "manual", now);
  d.action = std::string(action_name(action));

  Request req;
  req.node_guid = target.guid, req.port = target.port;
  req.action = action;
  req.force = force;
  req.sm_port = ctx.sm_port;
  const std::string who = "operator: " + reason;
  core::DecisionRecord pending = d;
  pending.reason = who + "; " + d.action + " requested, outcome not yet recorded";
  GuardState state;
  int64_t intent = 0;  // the pending decision stored before the port request
  Decision g = guard_and_intend(req, ctx, now, pending, link.link_key, &state, &intent);
  nlohmann::json evidence = {
      {"operator_reason", reason}, {"force", force}, {"guard", guard_json(g)}};
  std::optional<AffectedJobs> affected;  // a disable: the jobs the link carries while up
  if (action == PortAction::disable && ctx.affected)
    affected = ctx.affected(target.guid, target.port);
  if (action == PortAction::disable) put_affected(evidence, affected);
  auto order = store_.workorder_by_link(link.link_key);
  PortStep step{action,
                {target.guid, target.port, link.a.node, "manual", who, false},
                who,
                g.reason,
                /*by_operator=*/true};
  if (g.verdict == Verdict::refused) {
    d.status = "refused";
    d.reason = who + "; guard refused: " + g.reason;
  } else if (g.verdict == Verdict::dry_run) {
    d.status = "dry_run";
    d.reason = who + "; " + g.reason + " (actions.mode is dry-run)";
  } else if (execute_step(executor_, ctx, state, step, d, evidence, batch).executed) {
    if (action == PortAction::disable) {  // (its disabled_ports row came with the intent)
      core::WorkOrder o =
          disabled_order(order, link, now, "manual", "disabled by operator: " + reason,
                         fabric::json_text(evidence));
      if (affected) o.affected_json = affected_text(*affected);
      batch.workorders.push_back(std::move(o));
    } else {
      batch.disabled_remove.emplace_back(target.guid, target.port);
      if (order && order_active(order->status)) {
        core::WorkOrder o = *order;
        o.status = "resolved";
        o.resolved_us = now;
        o.updated_us = now;
        o.port_disabled = false;
        o.summary = "re-enabled by operator: " + reason;
        batch.workorders.push_back(std::move(o));
      }
    }
  }
  d.evidence_json = fabric::json_text(evidence);
  return write_decision(batch, std::move(d), intent, order);
}

}  // namespace ibw::actions
