// Node-level audit steps: planned nodes that were not discovered, discovered nodes the plan
// does not know, partitions, and found links that no planned cable explains.
#include <algorithm>
#include <numeric>

#include "fabric/audit_context.h"

namespace ibw::fabric::detail {
namespace {

// Minimal union-find over dense ids.
struct Groups {
  std::vector<uint32_t> parent;
  explicit Groups(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  uint32_t find(uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(uint32_t a, uint32_t b) { parent[find(a)] = find(b); }
};

std::string sample_names(const std::vector<std::string>& names, size_t max = 5) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < max; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > max) s += ", ... (" + std::to_string(names.size() - max) + " more)";
  return s;
}

void add_planned(AuditContext& ctx, Finding& f, size_t i) {
  const PlannedLink& l = ctx.plan.links[i];
  f.cables.push_back(l.cable_id);
  f.planned.push_back({AuditContext::plan_label(l.a), AuditContext::plan_label(l.b)});
  ctx.add_locations(f, i);
  ctx.state[i] = LinkState::reported;
}

// A single planned link with an undiscovered end.
void report_single_link(AuditContext& ctx, size_t i, const std::string& absent) {
  const PlannedLink& l = ctx.plan.links[i];
  bool a_present = ctx.a_node[i] != kNoNode, b_present = ctx.b_node[i] != kNoNode;
  std::optional<PortKey> peer;
  std::string present_label;
  if (a_present)
    peer = ctx.peer_of(ctx.a_node[i], l.a.port), present_label = AuditContext::plan_label(l.a);
  if (b_present)
    peer = ctx.peer_of(ctx.b_node[i], l.b.port), present_label = AuditContext::plan_label(l.b);
  Finding f{peer ? FindingKind::miswired : FindingKind::missing, {}, {}, {}, {}, {}};
  add_planned(ctx, f, i);
  if (peer) {
    f.found.push_back({present_label, ctx.label(*peer)});
    f.locations.push_back(ctx.location_of(*peer));
    f.advice = present_label + " is connected to " + ctx.label(*peer) + " instead of " + absent +
               " (which was not discovered): move cable " + l.cable_id + " to " +
               (a_present ? AuditContext::plan_label(l.b) : AuditContext::plan_label(l.a));
  } else {
    f.advice = "cable " + l.cable_id + " between " + AuditContext::plan_label(l.a) + " and " +
               AuditContext::plan_label(l.b) + " is not up and " + absent +
               " was not discovered: check the cable at both ends and that the node is powered";
  }
  ctx.add(std::move(f));
}

}  // namespace

void audit_absent_nodes(AuditContext& ctx) {
  const auto& links = ctx.plan.links;
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<std::string> names;
  std::vector<std::vector<size_t>> node_links;
  auto id_of = [&](const std::string& name) {
    auto [it, inserted] = ids.emplace(name, static_cast<uint32_t>(names.size()));
    if (inserted) names.push_back(name), node_links.emplace_back();
    return it->second;
  };
  for (size_t i = 0; i < links.size(); ++i) {
    if (ctx.a_node[i] == kNoNode) node_links[id_of(links[i].a.node)].push_back(i);
    if (ctx.b_node[i] == kNoNode) node_links[id_of(links[i].b.node)].push_back(i);
  }
  if (names.empty()) return;
  Groups groups(names.size());
  for (size_t i = 0; i < links.size(); ++i)
    if (ctx.a_node[i] == kNoNode && ctx.b_node[i] == kNoNode)
      groups.join(ids[links[i].a.node], ids[links[i].b.node]);
  std::unordered_map<uint32_t, std::vector<uint32_t>> members;
  for (uint32_t n = 0; n < names.size(); ++n) members[groups.find(n)].push_back(n);
  std::vector<std::vector<uint32_t>> ordered;
  for (auto& [root, m] : members) ordered.push_back(std::move(m));
  std::sort(ordered.begin(), ordered.end());  // deterministic: by first member id

  for (const auto& group : ordered) {
    std::vector<uint32_t> multi;
    for (uint32_t n : group)
      if (node_links[n].size() >= 2) multi.push_back(n);
    if (multi.empty()) {
      for (uint32_t n : group)
        for (size_t i : node_links[n])
          if (ctx.state[i] == LinkState::pending) report_single_link(ctx, i, names[n]);
      continue;
    }
    if (group.size() == 1) {  // a lone multi-link node (e.g. a spine) whose neighbours are up
      uint32_t m = multi[0];
      Finding f{FindingKind::missing_node, {}, {}, {}, {}, {}};
      for (size_t i : node_links[m]) add_planned(ctx, f, i);
      f.advice = "node " + names[m] + " (" + std::to_string(node_links[m].size()) +
                 " planned links) was not discovered: check its power, management and cabling";
      ctx.add(std::move(f));
      continue;
    }
    Finding f{FindingKind::partition, {}, {}, {}, {}, {}};
    std::vector<std::string> sw_names;
    for (uint32_t n : multi) sw_names.push_back(names[n]);
    for (uint32_t n : group)
      for (size_t i : node_links[n]) {
        bool crossing = (ctx.a_node[i] == kNoNode) != (ctx.b_node[i] == kNoNode);
        if (crossing && ctx.state[i] == LinkState::pending) add_planned(ctx, f, i);
        ctx.state[i] = LinkState::reported;
      }
    f.advice = std::to_string(group.size()) + " planned nodes (" + sample_names(sw_names) +
               (group.size() > multi.size() ? " and the hosts behind them" : "") +
               ") are unreachable from the discovered fabric: they are cabled as a separate "
               "network, or powered off; check the " +
               std::to_string(f.cables.size()) +
               " planned cable(s) that should join them to the rest";
    ctx.add(std::move(f));
  }
}

void audit_found_partitions(AuditContext& ctx) {
  const Fabric& fab = ctx.fabric;
  Groups groups(fab.size());
  std::vector<uint8_t> linked(fab.size(), 0);
  for (uint32_t i = 0; i < fab.size(); ++i)
    for (const Port& p : fab.node(i).ports)
      if (p.has_peer()) groups.join(i, p.peer_node), linked[i] = 1;
  std::unordered_map<uint32_t, std::vector<uint32_t>> comps;
  for (uint32_t i = 0; i < fab.size(); ++i)
    if (linked[i]) comps[groups.find(i)].push_back(i);
  if (comps.size() <= 1) return;
  std::vector<std::vector<uint32_t>> parts;
  for (auto& [root, m] : comps) parts.push_back(std::move(m));
  std::sort(parts.begin(), parts.end(), [](const auto& x, const auto& y) {
    return x.size() != y.size() ? x.size() > y.size() : x.front() < y.front();
  });
  // One finding per part cut off from the largest one, each with the planned cables that
  // should join it to the rest (a cable between two minor parts goes to the later one).
  std::vector<uint32_t> part_of(fab.size(), 0);
  for (uint32_t k = 0; k < parts.size(); ++k)
    for (uint32_t n : parts[k]) part_of[n] = k;
  std::vector<Finding> found(parts.size(), Finding{FindingKind::partition, {}, {}, {}, {}, {}});
  for (size_t i = 0; i < ctx.plan.links.size(); ++i) {
    uint32_t a = ctx.a_node[i], b = ctx.b_node[i];
    if (a == kNoNode || b == kNoNode || !linked[a] || !linked[b]) continue;
    if (part_of[a] != part_of[b]) add_planned(ctx, found[std::max(part_of[a], part_of[b])], i);
  }
  auto describe = [&](const std::vector<uint32_t>& part) {
    std::vector<std::string> names;
    for (uint32_t n : part)
      if (fab.node(n).type == NodeType::sw) names.push_back(fab.node(n).name);
    if (names.empty())
      for (uint32_t n : part) names.push_back(fab.node(n).name);
    return std::to_string(part.size()) + " nodes (" + sample_names(names, 3) + ")";
  };
  for (size_t k = 1; k < parts.size(); ++k) {
    Finding& f = found[k];
    f.advice = "the discovered fabric is split: " + describe(parts[k]) +
               " form a separate network from the main one of " + describe(parts[0]) +
               (f.cables.empty() ? std::string("; the plan has no cable joining them")
                                 : "; connect them with the " + std::to_string(f.cables.size()) +
                                       " planned cable(s) listed");
    ctx.add(std::move(f));
  }
}

void audit_found_links(AuditContext& ctx) {
  const Fabric& fab = ctx.fabric;
  std::vector<std::vector<LinkEnds>> unknown_links(fab.size());
  for (uint32_t i = 0; i < fab.size(); ++i) {
    for (const Port& p : fab.node(i).ports) {
      if (!p.has_peer()) continue;
      uint32_t j = p.peer_node;
      if (j < i || (j == i && p.peer_port < p.number)) continue;
      PortKey pk = port_key(i, p.number), qk = port_key(j, p.peer_port);
      if (ctx.planned_port.find(pk) || ctx.planned_port.find(qk)) continue;  // explained
      if (!ctx.planned_node[i] || !ctx.planned_node[j]) {
        uint32_t owner = !ctx.planned_node[i] ? i : j;
        PortKey own = owner == i ? pk : qk, other = owner == i ? qk : pk;
        unknown_links[owner].push_back({ctx.label(own), ctx.label(other)});
        continue;
      }
      Finding f{FindingKind::unexpected, {}, {}, {{ctx.label(pk), ctx.label(qk)}}, {}, {}};
      f.locations = {ctx.location_of(pk), ctx.location_of(qk)};
      f.advice = "link " + ctx.label(pk) + " - " + ctx.label(qk) +
                 " is not in the plan: remove the cable, or add it to the plan if it is intended";
      ctx.add(std::move(f));
    }
  }
  for (uint32_t i = 0; i < fab.size(); ++i) {
    if (ctx.planned_node[i]) continue;
    const Node& n = fab.node(i);
    Finding f{FindingKind::unknown_node, {}, {}, std::move(unknown_links[i]), {}, {}};
    f.advice = std::string(node_type_name(n.type)) + " " + n.name + " (GUID " +
               format_guid(n.guid) + ", " + std::to_string(f.found.size()) +
               " link(s)) is not in the plan: add it to the plan or disconnect it";
    ctx.add(std::move(f));
  }
}

}  // namespace ibw::fabric::detail
