// The guard's rules on the fabric graph; see guard.h for the policy.
#include "actions/guard.h"

#include <array>
#include <utility>

namespace ibw::actions {
namespace guard_detail {

using fabric::Fabric;
using fabric::kNoNode;
using fabric::Node;
using fabric::NodeType;
using fabric::Port;

constexpr int64_t kHourUs = int64_t{3600} * 1000 * 1000;
constexpr uint8_t kPortStateDown = 1;

bool guard_disabled(const Fabric& f, const GuardState& s, uint32_t node, int port) {
  return s.disabled.count(PortKey{f.node(node).guid, port}) != 0;
}

bool end_usable(const Fabric& f, const GuardState& s, uint32_t node, int port) {
  const Port* p = f.node(node).port(port);
  if (p == nullptr) return true;  // the model does not know this end; trust the other one
  if (p->phys_state == fabric::kPhysDisabled || p->state == kPortStateDown) return false;
  return !guard_disabled(f, s, node, port);
}

// Both ends known, neither Disabled/Down nor disabled by the guard.
bool link_active(const Fabric& f, const GuardState& s, uint32_t node, int port) {
  const Port* p = f.node(node).port(port);
  if (p == nullptr || !p->has_peer()) return false;
  return end_usable(f, s, node, port) && end_usable(f, s, p->peer_node, p->peer_port);
}

// Switch levels: 1 for switches with a CA attached, then breadth first; 0 = unknown/not a
// switch. A link the guard disabled counts with the peer it had (peer_of): a re-discovery no
// longer sees it, yet a leaf whose host links the guard disabled is still a leaf.
std::vector<int> switch_levels(const Fabric& f, const GuardState& s) {
  std::vector<std::vector<uint32_t>> hidden(f.size());
  for (const auto& [key, far] : s.peer_of) {
    uint32_t a = f.find_guid(key.guid), b = f.find_guid(far.guid);
    if (a != kNoNode && b != kNoNode) hidden[a].push_back(b), hidden[b].push_back(a);
  }
  auto peers = [&](uint32_t i, const auto& fn) {
    for (const Port& p : f.node(i).ports)
      if (p.has_peer()) fn(p.peer_node);
    for (uint32_t peer : hidden[i]) fn(peer);
  };
  std::vector<int> level(f.size(), 0);
  std::vector<uint32_t> queue;
  for (uint32_t i = 0; i < f.size(); ++i) {
    if (f.node(i).type != NodeType::sw) continue;
    peers(i, [&](uint32_t peer) {
      if (f.node(peer).type == NodeType::ca && level[i] == 0) level[i] = 1, queue.push_back(i);
    });
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    uint32_t at = queue[head];
    peers(at, [&](uint32_t peer) {
      if (f.node(peer).type == NodeType::sw && level[peer] == 0) {
        level[peer] = level[at] + 1;
        queue.push_back(peer);
      }
    });
  }
  return level;
}

bool is_up(const Fabric& f, const std::vector<int>& level, uint32_t node, const Port& p) {
  return p.has_peer() && f.node(p.peer_node).type == NodeType::sw && level[node] > 0 &&
         level[p.peer_node] > level[node];
}

struct LinkCounts {
  int active_other = 0;     // active links other than the one considered
  int up_total = 0;         // cabled up links, the considered one included
  int up_active_other = 0;  // active up links other than the considered one
};

LinkCounts count_links(const Fabric& f, const GuardState& s, const std::vector<int>& level,
                       uint32_t node, int skip_port) {
  LinkCounts c;
  const Node& n = f.node(node);
  for (size_t i = 1; i < n.ports.size(); ++i) {
    const Port& p = n.ports[i];
    bool up = is_up(f, level, node, p);
    if (up) ++c.up_total;
    if (static_cast<int>(i) == skip_port || !link_active(f, s, node, static_cast<int>(i))) continue;
    ++c.active_other;
    if (up) ++c.up_active_other;
  }
  return c;
}

// Links disabled by the guard that touch node (either end).
int disabled_touching(const Fabric& f, const GuardState& s, uint32_t node) {
  int count = 0;
  for (const PortKey& k : s.disabled) {
    uint32_t at = f.find_guid(k.guid);
    if (at == kNoNode) continue;
    const Port* p = f.node(at).port(k.port);
    uint32_t far = kNoNode;
    if (auto it = s.peer_of.find(k); it != s.peer_of.end())
      far = f.find_guid(it->second.guid);
    else if (p != nullptr && p->has_peer())
      far = p->peer_node;
    if (at == node || far == node) ++count;
  }
  return count;
}

int disables_last_hour(const GuardState& s, int64_t now_us) {
  int count = 0;
  for (int64_t t : s.disable_times)
    if (t > now_us - kHourUs && t <= now_us) ++count;
  return count;
}

std::string port_text(const Fabric& f, uint64_t guid, int port) {
  uint32_t at = f.find_guid(guid);
  if (at == kNoNode) return fabric::format_guid(guid) + "/" + std::to_string(port);
  return f.port_label(at, port);
}

Decision refuse(std::string rule, std::string reason) {
  Decision d;
  d.verdict = Verdict::refused;
  d.rule = std::move(rule);
  d.reason = d.rule + ": " + std::move(reason);
  return d;
}

struct Check {
  std::string rule;
  std::string reason;
};

// The hard rules for one end of the link; empty rule when it passes.
Check hard_rules(const Fabric& f, const GuardState& s, const std::vector<int>& level, uint32_t node,
                 int port) {
  const Node& n = f.node(node);
  LinkCounts c = count_links(f, s, level, node, port);
  if (n.type == NodeType::ca && c.active_other == 0)
    return {"host_link", n.name + " would keep no active link (" + f.port_label(node, port) +
                             " is its last); a CA's last link is never disabled"};
  if (n.type != NodeType::sw) return {};
  if (c.active_other == 0)
    return {"switch_isolation", n.name + " would keep no active link; never cut off a switch"};
  const Port* p = n.port(port);
  if (level[node] == 1 && is_up(f, level, node, *p) && c.up_active_other == 0)
    return {"leaf_isolation", n.name + " would keep 0 of " + std::to_string(c.up_total) +
                                  " uplinks; a leaf is never cut off the spine"};
  return {};
}

// min_up_links for one end; empty rule when it passes.
Check min_up_rule(const GuardConfig& cfg, const Fabric& f, const GuardState& s,
                  const std::vector<int>& level, uint32_t node, int port) {
  const Node& n = f.node(node);
  if (n.type != NodeType::sw || !is_up(f, level, node, *n.port(port))) return {};
  LinkCounts c = count_links(f, s, level, node, port);
  if (c.up_active_other >= cfg.min_up_links) return {};
  return {"min_up_links", n.name + " would keep " + std::to_string(c.up_active_other) + " of " +
                              std::to_string(c.up_total) + " uplinks, min_up_links is " +
                              std::to_string(cfg.min_up_links)};
}

}  // namespace guard_detail

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::allowed:
      return "allowed";
    case Verdict::dry_run:
      return "dry_run";
    case Verdict::refused:
      return "refused";
  }
  return "?";
}

std::string_view action_name(PortAction a) {
  return a == PortAction::disable ? "disable" : "enable";
}

Decision Guard::decide(const Request& request, const fabric::Fabric& fabric,
                       const GuardState& state, int64_t now_us) const {
  namespace gd = guard_detail;
  const bool dry = config_.mode == GuardMode::dry_run;
  const std::string target = gd::port_text(fabric, request.node_guid, request.port);
  Decision ok;
  ok.verdict = dry ? Verdict::dry_run : Verdict::allowed;
  const std::string verb =
      std::string(dry ? "would " : "") + std::string(action_name(request.action));

  if (request.action == PortAction::enable) {
    ok.reason = verb + " " + target + ": enable is always allowed";
    return ok;
  }

  uint32_t node = fabric.find_guid(request.node_guid);
  if (node == fabric::kNoNode)
    return gd::refuse("unknown_port",
                      "no node " + fabric::format_guid(request.node_guid) + " in the fabric model");
  if (state.disabled.count(PortKey{request.node_guid, request.port}))
    return gd::refuse("already_disabled", target + " is already disabled by the guard");
  const fabric::Port* p = fabric.node(node).port(request.port);
  if (p == nullptr || !p->has_peer())
    return gd::refuse("unknown_port", target + " has no known link");
  const PortKey peer{fabric.node(p->peer_node).guid, p->peer_port};
  if (state.disabled.count(peer))
    return gd::refuse("already_disabled",
                      target + " is already disabled by the guard from its other end");
  if (PortKey{request.node_guid, request.port} == request.sm_port || peer == request.sm_port)
    return gd::refuse("sm_link",
                      target + " is the SM's own link (" +
                          gd::port_text(fabric, request.sm_port.guid, request.sm_port.port) +
                          "); never disabled");

  const std::vector<int> level = gd::switch_levels(fabric, state);
  const std::array<std::pair<uint32_t, int>, 2> ends = {std::pair{node, request.port},
                                                        std::pair{p->peer_node, p->peer_port}};
  for (const auto& [n, port] : ends) {
    gd::Check c = gd::hard_rules(fabric, state, level, n, port);
    if (!c.rule.empty()) return gd::refuse(c.rule, c.reason);
  }

  // Soft rules: collected, then refused or overridden by force.
  std::vector<gd::Check> soft;
  for (const auto& [n, port] : ends) {
    gd::Check c = gd::min_up_rule(config_, fabric, state, level, n, port);
    if (!c.rule.empty()) soft.push_back(c);
  }
  const int total = static_cast<int>(state.disabled.size());
  if (total + 1 > config_.max_disabled_total)
    soft.push_back({"max_disabled_total", std::to_string(total) +
                                              " ports already disabled, max_disabled_total is " +
                                              std::to_string(config_.max_disabled_total)});
  for (const auto& [n, port] : ends) {
    if (fabric.node(n).type != fabric::NodeType::sw) continue;
    int here = gd::disabled_touching(fabric, state, n);
    if (here + 1 > config_.max_disabled_per_switch)
      soft.push_back(
          {"max_disabled_per_switch", fabric.node(n).name + " already has " + std::to_string(here) +
                                          " disabled links, max_disabled_per_switch is " +
                                          std::to_string(config_.max_disabled_per_switch)});
  }
  const int hour = gd::disables_last_hour(state, now_us);
  if (hour + 1 > config_.max_actions_per_hour)
    soft.push_back({"max_actions_per_hour",
                    std::to_string(hour) + " disables in the last hour, max_actions_per_hour is " +
                        std::to_string(config_.max_actions_per_hour)});

  if (!soft.empty() && !request.force) return gd::refuse(soft[0].rule, soft[0].reason);
  ok.reason = verb + " " + target + ": " + std::to_string(total + 1) + " of " +
              std::to_string(config_.max_disabled_total) + " disabled, " +
              std::to_string(hour + 1) + " of " + std::to_string(config_.max_actions_per_hour) +
              " this hour";
  if (!soft.empty()) {
    ok.reason += "; forced, overriding";
    for (const gd::Check& c : soft) {
      ok.overridden.push_back(c.rule);
      ok.reason += " " + c.rule + " (" + c.reason + ")";
    }
  }
  return ok;
}

void record(GuardState& state, const Request& request, const fabric::Fabric& fabric,
            int64_t now_us) {
  const PortKey key{request.node_guid, request.port};
  uint32_t node = fabric.find_guid(request.node_guid);
  const fabric::Port* p = node == fabric::kNoNode ? nullptr : fabric.node(node).port(request.port);
  if (request.action == PortAction::disable) {
    state.disabled.insert(key);
    if (p != nullptr && p->has_peer())
      state.peer_of[key] = PortKey{fabric.node(p->peer_node).guid, p->peer_port};
    state.disable_times.push_back(now_us);
  } else {
    std::vector<PortKey> gone{key};
    if (auto it = state.peer_of.find(key); it != state.peer_of.end()) gone.push_back(it->second);
    if (p != nullptr && p->has_peer())
      gone.push_back(PortKey{fabric.node(p->peer_node).guid, p->peer_port});
    for (auto it = state.peer_of.begin(); it != state.peer_of.end(); ++it)
      if (it->second == key) gone.push_back(it->first);  // disabled from the other end
    for (const PortKey& k : gone) {
      state.disabled.erase(k);
      state.peer_of.erase(k);
    }
  }
  std::erase_if(state.disable_times,
                [&](int64_t t) { return t <= now_us - guard_detail::kHourUs; });
}

}  // namespace ibw::actions
