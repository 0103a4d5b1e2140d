// The execute step; see execute_step.h.
#include "actions/execute_step.h"

#include <stdexcept>

#include "actions/evidence.h"
#include "actions/link_view.h"

namespace ibw::actions {

PortAddress reach(PortExecutor* executor, const RemedyContext& ctx, const ActionContext& what,
                  const std::set<PortKey>& avoid, const char* port_words) {
  if (!executor) throw std::runtime_error("no port executor (cannot send SMPs)");
  PortAddress where = node_address(ctx, what.node_guid, what.port, avoid);
  if (executor->needs_address() && !where.lid && where.dr_path.empty())
    throw std::runtime_error(std::string("no LID or route known for ") + port_words);
  executor->set_context(what);
  return where;
}

StepResult execute_step(PortExecutor* executor, const RemedyContext& ctx, const GuardState& state,
                        const PortStep& step, core::DecisionRecord& d, nlohmann::json& evidence,
                        store::WriteBatch& batch) {
  const bool disable = step.action == PortAction::disable;
  const int port = step.what.port;
  StepResult r;
  try {
    // Never route through a disabled link, this one included.
    PortAddress where = reach(executor, ctx, step.what, ports_to_avoid(state),
                              step.by_operator ? "the port" : "the target port");
    if (step.by_operator) evidence["address"] = where.text();
    r.change = disable ? executor->disable(where, port) : executor->enable(where, port);
    const PortChange& c = r.change;
    if (!step.by_operator) evidence["address"] = where.text();
    evidence["readback"] = {{"before", reading_json(c.before)}, {"after", reading_json(c.after)}};
    if (!c.via.empty()) evidence["via"] = c.via;
    if (c.isolated) evidence["isolated"] = true;              // routed around, PHY up (UFM)
    if (c.set_reply_lost) evidence["set_reply_lost"] = true;  // the read-back says it was done
    const bool down = c.after.phys_state == fabric::kPhysDisabled;
    if (disable ? !down && !c.isolated : down)
      throw std::runtime_error("read back PhysState " +
                               std::string(fabric::phys_state_name(c.after.phys_state)) +
                               (step.by_operator ? "" : ", not Disabled"));
    d.status = "executed";
    d.reason = step.said + "; " + step.guard_reason;
    r.executed = true;
  } catch (const OutcomeUnknown& e) {
    // The port may have changed: the intent stays pending (a disable's row still counts against
    // the caps) until the port is read back (Remediator::reconcile), never assumed either way.
    d.status = "pending";
    d.reason = step.said + "; " + d.action + " outcome unknown: " + e.what() +
               "; left pending until the port is read back";
    r.error = e.what();
    r.unknown = true;
  } catch (const std::exception& e) {
    if (disable) batch.disabled_remove.emplace_back(step.what.node_guid, port);  // the intent's row
    d.status = "failed";
    d.reason = step.said + "; " + d.action + " failed: " + e.what();
    r.error = e.what();
  }
  return r;
}

}  // namespace ibw::actions
