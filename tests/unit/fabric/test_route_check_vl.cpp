// The route check per virtual lane (fabric/route_check.h with fabric/sl2vl.h tables) on rings
// built in code: a dateline table that moves the ring's transit traffic at one switch to VL 1
// breaks the loop of that direction; tables that move traffic but keep the cycle (all of it
// to VL 3, or one link's to VL 1 and back) keep it, on the VLs they name; the recorded
// opensm-sl2vl.dump of the ibsim ring (SL 0 on VL 1) moves its loops to VL 1; and random LFTs
// with random tables agree with tracing every pair hop by hop (VL = the table of each hop).
#include <catch2/catch.hpp>

#include "tests/test_paths.h"

#include <array>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "fabric/route_check.h"
#include "fabric/route_check_report.h"
#include "fabric/sl2vl.h"
#include "tests/unit/fabric/route_check_net.h"

using namespace ibw::fabric;
using namespace route_check_test;

namespace route_check_vl_test {

using Vertex = std::tuple<uint32_t, int, int>;  // (node, out port, VL)

uint64_t all_sls(int vl) {
  uint64_t packed = 0;
  for (int sl = 0; sl < 16; ++sl) packed |= uint64_t(vl) << (4 * sl);
  return packed;
}

// Every switch: every (in, out) pair of ports 0..3 on VL `vl` for all SLs.
Sl2VlTables uniform(const Net& net, int vl) {
  Sl2VlTables t;
  t.source = "test";
  for (uint32_t s : net.switches)
    for (int in = 0; in <= 3; ++in)
      for (int out = 0; out <= 3; ++out)
        t.by_switch[net.fab.node(s).guid].set(in, out, all_sls(vl));
  return t;
}

// The VL-annotated dependency edges of every traced CA-to-LID path: a hop's VL is its
// switch's table for (in port, out port) at SL 0, VL 0 without one.
std::set<std::pair<Vertex, Vertex>> traced_deps(const Fabric& f, const RoutingTables& t,
                                                const Sl2VlTables& vls) {
  LidIndex lids(f);
  std::set<std::pair<Vertex, Vertex>> deps;
  auto vl_of = [&](const Hop& h) {
    const SwitchSl2Vl* sw = vls.find(f.node(h.node).guid);
    return sw ? sw->vl(h.in_port, h.out_port, 0) : 0;
  };
  for (uint16_t s : lids.lids()) {
    if (f.node(lids.find(s)->first).type == NodeType::sw) continue;
    for (uint16_t d : lids.lids()) {
      if (s == d) continue;
      PathResult p = trace_path(f, t, lids, s, d);
      for (size_t i = 1; i < p.hops.size(); ++i) {
        const Hop& h = p.hops[i];
        const Hop& prev = p.hops[i - 1];
        if (!h.out_port || (!p.ok() && i + 1 == p.hops.size())) continue;  // did not leave
        if (f.node(h.node).type != NodeType::sw || f.node(prev.node).type != NodeType::sw) continue;
        deps.insert({{prev.node, prev.out_port, vl_of(prev)}, {h.node, h.out_port, vl_of(h)}});
      }
    }
  }
  return deps;
}

bool has_cycle(const std::set<std::pair<Vertex, Vertex>>& deps) {
  std::map<Vertex, std::vector<Vertex>> adj;
  for (auto& [a, b] : deps) adj[a].push_back(b);
  std::map<Vertex, int> colour;
  std::function<bool(const Vertex&)> dfs = [&](const Vertex& v) {
    colour[v] = 1;
    for (const Vertex& w : adj[v])
      if (colour[w] == 1 || (colour[w] == 0 && dfs(w))) return true;
    colour[v] = 2;
    return false;
  };
  for (auto& [v, _] : adj)
    if (colour[v] == 0 && dfs(v)) return true;
  return false;
}

// Every loop is a cycle of traced (link, VL) dependencies.
void require_loops_traced(const RouteCheck& c, const std::set<std::pair<Vertex, Vertex>>& deps) {
  for (const CreditLoop& loop : c.credit_loops) {
    REQUIRE(loop.vls.size() == loop.links.size());
    for (size_t i = 0; i < loop.links.size(); ++i) {
      size_t j = (i + 1) % loop.links.size();
      const DirectedLink& a = loop.links[i];
      const DirectedLink& b = loop.links[j];
      REQUIRE(deps.count(
          {{a.from_node, a.from_port, loop.vls[i]}, {b.from_node, b.from_port, loop.vls[j]}}));
    }
  }
}

RouteCheck check(const Net& net, const RoutingTables& t, const Sl2VlTables& vls) {
  RouteCheckOptions o;
  o.sl2vl = &vls;
  return check_routes(net.fab, t, o);
}

}  // namespace route_check_vl_test

using namespace route_check_vl_test;

TEST_CASE("route check vl: a dateline table breaks the ring loop of one direction",
          "[route_check][sl2vl]") {
  Net net = ring(5);
  RoutingTables t = minhop(net.fab, net.switches);
  REQUIRE(check_routes(net.fab, t).credit_loops.size() == 2);
  // sw1 sends what came from sw5 (in port 3) on to sw2 (out port 2) on VL 1: clockwise
  // traffic changes lane there, so the clockwise chain of VL 0 dependencies is cut.
  Sl2VlTables vls = uniform(net, 0);
  vls.by_switch[net.fab.node(net.switches[0]).guid].set(3, 2, all_sls(1));
  RouteCheck c = check(net, t, vls);
  REQUIRE(c.vls == 2);
  REQUIRE(c.vl_source == "test");
  REQUIRE(c.sl2vl_switches == 5);
  REQUIRE(c.credit_loops.size() == 1);
  const CreditLoop& loop = c.credit_loops.front();
  REQUIRE(loop.links.size() == 5);
  for (size_t i = 0; i < loop.links.size(); ++i) {
    REQUIRE(loop.links[i].from_port == 3);  // the counter-clockwise loop is left
    REQUIRE(loop.vls[i] == 0);
  }
  auto deps = traced_deps(net.fab, t, vls);
  REQUIRE(has_cycle(deps));
  require_loops_traced(c, deps);
  // The same dateline the other way round too: no loop on any lane.
  vls.by_switch[net.fab.node(net.switches[0]).guid].set(2, 3, all_sls(1));
  RouteCheck none = check(net, t, vls);
  REQUIRE(none.credit_loops.empty());
  REQUIRE(!has_cycle(traced_deps(net.fab, t, vls)));
  REQUIRE(none.balance.max_routes == c.balance.max_routes);  // lanes change no route
}

TEST_CASE("route check vl: tables that move traffic but keep the cycle report it on its lane",
          "[route_check][sl2vl]") {
  Net net = ring(5);
  RoutingTables t = minhop(net.fab, net.switches);
  // Everything on VL 3: the same two loops, on VL 3.
  RouteCheck all3 = check(net, t, uniform(net, 3));
  REQUIRE(all3.vls == 4);
  REQUIRE(all3.credit_loops.size() == 2);
  for (const CreditLoop& loop : all3.credit_loops)
    for (uint8_t vl : loop.vls) REQUIRE(vl == 3);
  auto j = route_check_json(net.fab, all3, RoutingEngineInfo{"minhop", {}, ""});
  REQUIRE(j["credit_loops"][0]["vls"].size() == 1);
  REQUIRE(j["credit_loops"][0]["vls"][0] == 3);
  REQUIRE(j["credit_loops"][0]["links"][0]["vl"] == 3);
  REQUIRE(j["virtual_lanes"]["count"] == 4);
  REQUIRE(j["virtual_lanes"]["source"] == "test");
  REQUIRE(j["virtual_lanes"]["sl_source"] == "sl0");
  std::string text = format_route_check(net.fab, all3, RoutingEngineInfo{"dfsssp", {}, ""});
  REQUIRE(text.find("sw1/2 -> sw2/3 (VL 3)") != std::string::npos);
  REQUIRE(text.find("dfsssp gives paths their own SLs") != std::string::npos);
  // All that sw1 sends to sw2 (from its host and from sw5) moves to VL 1, and sw2 takes it
  // back to VL 0: the lane changes at one link but the cycle stays, across two lanes.
  Sl2VlTables part = uniform(net, 0);
  part.by_switch[net.fab.node(net.switches[0]).guid].set(1, 2, all_sls(1));
  part.by_switch[net.fab.node(net.switches[0]).guid].set(3, 2, all_sls(1));
  RouteCheck c = check(net, t, part);
  REQUIRE(c.vls == 2);
  REQUIRE(c.credit_loops.size() == 2);
  int on_vl1 = 0;
  for (const CreditLoop& loop : c.credit_loops)
    for (size_t i = 0; i < loop.links.size(); ++i) {
      bool sw1_to_sw2 = loop.links[i].from_node == net.switches[0] && loop.links[i].from_port == 2;
      REQUIRE(loop.vls[i] == (sw1_to_sw2 ? 1 : 0));
      on_vl1 += sw1_to_sw2;
    }
  REQUIRE(on_vl1 == 1);
  require_loops_traced(c, traced_deps(net.fab, t, part));
}

TEST_CASE("route check vl: without tables the result and its JSON stay one-lane",
          "[route_check][sl2vl]") {
  Net net = ring(5);
  RoutingTables t = minhop(net.fab, net.switches);
  RouteCheck plain = check_routes(net.fab, t);
  RouteCheck zeros = check(net, t, uniform(net, 0));  // tables that keep SL 0 on VL 0
  REQUIRE(plain.vls == 1);
  REQUIRE(plain.vl_source.empty());
  REQUIRE(zeros.vls == 1);
  REQUIRE(zeros.credit_loops.size() == plain.credit_loops.size());
  for (size_t i = 0; i < plain.credit_loops.size(); ++i) {
    REQUIRE(zeros.credit_loops[i].links == plain.credit_loops[i].links);
    REQUIRE(plain.credit_loops[i].vls == std::vector<uint8_t>(5, 0));
  }
  auto j = route_check_json(net.fab, plain, RoutingEngineInfo{});
  REQUIRE(j["virtual_lanes"]["source"] == "none");
  REQUIRE(j["virtual_lanes"]["count"] == 1);
  REQUIRE(format_route_check(net.fab, plain, RoutingEngineInfo{})
              .find("virtual lanes: one (no SL-to-VL tables)") != std::string::npos);
}

TEST_CASE("route check vl: the recorded ibsim ring dump puts the ring loops on VL 1",
          "[route_check][sl2vl]") {
  // tests/data/routing/opensm-sl2vl.dump: OpenSM -Q with qos_swe_sl2vl 1,1,2,... on the
  // 4-switch ring of the route check lab (switch GUIDs 0x0002c90300000101...).
  Sl2VlTables vls = load_sl2vl_dump(std::string(IBW_TEST_DATA) + "/routing/opensm-sl2vl.dump");
  Net net = ring(4, 0x0002c90300000101ULL);
  RoutingTables t = minhop(net.fab, net.switches);
  RouteCheck plain = check_routes(net.fab, t);
  REQUIRE(!plain.credit_loops.empty());
  RouteCheck c = check(net, t, vls);
  REQUIRE(c.vl_source == "opensm-sl2vl.dump");
  REQUIRE(c.sl2vl_switches == 4);
  REQUIRE(c.vls == 2);
  REQUIRE(c.credit_loops.size() == plain.credit_loops.size());
  for (size_t i = 0; i < c.credit_loops.size(); ++i) {
    REQUIRE(c.credit_loops[i].links == plain.credit_loops[i].links);
    REQUIRE(c.credit_loops[i].vls == std::vector<uint8_t>(c.credit_loops[i].links.size(), 1));
  }
}

TEST_CASE("route check vl: random tables agree with tracing every pair per lane",
          "[route_check][sl2vl]") {
  std::mt19937 rng(11);
  int with_loops = 0, without = 0;
  for (int round = 0; round < 60; ++round) {
    Net net = ring(6);
    RoutingTables t = minhop(net.fab, net.switches);
    for (auto& [guid, lft] : t.by_switch)
      for (auto& e : lft.out_port)
        if (rng() % 5 == 0) e = std::array<uint8_t, 4>{2, 3, 1, kNoLftEntry}[rng() % 4];
    Sl2VlTables vls;
    vls.source = "test";
    for (uint32_t s : net.switches) {
      if (rng() % 4 == 0) continue;  // a switch without a table: VL 0
      for (int in = 0; in <= 3; ++in)
        for (int out = 0; out <= 3; ++out)
          if (rng() % 3) vls.by_switch[net.fab.node(s).guid].set(in, out, all_sls(rng() % 3));
    }
    RouteCheckOptions o;
    o.sl2vl = &vls;
    o.threads = round % 3 == 1 ? 3 : 1;
    RouteCheck c = check_routes(net.fab, t, o);
    auto deps = traced_deps(net.fab, t, vls);
    INFO("round " << round);
    REQUIRE(c.credit_loops.empty() == !has_cycle(deps));
    require_loops_traced(c, deps);
    (c.credit_loops.empty() ? without : with_loops)++;
  }
  REQUIRE(with_loops > 0);  // both outcomes are exercised
  REQUIRE(without > 0);
}
