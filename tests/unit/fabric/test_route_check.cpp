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
#include "tests/unit/fabric/route_check_net.h"

using namespace ibw::fabric;

namespace route_check_test {

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
    // Every fifth round a ring of 80 LIDs: more destinations than the walker's block of 64
    // (its LFT entries are copied 64 destinations at a time), also split over 3 threads.
    Net net = ring(round % 5 == 4 ? 40 : 6);
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
