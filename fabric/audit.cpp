#include "fabric/audit.h"

#include <algorithm>
#include <tuple>

#include "fabric/audit_context.h"
#include "fabric/diagnostics.h"

namespace ibw::fabric {

std::string_view finding_kind_name(FindingKind k) {
  static constexpr std::string_view kNames[kFindingKinds] = {
      "missing",  "miswired",     "swapped",      "unexpected",
      "degraded", "missing_node", "unknown_node", "partition"};
  return kNames[static_cast<size_t>(k)];
}

namespace detail {

std::string AuditContext::label(uint32_t node, int port) const {
  if (!plan_name[node].empty()) return plan_name[node] + "/" + std::to_string(port);
  return fabric.port_label(node, port);
}

const Port* AuditContext::fabric_port(uint32_t node, int port) const {
  return node == kNoNode ? nullptr : fabric.node(node).port(port);
}

std::optional<PortKey> AuditContext::peer_of(uint32_t node, int port) const {
  const Port* p = fabric_port(node, port);
  if (!p || !p->has_peer()) return std::nullopt;
  return port_key(p->peer_node, p->peer_port);
}

std::string AuditContext::location_of(PortKey k) const {
  if (auto link = planned_port.find(k)) {
    const PlannedLink& l = plan.links[*link];
    bool is_a = a_node[*link] == key_node(k) && l.a.port == key_port(k);
    const std::string& loc = is_a ? l.a.location : l.b.location;
    if (!loc.empty()) return loc;
  }
  return std::string(node_location[key_node(k)]);
}

void AuditContext::add(Finding f) {
  // de-duplicate locations, keep first-seen order
  std::vector<std::string> uniq;
  for (auto& loc : f.locations)
    if (!loc.empty() && std::find(uniq.begin(), uniq.end(), loc) == uniq.end()) uniq.push_back(loc);
  f.locations = std::move(uniq);
  out.summary.by_kind[static_cast<size_t>(f.kind)]++;
  out.findings.push_back(std::move(f));
}

void AuditContext::add_locations(Finding& f, size_t i) const {
  const PlannedLink& l = plan.links[i];
  auto loc = [&](const PlanEnd& e, uint32_t node) {
    if (!e.location.empty() || node == kNoNode) return e.location;
    return std::string(node_location[node]);
  };
  f.locations.push_back(loc(l.a, a_node[i]));
  f.locations.push_back(loc(l.b, b_node[i]));
}

}  // namespace detail

namespace {

using detail::AuditContext;
using detail::LinkState;
using detail::port_key;
using detail::PortKey;

void resolve(AuditContext& ctx) {
  const Plan& plan = ctx.plan;
  size_t n = plan.links.size();
  ctx.a_node.assign(n, kNoNode);
  ctx.b_node.assign(n, kNoNode);
  ctx.state.assign(n, LinkState::pending);
  ctx.planned_node.assign(ctx.fabric.size(), 0);
  ctx.plan_name.assign(ctx.fabric.size(), {});
  ctx.node_location.assign(ctx.fabric.size(), {});
  ctx.planned_port.reserve(n * 2);
  // Each distinct plan node name is resolved once: by interned id when the plan came from
  // a parser (finish_plan), else through a name cache (plans built in code).
  bool interned = !plan.nodes.empty();
  std::vector<uint32_t> by_id(plan.nodes.size(), kNoNode - 1);  // kNoNode - 1: not yet resolved
  std::unordered_map<std::string_view, uint32_t> cache;
  DiagnosticSink sink(plan.file);
  auto lookup = [&](const PlanEnd& e, int line, const char* field) {
    if (interned && by_id[e.node_id] != kNoNode - 1) return by_id[e.node_id];
    if (!interned) {
      auto it = cache.find(e.node);
      if (it != cache.end()) return it->second;
    }
    bool ambiguous = false;
    uint32_t idx = ctx.fabric.resolve(e.node, &ambiguous);
    if (ambiguous)
      sink.add(line, field,
               "\"" + e.node + "\" names several fabric nodes; use a node-name-map or a GUID");
    if (interned)
      by_id[e.node_id] = idx;
    else
      cache.emplace(e.node, idx);
    if (idx != kNoNode && ctx.plan_name[idx].empty()) ctx.plan_name[idx] = e.node;
    return idx;
  };
  for (size_t i = 0; i < n; ++i) {
    const PlannedLink& l = plan.links[i];
    ctx.a_node[i] = lookup(l.a, l.line, "a_node");
    ctx.b_node[i] = lookup(l.b, l.line, "b_node");
    if (ctx.a_node[i] != kNoNode && ctx.node_location[ctx.a_node[i]].empty())
      ctx.node_location[ctx.a_node[i]] = l.a.location;
    if (ctx.b_node[i] != kNoNode && ctx.node_location[ctx.b_node[i]].empty())
      ctx.node_location[ctx.b_node[i]] = l.b.location;
    if (ctx.a_node[i] != kNoNode) {
      ctx.planned_node[ctx.a_node[i]] = 1;
      ctx.planned_port.emplace(port_key(ctx.a_node[i], l.a.port), static_cast<uint32_t>(i));
    }
    if (ctx.b_node[i] != kNoNode) {
      ctx.planned_node[ctx.b_node[i]] = 1;
      ctx.planned_port.emplace(port_key(ctx.b_node[i], l.b.port), static_cast<uint32_t>(i));
    }
  }
  sink.throw_if_any();
}

// Active rate of a correctly cabled link vs the plan and vs what both ends have enabled.
void check_rate(AuditContext& ctx, size_t i) {
  const PlannedLink& l = ctx.plan.links[i];
  const Port* pa = ctx.fabric_port(ctx.a_node[i], l.a.port);
  const Port* pb = ctx.fabric_port(ctx.b_node[i], l.b.port);
  int width = std::max(pa->width_active, pb->width_active);
  if (pa->width_active && pb->width_active) width = std::min(pa->width_active, pb->width_active);
  Speed speed = std::max(pa->speed_active, pb->speed_active);
  if (pa->speed_active != Speed::unknown && pb->speed_active != Speed::unknown)
    speed = std::min(pa->speed_active, pb->speed_active);
  auto enabled_width = [](const Port* p) {
    return p->width_enabled ? p->width_enabled : p->width_supported;
  };
  auto enabled_speed = [](const Port* p) {
    return p->speed_enabled != Speed::unknown ? p->speed_enabled : p->speed_supported;
  };
  int can_width = std::min(enabled_width(pa), enabled_width(pb));
  Speed can_speed = std::min(enabled_speed(pa), enabled_speed(pb));

  std::string why;
  int want_width = width;
  Speed want_speed = speed;
  if (l.width && width && width < l.width) want_width = l.width, why = "the plan";
  if (l.speed != Speed::unknown && speed != Speed::unknown && speed < l.speed)
    want_speed = l.speed, why = "the plan";
  if (can_width && width && width < can_width && want_width < can_width) {
    want_width = can_width;
    if (why.empty()) why = "what both ends have enabled";
  }
  if (can_speed != Speed::unknown && speed != Speed::unknown && speed < can_speed &&
      want_speed < can_speed) {
    want_speed = can_speed;
    if (why.empty()) why = "what both ends have enabled";
  }
  if (why.empty()) {
    ctx.state[i] = LinkState::ok;
    ctx.out.summary.ok++;
    return;
  }
  ctx.state[i] = LinkState::degraded;
  Finding f{FindingKind::degraded, {l.cable_id}, {}, {}, {}, {}};
  f.planned.push_back({AuditContext::plan_label(l.a), AuditContext::plan_label(l.b)});
  f.found.push_back({ctx.label(ctx.a_node[i], l.a.port), ctx.label(ctx.b_node[i], l.b.port)});
  ctx.add_locations(f, i);
  f.advice = "link " + f.found[0].a + " - " + f.found[0].b + " runs at " + rate_name(width, speed) +
             ", expected " + rate_name(want_width, want_speed) + " (" + why + "): reseat cable " +
             l.cable_id + ", clean both ends, replace the cable or transceiver if it persists";
  ctx.add(std::move(f));
}

// Two planned links whose far ends traded places: each found link joins one end of each.
bool try_swap(AuditContext& ctx, size_t i) {
  const PlannedLink& l = ctx.plan.links[i];
  PortKey ends[2] = {port_key(ctx.a_node[i], l.a.port), port_key(ctx.b_node[i], l.b.port)};
  for (int e = 0; e < 2; ++e) {
    auto x = ctx.peer_of(detail::key_node(ends[e]), detail::key_port(ends[e]));
    if (!x) continue;
    auto found = ctx.planned_port.find(*x);
    if (!found || *found == i) continue;
    size_t j = *found;
    if (ctx.state[j] != LinkState::pending || ctx.a_node[j] == kNoNode || ctx.b_node[j] == kNoNode)
      continue;
    const PlannedLink& m = ctx.plan.links[j];
    PortKey mends[2] = {port_key(ctx.a_node[j], m.a.port), port_key(ctx.b_node[j], m.b.port)};
    PortKey x_other = (*x == mends[0]) ? mends[1] : mends[0];
    auto y = ctx.peer_of(detail::key_node(ends[1 - e]), detail::key_port(ends[1 - e]));
    if (!y || *y != x_other) continue;
    // l.end[e] <-> x (an end of m) and l.other <-> m.other: the two cables trade places.
    ctx.state[i] = ctx.state[j] = LinkState::reported;
    Finding f{FindingKind::swapped, {l.cable_id, m.cable_id}, {}, {}, {}, {}};
    f.planned.push_back({AuditContext::plan_label(l.a), AuditContext::plan_label(l.b)});
    f.planned.push_back({AuditContext::plan_label(m.a), AuditContext::plan_label(m.b)});
    // Orient like the plan: cable l's a end first, then m's end that is not on l's a link.
    PortKey la = ends[0], la_peer = e == 0 ? *x : x_other;
    PortKey m_free = (la_peer == mends[0]) ? mends[1] : mends[0];
    PortKey m_free_peer = (m_free == *x) ? ends[e] : ends[1 - e];
    f.found.push_back({ctx.label(la), ctx.label(la_peer)});
    f.found.push_back({ctx.label(m_free), ctx.label(m_free_peer)});
    ctx.add_locations(f, i);
    ctx.add_locations(f, j);
    f.advice = "cables " + l.cable_id + " and " + m.cable_id +
               " are swapped: exchange the plugs at " + ctx.label(ends[e]) + " and " +
               ctx.label(x_other) + " (or at " + ctx.label(ends[1 - e]) + " and " + ctx.label(*x) +
               ")";
    ctx.add(std::move(f));
    return true;
  }
  return false;
}

void report_miswired_or_missing(AuditContext& ctx, size_t i) {
  const PlannedLink& l = ctx.plan.links[i];
  ctx.state[i] = LinkState::reported;
  auto pa = ctx.peer_of(ctx.a_node[i], l.a.port);
  auto pb = ctx.peer_of(ctx.b_node[i], l.b.port);
  std::string la = AuditContext::plan_label(l.a), lb = AuditContext::plan_label(l.b);
  Finding f{pa || pb ? FindingKind::miswired : FindingKind::missing,
            {l.cable_id},
            {{la, lb}},
            {},
            {},
            {}};
  ctx.add_locations(f, i);
  if (!pa && !pb) {
    f.advice = "cable " + l.cable_id + " between " + la + " and " + lb +
               " is not up: check that it is plugged in at both ends, then reseat or replace it";
    // Live/cache PortInfo tells a port someone disabled from a cable that is not there.
    for (auto [node, end, label] :
         {std::tuple{ctx.a_node[i], l.a.port, la}, std::tuple{ctx.b_node[i], l.b.port, lb}}) {
      const Port* p = ctx.fabric_port(node, end);
      if (p && p->phys_state == kPhysDisabled)
        f.advice = label +
                   " is administratively disabled (PhysLinkState Disabled): re-enable it "
                   "(ibportstate ... enable) if cable " +
                   l.cable_id + " is meant to be in service";
    }
  } else if (pa && !pb) {
    f.found.push_back({la, ctx.label(*pa)});
    f.locations.push_back(ctx.location_of(*pa));
    f.advice = "move cable " + l.cable_id + " from " + ctx.label(*pa) + " to " + lb;
  } else if (!pa && pb) {
    f.found.push_back({lb, ctx.label(*pb)});
    f.locations.push_back(ctx.location_of(*pb));
    f.advice = "move cable " + l.cable_id + " from " + ctx.label(*pb) + " to " + la;
  } else {
    f.found.push_back({la, ctx.label(*pa)});
    f.found.push_back({lb, ctx.label(*pb)});
    f.locations.push_back(ctx.location_of(*pa));
    f.locations.push_back(ctx.location_of(*pb));
    f.advice = la + " goes to " + ctx.label(*pa) + " and " + lb + " goes to " + ctx.label(*pb) +
               "; re-cable so that " + l.cable_id + " joins " + la + " and " + lb;
  }
  ctx.add(std::move(f));
}

void sort_findings(std::vector<Finding>& findings) {
  auto key = [](const Finding& f) {
    const std::string* first = !f.cables.empty()  ? &f.cables[0]
                               : !f.found.empty() ? &f.found[0].a
                                                  : nullptr;
    return first ? *first : std::string();
  };
  std::stable_sort(findings.begin(), findings.end(), [&](const Finding& x, const Finding& y) {
    if (x.kind != y.kind) return x.kind < y.kind;
    return key(x) < key(y);
  });
}

}  // namespace

AuditResult run_audit(const Plan& plan, const Fabric& fabric) {
  AuditContext ctx(plan, fabric);
  resolve(ctx);
  ctx.out.summary.planned_links = plan.links.size();
  ctx.out.summary.found_links = fabric.link_count();

  detail::audit_found_partitions(ctx);
  detail::audit_absent_nodes(ctx);
  std::vector<size_t> bad;
  for (size_t i = 0; i < plan.links.size(); ++i) {
    if (ctx.state[i] != LinkState::pending) continue;
    const PlannedLink& l = plan.links[i];
    auto pa = ctx.peer_of(ctx.a_node[i], l.a.port);
    if (pa && *pa == port_key(ctx.b_node[i], l.b.port))
      check_rate(ctx, i);
    else
      bad.push_back(i);
  }
  for (size_t i : bad)
    if (ctx.state[i] == LinkState::pending) try_swap(ctx, i);
  for (size_t i : bad)
    if (ctx.state[i] == LinkState::pending) report_miswired_or_missing(ctx, i);
  detail::audit_found_links(ctx);
  sort_findings(ctx.out.findings);
  return std::move(ctx.out);
}

}  // namespace ibw::fabric
