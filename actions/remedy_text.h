// Text and JSON pieces of remediation records (internal to actions/): the link a verdict or
// request is about, as a technician and the store need it, and the evidence and advice that
// go on decisions and work orders.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "actions/remedy.h"

namespace ibw::actions::remedy_text {

// One link as remediation sees it: ends with names and plan locations, cable, link key and
// the end to act on (the switch side).
struct LinkView {
  core::LinkEnd a, b;  // a: the port asked about; b.guid 0 when the peer is unknown
  std::string cable_id;
  std::string link_key;
  PortKey target;       // the end to disable (switch side when there is one)
  PortAddress address;  // of the target's node
};

LinkView link_view(const RemedyContext& ctx, uint64_t guid, int port);
// How SMPs reach a node: its LID (a switch's port-0 LID) and, when ctx.local_port is known
// and a path exists, the shortest directed route from it over active links that avoids
// the ports in `avoid` (ports ibwarden disabled) and the link of `port` itself. lid 0 /
// empty path when unknown.
PortAddress node_address(const RemedyContext& ctx, uint64_t guid, int port,
                         const std::set<PortKey>& avoid = {});
// The two ends written in a link key; nullopt when it is not one.
std::optional<std::pair<PortKey, PortKey>> parse_link_key(const std::string& key);

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
// Ports SMPs must not travel through: those ibwarden disabled and their far ends.
std::set<PortKey> ports_to_avoid(const GuardState& state);

nlohmann::json evidence_json(const Finding& f);
nlohmann::json reading_json(const PortReading& r);
// What the technician should do for this rule type after `offences` offences.
std::string advice(rules::RuleType type, int offences, const LinkView& link);
std::string end_text(const core::LinkEnd& e);  // "leaf001/3" or "0x.../3"

}  // namespace ibw::actions::remedy_text
