// The operator path of remediation (`ibwarden disable|enable`, later the web API); see
// remedy.h.
#include "actions/remedy.h"
#include "actions/remedy_text.h"
#include "fabric/json_text.h"

namespace ibw::actions {
namespace remedy_manual_detail {

using remedy_text::LinkView;

// The port ibwarden disabled for this link, if any: the port itself or the stored entry whose
// link includes it.
std::optional<core::DisabledPort> disabled_entry(store::RemedyStore& store, uint64_t guid,
                                                 int port) {
  for (const auto& d : store.disabled_ports()) {
    if (d.node_guid == guid && d.port == port) return d;
    if (auto ends = remedy_text::parse_link_key(d.link_key))
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
  remedy_text::LinkView link = remedy_text::link_view(ctx, target.guid, target.port);
  if (entry && !entry->link_key.empty()) link.link_key = entry->link_key;

  core::DecisionRecord d;
  d.time_us = now;
  d.rule = "manual";
  d.node_guid = link.a.guid, d.node = link.a.node, d.port = link.a.port;
  d.peer_guid = link.b.guid, d.peer_node = link.b.node, d.peer_port = link.b.port;
  d.cable_id = link.cable_id;
  d.link_key = link.link_key;
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
  nlohmann::json evidence = {{"operator_reason", reason},
                             {"force", force},
                             {"guard",
                              {{"verdict", std::string(verdict_name(g.verdict))},
                               {"rule", g.rule},
                               {"reason", g.reason},
                               {"overridden", g.overridden}}}};
  auto order = store_.workorder_by_link(link.link_key);
  if (g.verdict == Verdict::refused) {
    d.status = "refused";
    d.reason = who + "; guard refused: " + g.reason;
  } else if (g.verdict == Verdict::dry_run) {
    d.status = "dry_run";
    d.reason = who + "; " + g.reason + " (actions.mode is dry-run)";
  } else {
    try {
      if (!executor_) throw std::runtime_error("no port executor (cannot send SMPs)");
      // Never route through a disabled link, this one included.
      PortAddress where = remedy_text::node_address(ctx, target.guid, target.port,
                                                    remedy_text::ports_to_avoid(state));
      if (executor_->needs_address() && !where.lid && where.dr_path.empty())
        throw std::runtime_error("no LID or route known for the port");
      evidence["address"] = where.text();
      executor_->set_context({target.guid, target.port, link.a.node, "manual", who, false});
      PortChange c = action == PortAction::disable ? executor_->disable(where, target.port)
                                                   : executor_->enable(where, target.port);
      evidence["readback"] = {{"before", remedy_text::reading_json(c.before)},
                              {"after", remedy_text::reading_json(c.after)}};
      if (!c.via.empty()) evidence["via"] = c.via;
      bool disabled = c.after.phys_state == fabric::kPhysDisabled;
      if (disabled != (action == PortAction::disable))
        throw std::runtime_error("read back PhysState " +
                                 std::string(fabric::phys_state_name(c.after.phys_state)));
      d.status = "executed";
      d.reason = who + "; " + g.reason;
      if (action == PortAction::disable) {  // (its disabled_ports row came with the intent)
        batch.workorders.push_back(remedy_text::disabled_order(order, link, now, "manual",
                                                               "disabled by operator: " + reason,
                                                               fabric::json_text(evidence)));
      } else {
        batch.disabled_remove.emplace_back(target.guid, target.port);
        if (order && remedy_text::order_active(order->status)) {
          core::WorkOrder o = *order;
          o.status = "resolved";
          o.resolved_us = now;
          o.updated_us = now;
          o.port_disabled = false;
          o.summary = "re-enabled by operator: " + reason;
          batch.workorders.push_back(std::move(o));
        }
      }
    } catch (const std::exception& e) {
      if (action == PortAction::disable)
        batch.disabled_remove.emplace_back(target.guid, target.port);
      d.status = "failed";
      d.reason = who + "; " + d.action + " failed: " + e.what();
    }
  }
  d.evidence_json = fabric::json_text(evidence);
  return write_decision(batch, std::move(d), intent, order);
}

}  // namespace ibw::actions
