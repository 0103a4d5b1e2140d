// The execute step of remediation (internal to actions/): one port action the guard allowed
// (its intent already stored) run through the PortExecutor with read-back, and the decision
// record it yields. The rule path (Remediator::on_finding) and the operator path
// (Remediator::manual, `ibwarden disable|enable` and the web's buttons) both run it; the
// reconciling of intents shares reach().
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "actions/remedy.h"

namespace ibw::actions {

// One allowed port action.
struct PortStep {
  PortAction action = PortAction::disable;
  ActionContext what;        // the port acted on and why (ActionContext::port and node_guid)
  std::string said;          // how the decision's reason starts ("rule: what", "operator: why")
  std::string guard_reason;  // the guard's reason, ending an executed decision's reason
  // The operator path's wording, kept as it was: the address noted before the action, "no LID
  // or route known for the port" (not "the target port"), and a read-back error without ",
  // not Disabled".
  bool by_operator = false;
};

struct StepResult {
  bool executed = false;  // done and read back as asked
  PortChange change;
  std::string error;     // why not, when not executed
  bool unknown = false;  // the port may have changed: the decision stays pending
};

// Runs `step` and writes its outcome into the decision `d` (status executed or failed, reason;
// pending when the outcome is unknown: OutcomeUnknown, the intent left for reconciling)
// and `evidence` (address, readback, via, isolated); a failed disable's disabled_ports row
// (stored with the intent) goes into batch.disabled_remove. Never throws for a failed action.
StepResult execute_step(PortExecutor* executor, const RemedyContext& ctx, const GuardState& state,
                        const PortStep& step, core::DecisionRecord& d, nlohmann::json& evidence,
                        store::WriteBatch& batch);

// The address SMPs take to what.node_guid around `avoid`, with the executor's context set to
// `what`. Throws std::runtime_error when there is no executor, or when it needs an address and
// none is known ("no LID or route known for <port_words>").
PortAddress reach(PortExecutor* executor, const RemedyContext& ctx, const ActionContext& what,
                  const std::set<PortKey>& avoid, const char* port_words);

}  // namespace ibw::actions
