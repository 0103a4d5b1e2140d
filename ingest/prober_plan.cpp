// The pure parts of the prober: which LIDs and links to probe, the directed routes to the
// links (breadth first over Active links from the local node), the token bucket, and the
// round-level helpers that combine LID-routed and directed-route rounds.
#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "ingest/prober.h"

namespace ibw::ingest {
namespace prober_detail {

constexpr uint8_t kPortActive = 4;
constexpr size_t kMaxHops = 63;  // IB_SUBNET_PATH_HOPS_MAX - 1 out ports

// A port that carries traffic as far as the model knows (state 0: unknown, e.g. from an
// ibnetdiscover file).
bool usable(const fabric::Fabric& fab, uint32_t node, int port) {
  const fabric::Port* p = fab.node(node).port(port);
  if (!p || !p->present || !p->has_peer()) return false;
  if (p->state != 0 && p->state != kPortActive) return false;
  const fabric::Port* far = fab.node(p->peer_node).port(p->peer_port);
  return far && (far->state == 0 || far->state == kPortActive);
}

using Route = std::optional<std::vector<uint8_t>>;

// Directed routes from the local node to every node; only switches (and the local node
// itself) forward directed-route SMPs.
std::vector<Route> directed_routes(const fabric::Fabric& fab, uint32_t local, int local_port) {
  std::vector<Route> routes(fab.size());
  routes[local].emplace();
  std::vector<uint32_t> queue = {local};
  for (size_t head = 0; head < queue.size(); ++head) {
    uint32_t at = queue[head];
    const fabric::Node& n = fab.node(at);
    bool is_sw = n.type == fabric::NodeType::sw;
    if (at != local && !is_sw) continue;
    if (routes[at]->size() >= kMaxHops) continue;
    for (size_t p = 1; p < n.ports.size(); ++p) {
      if (at == local && !is_sw && static_cast<int>(p) != local_port) continue;
      if (!usable(fab, at, static_cast<int>(p))) continue;
      uint32_t peer = n.ports[p].peer_node;
      if (routes[peer]) continue;
      routes[peer] = *routes[at];
      routes[peer]->push_back(static_cast<uint8_t>(p));
      queue.push_back(peer);
    }
  }
  return routes;
}

// A route that can leave through `end`: the node forwards (or is the local node sending
// out of its own port) and the route has room for one more hop.
const std::vector<uint8_t>* launch_route(const fabric::Fabric& fab,
                                         const std::vector<Route>& routes, uint32_t local,
                                         int local_port, const LinkEnd& end) {
  const Route& r = routes[end.node];
  if (!r || r->size() >= kMaxHops) return nullptr;
  const fabric::Node& n = fab.node(end.node);
  if (n.type == fabric::NodeType::sw) return &*r;
  if (end.node == local && end.port == local_port) return &*r;
  return nullptr;
}

}  // namespace prober_detail

std::vector<LinkEnd> fabric_links(const fabric::Fabric& fabric) {
  std::vector<LinkEnd> links;
  for (uint32_t i = 0; i < fabric.size(); ++i) {
    const fabric::Node& n = fabric.node(i);
    for (size_t p = 1; p < n.ports.size(); ++p) {
      const fabric::Port& port = n.ports[p];
      if (!prober_detail::usable(fabric, i, static_cast<int>(p))) continue;
      bool lower =
          i < port.peer_node || (i == port.peer_node && static_cast<int>(p) < port.peer_port);
      if (lower) links.push_back({i, static_cast<int>(p)});
    }
  }
  return links;
}

std::vector<LidTarget> plan_lid_targets(const fabric::Fabric& fabric, uint16_t local_lid) {
  std::vector<LidTarget> out;
  std::set<uint16_t> seen = {0, local_lid};
  for (uint32_t i = 0; i < fabric.size(); ++i) {
    const fabric::Node& n = fabric.node(i);
    if (n.type == fabric::NodeType::sw) {
      const fabric::Port* p0 = n.port(0);
      if (p0 && seen.insert(p0->lid).second) out.push_back({p0->lid, n.guid});
      continue;
    }
    for (size_t p = 1; p < n.ports.size(); ++p)
      if (prober_detail::usable(fabric, i, static_cast<int>(p)) &&
          seen.insert(n.ports[p].lid).second)
        out.push_back({n.ports[p].lid, n.guid});
  }
  return out;
}

DrPlan plan_link_probes(const fabric::Fabric& fabric, uint32_t local_node, int local_port,
                        const std::vector<LinkEnd>& links) {
  using namespace prober_detail;
  if (local_node >= fabric.size())
    throw std::invalid_argument("the local node is not in the fabric model");
  auto routes = directed_routes(fabric, local_node, local_port);
  DrPlan plan;
  for (const LinkEnd& given : links) {
    const fabric::Port* p =
        given.node < fabric.size() ? fabric.node(given.node).port(given.port) : nullptr;
    if (!p || !p->has_peer())
      throw std::invalid_argument("no link at node index " + std::to_string(given.node) + " port " +
                                  std::to_string(given.port));
    LinkEnd other{p->peer_node, p->peer_port};
    const std::vector<uint8_t>* ra = nullptr;
    const std::vector<uint8_t>* rb = nullptr;
    if (usable(fabric, given.node, given.port)) {
      ra = launch_route(fabric, routes, local_node, local_port, given);
      rb = launch_route(fabric, routes, local_node, local_port, other);
    }
    if (!ra && !rb) {
      plan.unreachable.push_back(given);
      continue;
    }
    // Leave through the end nearer to us; on a tie, the lower node index (deterministic).
    bool from_given = ra && (!rb || ra->size() < rb->size() ||
                             (ra->size() == rb->size() && given.node < other.node));
    DrTarget t;
    t.near = from_given ? given : other;
    t.far = from_given ? other : given;
    t.route = from_given ? *ra : *rb;
    t.route.push_back(static_cast<uint8_t>(t.near.port));
    const fabric::Node& far = fabric.node(t.far.node);
    t.far_guid = far.guid;
    t.dst = fabric::format_guid(far.guid);
    if (far.type != fabric::NodeType::sw) t.dst += "/" + std::to_string(t.far.port);
    plan.targets.push_back(std::move(t));
  }
  return plan;
}

// Rounding in the refill sums must not hold back a token that is due.
constexpr double kTokenSlack = 1e-9;

TokenBucket::TokenBucket(double rate, double burst, int64_t now_us)
    : rate_(rate), burst_(std::max(1.0, burst)), tokens_(std::max(1.0, burst)), last_us_(now_us) {}

void TokenBucket::refill(int64_t now_us) const {
  if (now_us <= last_us_) return;
  tokens_ = std::min(burst_, tokens_ + rate_ * static_cast<double>(now_us - last_us_) / 1e6);
  last_us_ = now_us;
}

bool TokenBucket::take(int64_t now_us) {
  if (rate_ <= 0) return true;  // unlimited
  refill(now_us);
  if (tokens_ < 1.0 - kTokenSlack) return false;
  tokens_ -= 1.0;
  return true;
}

int64_t TokenBucket::wait_us(int64_t now_us) const {
  if (rate_ <= 0) return 0;
  refill(now_us);
  if (tokens_ >= 1.0 - kTokenSlack) return 0;
  return static_cast<int64_t>(std::ceil((1.0 - tokens_) * 1e6 / rate_));
}

std::optional<double> percentile(std::vector<double>& values, double q) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<size_t>(std::ceil(std::clamp(q, 0.0, 1.0) * values.size()));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

namespace prober_detail {

void append(ProbeRound& into, ProbeRound&& from) {
  ProbeStats& a = into.stats;
  const ProbeStats& b = from.stats;
  if (into.observations.empty() && a.targets == 0) a.started_us = b.started_us;
  a.duration_us += b.duration_us;
  a.targets += b.targets;
  a.mads_sent += b.mads_sent;
  a.lost += b.lost;
  a.mismatched += b.mismatched;
  a.max_outstanding = std::max(a.max_outstanding, b.max_outstanding);
  for (auto& o : from.observations) into.observations.push_back(std::move(o));
  for (auto& w : from.warnings) into.warnings.push_back(std::move(w));
}

uint32_t local_node(const Prober& prober, const fabric::Fabric& fabric) {
  uint32_t local = fabric.find_guid(prober.vantage().node_guid);
  if (local == fabric::kNoNode)
    throw std::runtime_error("the local node " + fabric::format_guid(prober.vantage().node_guid) +
                             " is not in the fabric model: was it discovered from another "
                             "fabric or port?");
  return local;
}

}  // namespace prober_detail

ProbeRound probe_links(Prober& prober, const fabric::Fabric& fabric,
                       const std::vector<LinkEnd>& links) {
  uint32_t local = prober_detail::local_node(prober, fabric);
  DrPlan plan = plan_link_probes(fabric, local, prober.vantage().port, links);
  ProbeRound round = prober.probe_routes(plan.targets);
  for (const LinkEnd& e : plan.unreachable) {
    const fabric::Port* p = fabric.node(e.node).port(e.port);
    round.warnings.push_back("link " + fabric.port_label(e.node, e.port) + " - " +
                             fabric.port_label(p->peer_node, p->peer_port) +
                             ": no directed route over Active links from here; not probed");
  }
  return round;
}

ProbeRound probe_fabric(Prober& prober, const fabric::Fabric& fabric,
                        const std::vector<LinkEnd>& skip) {
  uint32_t local = prober_detail::local_node(prober, fabric);  // before sending anything
  (void)local;
  ProbeRound round = prober.probe_lids(plan_lid_targets(fabric, prober.vantage().lid));
  std::vector<LinkEnd> links = fabric_links(fabric);
  std::erase_if(links, [&](const LinkEnd& l) {
    const fabric::Port* p = fabric.node(l.node).port(l.port);
    for (const LinkEnd& s : skip)
      if (s == l || (p && p->has_peer() && s.node == p->peer_node && s.port == p->peer_port))
        return true;
    return false;
  });
  prober_detail::append(round, probe_links(prober, fabric, links));
  return round;
}

}  // namespace ibw::ingest
