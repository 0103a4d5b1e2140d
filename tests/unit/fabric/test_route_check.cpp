// The route check (fabric/route_check.h) on fabrics built in code: a 5-switch ring routed by
// min-hop tables (a credit loop per ring direction) and by spanning-tree (up/down) tables
// (none), a fat tree whose min-hop tables gain a loop only once a link is down, and random
// tables checked against tracing every pair (unreachable pairs, routes per link, and whether
// the traced channel-dependency graph has a cycle).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fabric/route_check.h"
#include "fabric/route_check_report.h"
#include "fabric/routing.h"
#include "tests/unit/fabric/test_net.h"

using namespace ibw::fabric;

namespace route_check_test {

struct Net : ibw::test_net::NetBase {
  std::vector<uint32_t> switches, hosts;
  uint16_t next_lid = 1;
  uint32_t sw(const std::string& name, int ports) {
    uint32_t i = add_node(NodeType::sw, name, ports);
    fab.node(i).name = name;
    fab.node(i).ports[0].lid = next_lid++;
    switches.push_back(i);
    return i;
  }
  uint32_t host(const std::string& name, uint32_t leaf, int leaf_port) {
    uint32_t i = add_node(NodeType::ca, name, 1);
    fab.node(i).name = name;
    fab.node(i).ports[1].lid = next_lid++;
    link(i, 1, leaf, leaf_port);
    hosts.push_back(i);
    return i;
  }
};

// Switch-hop distances from every switch to every switch over links that are up.
std::map<uint32_t, std::map<uint32_t, int>> switch_distances(const Fabric& f,
                                                             const std::vector<uint32_t>& sws) {
  std::map<uint32_t, std::map<uint32_t, int>> dist;
  for (uint32_t s : sws) {
    auto& d = dist[s];
    d[s] = 0;
    std::vector<uint32_t> q = {s};
    for (size_t h = 0; h < q.size(); ++h) {
      const Node& n = f.node(q[h]);
      for (int p = 1; p <= n.num_ports; ++p) {
        const Port* port = n.port(p);
        if (!port->has_peer() || f.node(port->peer_node).type != NodeType::sw) continue;
        if (d.count(port->peer_node)) continue;
        d[port->peer_node] = d[q[h]] + 1;
        q.push_back(port->peer_node);
      }
    }
  }
  return dist;
}

// The switch a LID belongs to (its own, or a host's leaf).
uint32_t home_switch(const Fabric& f, const LidIndex& lids, uint16_t lid) {
  auto at = lids.find(lid);
  const Node& n = f.node(at->first);
  if (n.type == NodeType::sw) return at->first;
  return n.port(at->second)->peer_node;
}

// Min-hop tables as OpenSM's minhop builds them: among the ports on a shortest path, the one
// with the fewest LIDs routed through it so far (then the lowest), over the model's links.
RoutingTables minhop(const Fabric& f, const std::vector<uint32_t>& sws) {
  auto dist = switch_distances(f, sws);
  LidIndex lids(f);
  RoutingTables t;
  for (uint32_t s : sws) {
    Lft lft;
    lft.switch_guid = f.node(s).guid;
    lft.out_port.assign(size_t{lids.lids().back()} + 1, kNoLftEntry);
    const Node& n = f.node(s);
    std::vector<int> used(static_cast<size_t>(n.num_ports) + 1, 0);
    for (uint16_t lid : lids.lids()) {
      auto at = lids.find(lid);
      uint32_t home = home_switch(f, lids, lid);
      if (home == s) {
        lft.out_port[lid] = static_cast<uint8_t>(
            at->first == s ? 0 : f.node(at->first).port(at->second)->peer_port);
        continue;
      }
      int best = 0, best_d = 1 << 20;
      for (int p = 1; p <= n.num_ports; ++p) {
        const Port* port = n.port(p);
        if (!port->has_peer() || f.node(port->peer_node).type != NodeType::sw) continue;
        auto it = dist[port->peer_node].find(home);
        if (it == dist[port->peer_node].end()) continue;
        if (it->second < best_d || (it->second == best_d && used[p] < used[best]))
          best = p, best_d = it->second;
      }
      if (best) {
        lft.out_port[lid] = static_cast<uint8_t>(best);
        ++used[best];
      }
    }
    t.by_switch[lft.switch_guid] = lft;
  }
  return t;
}

// Forgets the link at (node, port) on both ends.
void cut(Fabric& f, uint32_t node, int port) {
  Port* p = f.node(node).port(port);
  Port* far = f.node(p->peer_node).port(p->peer_port);
  far->peer_node = kNoNode, far->peer_port = 0;
  p->peer_node = kNoNode, p->peer_port = 0;
}

// A ring of n switches (port 2 to the next, port 3 to the previous), one host each.
Net ring(int n) {
  Net net;
  for (int i = 0; i < n; ++i) net.sw("sw" + std::to_string(i + 1), 3);
  for (int i = 0; i < n; ++i) net.link(net.switches[i], 2, net.switches[(i + 1) % n], 3);
  for (int i = 0; i < n; ++i) net.host("h" + std::to_string(i + 1), net.switches[i], 1);
  return net;
}

// Brute force: trace every CA-to-LID pair; the unreachable count, the routes per directed
// switch-to-switch link (CA destinations) and the dependency edges between channels.
struct Traced {
  uint64_t unreachable = 0;
  std::map<std::pair<uint32_t, int>, uint64_t> load;
  std::set<std::pair<std::pair<uint32_t, int>, std::pair<uint32_t, int>>> deps;
};
Traced trace_all(const Fabric& f, const RoutingTables& t) {
  LidIndex lids(f);
  Traced out;
  for (uint16_t s : lids.lids()) {
    if (f.node(lids.find(s)->first).type == NodeType::sw) continue;
    for (uint16_t d : lids.lids()) {
      if (s == d) continue;
      PathResult p = trace_path(f, t, lids, s, d);
      if (!p.ok()) ++out.unreachable;
      bool to_ca = f.node(lids.find(d)->first).type != NodeType::sw;
      for (size_t i = 0; i < p.hops.size(); ++i) {
        const Hop& h = p.hops[i];
        if (!h.out_port || (!p.ok() && i + 1 == p.hops.size())) continue;  // did not leave
        const Port* port = f.node(h.node).port(h.out_port);
        bool s2s = f.node(h.node).type == NodeType::sw && port && port->has_peer() &&
                   f.node(port->peer_node).type == NodeType::sw;
        if (p.ok() && to_ca && s2s) ++out.load[{h.node, h.out_port}];
        if (i > 0 && f.node(h.node).type == NodeType::sw && p.hops[i - 1].out_port &&
            f.node(p.hops[i - 1].node).type == NodeType::sw)
          out.deps.insert({{p.hops[i - 1].node, p.hops[i - 1].out_port}, {h.node, h.out_port}});
      }
    }
  }
  return out;
}

// Whether a directed graph given by its edges has a cycle (depth first, colours).
bool has_cycle(const Traced& t) {
  std::map<std::pair<uint32_t, int>, std::vector<std::pair<uint32_t, int>>> adj;
  for (auto& [a, b] : t.deps) adj[a].push_back(b);
  std::map<std::pair<uint32_t, int>, int> colour;
  std::function<bool(std::pair<uint32_t, int>)> dfs = [&](std::pair<uint32_t, int> v) {
    colour[v] = 1;
    for (auto w : adj[v]) {
      if (colour[w] == 1) return true;
      if (colour[w] == 0 && dfs(w)) return true;
    }
    colour[v] = 2;
    return false;
  };
  for (auto& [v, _] : adj)
    if (colour[v] == 0 && dfs(v)) return true;
  return false;
}

// Every link of every loop is a real dependency chain: consecutive links meet at a node and
// the traced paths make each step.
void require_loops_traced(const Fabric& f, const RouteCheck& c, const Traced& t) {
  for (const CreditLoop& loop : c.credit_loops) {
    REQUIRE(loop.links.size() >= 2);
    for (size_t i = 0; i < loop.links.size(); ++i) {
      const DirectedLink& a = loop.links[i];
      const DirectedLink& b = loop.links[(i + 1) % loop.links.size()];
      REQUIRE(a.to_node == b.from_node);
      REQUIRE(t.deps.count({{a.from_node, a.from_port}, {b.from_node, b.from_port}}));
      REQUIRE(f.node(a.from_node).port(a.from_port)->peer_port == a.to_port);
    }
  }
}

}  // namespace route_check_test

using namespace route_check_test;

TEST_CASE("route check: a min-hop ring has one credit loop per ring direction", "[route_check]") {
  Net net = ring(5);
  RoutingTables t = minhop(net.fab, net.switches);
  RouteCheck c = check_routes(net.fab, t);
  REQUIRE(c.credit_loops.size() == 2);
  for (const CreditLoop& loop : c.credit_loops) REQUIRE(loop.links.size() == 5);
  Traced traced = trace_all(net.fab, t);
  REQUIRE(has_cycle(traced));
  require_loops_traced(net.fab, c, traced);
  REQUIRE(c.unreachable_pairs == 0);
  REQUIRE(c.sources == 5);
  REQUIRE(c.destinations == 10);
  // Every ring link carries its host pair at 1 hop and two at 2 hops: 3 routes each.
  REQUIRE(c.balance.links == 10);
  REQUIRE(c.balance.max_routes == 3);
  REQUIRE(c.balance.min_routes == 3);
  REQUIRE(c.balance.ratio == Approx(1.0));
}

TEST_CASE("route check: spanning-tree (up/down) tables on the ring have no credit loop",
          "[route_check]") {
  Net net = ring(5);
  // Up/down from root sw1: the sw3-sw4 link (both at rank 2) carries nothing, as updn with a
  // root gives on a 5-ring.
  Net tree = ring(5);
  cut(tree.fab, tree.switches[2], 2);
  RoutingTables t = minhop(tree.fab, tree.switches);  // tree routes, on the full fabric
  RouteCheck c = check_routes(net.fab, t);
  REQUIRE(c.credit_loops.empty());
  REQUIRE(!has_cycle(trace_all(net.fab, t)));
  REQUIRE(c.unreachable_pairs == 0);
  REQUIRE(c.balance.idle_links == 2);
  REQUIRE(c.balance.worst.front().routes == c.balance.max_routes);
}

TEST_CASE("route check: the minhop ring fails and the report names every loop link",
          "[route_check]") {
  Net net = ring(5);
  RoutingTables t = minhop(net.fab, net.switches);
  RouteCheck c = check_routes(net.fab, t);
  REQUIRE(c.credit_loops.size() == 2);
  RoutingEngineInfo engine{"minhop", {"updn"}, "updn_lid_matrices: disabling UPDN algorithm"};
  REQUIRE(route_problems(c, engine));
  auto j = route_check_json(net.fab, c, engine);
  REQUIRE(j["credit_loops"].size() == 2);
  REQUIRE(j["credit_loops"][0]["links"].size() == 5);
  REQUIRE(j["credit_loops"][0]["links"][0]["from"]["node"] == "sw1");
  REQUIRE(j["credit_loops"][0]["links"][0]["from"]["port"] == 2);
  REQUIRE(j["engine"] == "minhop");
  REQUIRE(j["configured_engine"] == "updn");
  REQUIRE(j["fallback"] == true);
  std::string text = format_route_check(net.fab, c, engine);
  REQUIRE(text.find("sw1/2 -> sw2/3") != std::string::npos);
  REQUIRE(text.find("FALLBACK from updn") != std::string::npos);
}

// Two spines, four leaves, two hosts per leaf (spine port i to leaf i, leaf ports 1-2 hosts,
// 3-4 spines).
Net fat_tree() {
  Net net;
  std::vector<uint32_t> leaves, spines;
  for (int i = 0; i < 4; ++i) leaves.push_back(net.sw("leaf" + std::to_string(i + 1), 4));
  for (int i = 0; i < 2; ++i) spines.push_back(net.sw("spine" + std::to_string(i + 1), 4));
  for (int l = 0; l < 4; ++l)
    for (int s = 0; s < 2; ++s) net.link(leaves[l], 3 + s, spines[s], l + 1);
  for (int l = 0; l < 4; ++l)
    for (int h = 0; h < 2; ++h) net.host("h" + std::to_string(l * 2 + h + 1), leaves[l], h + 1);
  return net;
}

TEST_CASE("route check: a fat tree re-routed by min-hop after links go down has a loop",
          "[route_check]") {
  Net net = fat_tree();
  RoutingTables intact = minhop(net.fab, net.switches);
  RouteCheck before = check_routes(net.fab, intact);
  REQUIRE(before.credit_loops.empty());
  REQUIRE(before.unreachable_pairs == 0);
  REQUIRE(!has_cycle(trace_all(net.fab, intact)));
  // leaf1 loses spine1, leaf2 loses spine2: leaf1 <-> leaf2 traffic turns down-up at leaf3 and
  // leaf4, as OpenSM's minhop re-routes it.
  cut(net.fab, net.switches[0], 3);
  cut(net.fab, net.switches[1], 4);
  RouteCheck with_old = check_routes(net.fab, intact);  // the old tables now dead-end
  REQUIRE(with_old.credit_loops.empty());
  REQUIRE(with_old.unreachable_pairs == trace_all(net.fab, intact).unreachable);
  REQUIRE(with_old.unreachable_pairs > 0);
  RoutingTables rerouted = minhop(net.fab, net.switches);
  RouteCheck after = check_routes(net.fab, rerouted);
  Traced traced = trace_all(net.fab, rerouted);
  REQUIRE(has_cycle(traced));
  REQUIRE(!after.credit_loops.empty());
  require_loops_traced(net.fab, after, traced);
  REQUIRE(after.unreachable_pairs == 0);
}

TEST_CASE("route check: random tables agree with tracing every pair", "[route_check]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 40; ++round) {
    Net net = ring(6);
    if (round % 3 == 0) net.fab.node(net.switches[1]).port(2)->state = 1;  // a link down
    RoutingTables t = minhop(net.fab, net.switches);
    for (auto& [guid, lft] : t.by_switch)
      for (auto& e : lft.out_port)
        if (rng() % 4 == 0) e = std::array<uint8_t, 6>{2, 3, 1, 0, 9, kNoLftEntry}[rng() % 6];
    // Every third round splits the destinations over 3 threads (merged graphs and loads).
    RouteCheck c = check_routes(net.fab, t, {1000, 100, round % 3 == 1 ? 3u : 1u});
    Traced traced = trace_all(net.fab, t);
    INFO("round " << round);
    REQUIRE(c.unreachable_pairs == traced.unreachable);
    REQUIRE(c.unreachable.size() <= traced.unreachable);
    REQUIRE(c.unreachable.empty() == (traced.unreachable == 0));
    for (const UnreachablePair& u : c.unreachable)
      REQUIRE(!trace_path(net.fab, t, LidIndex(net.fab), u.src_lid, u.dst_lid).ok());
    REQUIRE(c.credit_loops.empty() == !has_cycle(traced));
    require_loops_traced(net.fab, c, traced);
    std::map<std::pair<uint32_t, int>, uint64_t> load;
    for (const LinkRoutes& w : c.balance.worst)
      load[{w.link.from_node, w.link.from_port}] = w.routes;
    REQUIRE(load == traced.load);
  }
}
