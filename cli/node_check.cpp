// check_nodes; see node_check.h.
#include "cli/node_check.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/hostlist.h"
#include "fabric/route_model.h"
#include "ingest/counters.h"

namespace ibw::cli {
namespace node_check_detail {

using fabric::Fabric;
using fabric::kNoNode;
using fabric::Port;
using PortId = std::pair<uint32_t, int>;

constexpr int kActive = 4;
constexpr int64_t kVerdictWindowUs = 3600LL * 1'000'000;

// The counters whose rise over a sweep marks a link as error-rising.
constexpr ingest::Counter kErrorCounters[] = {
    ingest::Counter::SymbolErrorCounter,       ingest::Counter::LinkErrorRecoveryCounter,
    ingest::Counter::LinkDownedCounter,        ingest::Counter::PortRcvErrors,
    ingest::Counter::LocalLinkIntegrityErrors, ingest::Counter::ExcessiveBufferOverrunErrors};

bool is_ca(const Fabric& f, uint32_t n) {
  return f.node(n).type != fabric::NodeType::sw;
}

// One end of a link stands for it: the smaller (node, port) of its two ends.
PortId link_of(const Fabric& f, PortId at) {
  const Port* p = f.node(at.first).port(at.second);
  if (!p || !p->has_peer()) return at;
  return std::min(at, PortId{p->peer_node, p->peer_port});
}

std::string link_label(const Fabric& f, PortId at) {
  std::string s = f.port_label(at.first, at.second);
  const Port* p = f.node(at.first).port(at.second);
  if (p && p->has_peer()) s += " - " + f.port_label(p->peer_node, p->peer_port);
  return s;
}

std::string rate(int width, fabric::Speed speed) {
  return std::to_string(width) + "x " + std::string(fabric::speed_name(speed));
}

// The width and the speed most Active host ports of the fabric run at.
std::pair<int, fabric::Speed> usual_rate(const Fabric& f) {
  std::map<int, size_t> widths;
  std::map<fabric::Speed, size_t> speeds;
  for (uint32_t n = 0; n < f.size(); ++n) {
    if (!is_ca(f, n)) continue;
    for (const Port& p : f.node(n).ports)
      if (p.number && p.state == kActive) ++widths[p.width_active], ++speeds[p.speed_active];
  }
  auto most = [](const auto& m) {
    return std::max_element(m.begin(), m.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; });
  };
  int w = widths.empty() ? 0 : most(widths)->first;
  fabric::Speed s = speeds.empty() ? fabric::Speed::unknown : most(speeds)->first;
  return {w, s};
}

// Bad links (by link_of) with their reasons.
struct BadLinks {
  std::map<PortId, std::vector<std::string>> why;
  void add(PortId l, std::string reason) {
    auto& v = why[l];
    if (std::find(v.begin(), v.end(), reason) == v.end()) v.push_back(std::move(reason));
  }
};

BadLinks bad_links(const DaemonView& v, int64_t now_us, const std::set<PortId>& disabled) {
  const Fabric& f = v.fab;
  BadLinks bad;
  auto at_guid = [&](uint64_t guid, int port) -> std::optional<PortId> {
    uint32_t n = f.find_guid(guid);
    if (n == kNoNode || !f.node(n).port(port)) return std::nullopt;
    return link_of(f, {n, port});
  };
  auto host_link = [&](PortId l) {
    const Port* p = f.node(l.first).port(l.second);
    return is_ca(f, l.first) || (p && p->has_peer() && is_ca(f, p->peer_node));
  };
  for (PortId d : disabled)  // a host's own link is the host check's
    if (!host_link(d)) bad.add(d, "disabled by ibwarden");
  for (uint32_t n = 0; n < f.size(); ++n)
    for (const Port& p : f.node(n).ports) {
      if (!p.number || !p.has_peer() || host_link({n, p.number})) continue;
      if (p.state == 0 || p.state == kActive) continue;
      PortId l = link_of(f, {n, p.number});
      if (disabled.count(l)) continue;
      bad.add(l, "down (" + f.port_label(n, p.number) + " " +
                     std::string(fabric::port_state_name(p.state)) + ")");
    }
  store::WorkOrderQuery wq;
  wq.status = "active";
  wq.limit = 0;
  for (const auto& wo : v.db->workorders(wq))
    if (auto l = at_guid(wo.a.guid, wo.a.port))
      bad.add(*l, "suspect: work order WO-" + std::to_string(wo.id) + " " + wo.status + " (" +
                      wo.rule + ")");
  store::DecisionQuery dq;
  dq.since_us = now_us - kVerdictWindowUs;
  dq.limit = 0;
  for (const auto& d : v.db->decisions(dq))
    if (d.rule != "manual" && d.action != "enable")
      if (auto l = at_guid(d.node_guid, d.port))
        bad.add(*l, "error verdict in the last hour: rule " + d.rule);
  for (const auto& r : v.ports) {
    auto l = at_guid(r.node_guid, r.port);
    if (!l) continue;
    for (ingest::Counter c : kErrorCounters) {
      auto i = static_cast<size_t>(c);
      if ((r.deltas_valid >> i & 1) && r.deltas[i] > 0)
        bad.add(*l, "errors rising: " + std::string(ingest::counter_name(c)) + " +" +
                        std::to_string(r.deltas[i]) + " at " + f.port_label(l->first, l->second));
    }
  }
  return bad;
}

}  // namespace node_check_detail

NodeCheck check_nodes(const DaemonView& v, const std::vector<std::string>& names, int64_t now_us) {
  using namespace node_check_detail;
  const Fabric& f = v.fab;
  NodeCheck out;
  std::vector<uint8_t> among(f.size(), 0);
  std::set<PortId> disabled;
  for (const auto& d : v.db->disabled_ports())
    if (uint32_t n = f.find_guid(d.node_guid); n != kNoNode && f.node(n).port(d.port))
      disabled.insert(link_of(f, {n, d.port}));
  auto [width, speed] = usual_rate(f);

  for (const std::string& name : names) {
    const std::vector<uint32_t>& cas = v.hosts->cas_of(name);
    if (cas.empty()) {
      out.unknown.push_back(name);
      continue;
    }
    ++out.nodes;
    for (uint32_t ca : cas) {
      ++out.cas;
      among[ca] = 1;
      bool linked = false;
      for (const Port& p : f.node(ca).ports) {
        // An uncabled port (no peer recorded, never up) is not one of the host's links.
        bool counts =
            p.number && (p.has_peer() || p.state > 1 || p.phys_state == fabric::kPhysDisabled);
        if (!counts) continue;
        linked = true;
        PortId l = link_of(f, {ca, p.number});
        std::string label = link_label(f, {ca, p.number});
        const Port* far = p.has_peer() ? f.node(p.peer_node).port(p.peer_port) : nullptr;
        std::string why;
        if (disabled.count(l))
          why = "disabled by ibwarden";
        else if (p.state != kActive)
          why = "link " + std::string(fabric::port_state_name(p.state)) + " (" +
                std::string(fabric::phys_state_name(p.phys_state)) + ")";
        else if (far && far->state && far->state != kActive)
          why = "link " + std::string(fabric::port_state_name(far->state)) + " at the switch";
        else if ((width && p.width_active && p.width_active < width) ||
                 (speed != fabric::Speed::unknown && p.speed_active != fabric::Speed::unknown &&
                  p.speed_active < speed))
          why = "runs at " + rate(p.width_active, p.speed_active) + ", expected " +
                rate(width, speed);
        if (!why.empty()) out.problems.push_back({name, label, why});
      }
      if (linked) continue;
      // No cabled port: the link is gone (a discovery forgets the peer of a dead link).
      for (const Port& p : f.node(ca).ports)
        if (p.number && p.present)
          out.problems.push_back({name, f.port_label(ca, p.number),
                                  "link " + std::string(fabric::port_state_name(p.state)) + " (" +
                                      std::string(fabric::phys_state_name(p.phys_state)) +
                                      "), no peer"});
    }
  }
  if (out.nodes == 0) return out;

  BadLinks bad = bad_links(v, now_us, disabled);
  out.bad_links = bad.why.size();
  for (const auto& [l, reasons] : bad.why) {
    fabric::LinkHosts h = v.crossing(l.first, l.second, &among);
    if (!h.pairs) continue;
    std::vector<std::string> hit;
    for (uint32_t ca : h.cas)
      if (const std::string* n = v.hosts->node_of(ca);
          n && std::find(hit.begin(), hit.end(), *n) == hit.end())
        hit.push_back(*n);
    std::string why;
    for (const auto& r : reasons) why += (why.empty() ? "" : "; ") + r;
    why += "; " + std::to_string(h.pairs) + " routes between the listed hosts cross it";
    out.problems.push_back({core::compress_hostlist(hit), link_label(f, l), why});
  }
  return out;
}

}  // namespace ibw::cli
