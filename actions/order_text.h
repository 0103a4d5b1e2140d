// Repair work orders as remediation writes them (internal to actions/): the order for a new
// offence or a disabled link, rebasing it onto a row an operator changed meanwhile, and the
// advice text the technician reads.
#pragma once

#include <optional>
#include <string>

#include "actions/link_view.h"

namespace ibw::actions {

// Work-order status still being handled (open, in_progress, reopened).
bool order_active(const std::string& status);
// The link's order for a new offence: the active one kept, a resolved/verified one reopened
// (offences + 1), or a new one.
core::WorkOrder next_order(const std::optional<core::WorkOrder>& old, const LinkView& link,
                           int64_t now_us);
// next_order() for a link whose port is now disabled (by an operator, or found disabled when
// an intent is reconciled): port_disabled, the rule kept or `rule`, `summary`, repair advice,
// and `evidence_json` when the order has none yet.
core::WorkOrder disabled_order(const std::optional<core::WorkOrder>& old, const LinkView& link,
                               int64_t now_us, const std::string& rule, const std::string& summary,
                               const std::string& evidence_json);
// `order` (built from `before`, the row read before a slow port action) moved onto the row
// stored now (`fresh`, nullopt when there is none): its id, version and opened_us, and the
// operator's fields (assignee, note) where the operator changed them since `before`. The
// action's own fields (status, offences, summary...) stay: the action did happen.
core::WorkOrder rebase_order(core::WorkOrder order, const std::optional<core::WorkOrder>& before,
                             const std::optional<core::WorkOrder>& fresh);
// What the technician should do for this rule type after `offences` offences.
std::string advice(rules::RuleType type, int offences, const LinkView& link);

}  // namespace ibw::actions
