// The link a verdict or an operator's request is about, as remediation sees it (internal to
// actions/): its ends with names and plan locations, its cable and link key, the end to act
// on and how SMPs reach it; and the decision record that names it.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "actions/remedy.h"

namespace ibw::actions {

// One link: ends with names and plan locations, cable, link key and the end to act on (the
// switch side).
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
// Ports SMPs must not travel through: those ibwarden disabled and their far ends.
std::set<PortKey> ports_to_avoid(const GuardState& state);
std::string end_text(const core::LinkEnd& e);  // "leaf001/3", "0x.../3"; "spine001" for port 0

// A decision about the link by `rule` at `now_us`: time, rule, both ends, cable and link key.
core::DecisionRecord decision_for(const LinkView& link, const std::string& rule, int64_t now_us);

}  // namespace ibw::actions
