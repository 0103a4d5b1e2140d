// The route model (fabric/route_model.h): adaptive shares against brute-force enumeration of
// every minimal-hop route on small 2- and 3-tier fat trees (also after a link goes down), the
// compact per-destination tables and spray_k against toward()/spray(), expected loss against
// an average over the enumerated routes, directed routes (round trip and one way) and endpoint
// resolution.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <span>

#include "fabric/route_model.h"
#include "tests/unit/test_fabrics.h"
#include "tests/unit/test_fat_tree.h"

using namespace ibw::fabric;
namespace tf = ibw::test_fabric;

namespace route_model_test {

using Shares = std::map<std::pair<uint32_t, int>, double>;

// Every minimal-hop route between two switches, enumerated: (directed link -> routes using it)
// and the number of routes.
std::pair<Shares, double> enumerate(const Fabric& f, uint32_t from, uint32_t to,
                                    const std::function<bool(uint32_t, int)>& up) {
  std::map<uint32_t, int> dist{{to, 0}};  // BFS from `to` over switch links that are up
  std::vector<uint32_t> queue{to};
  for (size_t i = 0; i < queue.size(); ++i)
    for (const Port& p : f.node(queue[i]).ports)
      if (p.number && p.has_peer() && f.node(p.peer_node).type == NodeType::sw &&
          up(queue[i], p.number) && !dist.count(p.peer_node))
        dist[p.peer_node] = dist[queue[i]] + 1, queue.push_back(p.peer_node);
  Shares used;
  double routes = 0;
  std::vector<std::pair<uint32_t, int>> path;
  std::function<void(uint32_t)> walk = [&](uint32_t x) {
    if (x == to) {
      ++routes;
      for (auto l : path) used[l] += 1;
      return;
    }
    for (const Port& p : f.node(x).ports)
      if (p.number && p.has_peer() && up(x, p.number) && dist.count(p.peer_node) &&
          dist[p.peer_node] == dist[x] - 1) {
        path.push_back({x, p.number});
        walk(p.peer_node);
        path.pop_back();
      }
  };
  if (dist.count(from)) walk(from);
  return {used, routes};
}

// The model's adaptive shares of src <-> dst against enumeration, both ways plus host links
// (src -> dst only, with the host links in that direction, when not a round trip).
void check_adaptive(const RouteModel& m, const std::string& src, const std::string& dst,
                    bool roundtrip = true) {
  std::string err;
  auto a = m.resolve(src, &err), b = m.resolve(dst, &err);
  REQUIRE(a);
  REQUIRE(b);
  std::vector<LinkShare> got;
  REQUIRE(m.adaptive_route(*a, *b, &got, &err, roundtrip));
  Shares mine;
  for (const auto& l : got) mine[{l.node, l.port}] += l.share;
  Shares want;
  if (auto at = m.attach(*a); at && at->second) {  // into the fabric at src
    want[{a->node, a->port}] += 1;
    if (roundtrip) want[{at->first, at->second}] += 1;
  }
  if (auto at = m.attach(*b); at && at->second) {  // out of it at dst
    want[{at->first, at->second}] += 1;
    if (roundtrip) want[{b->node, b->port}] += 1;
  }
  auto sa = m.attach(*a)->first, sb = m.attach(*b)->first;
  const std::pair<uint32_t, uint32_t> ways[] = {{sa, sb}, {sb, sa}};
  if (sa != sb)
    for (auto [x, y] : std::span(ways, roundtrip ? 2 : 1)) {
      auto [used, routes] =
          enumerate(m.fabric(), x, y, [&](uint32_t n, int p) { return m.link_up(n, p); });
      REQUIRE(routes > 0);
      for (auto& [l, n] : used) want[l] += n / routes;
    }
  INFO(src << (roundtrip ? " <-> " : " -> ") << dst);
  REQUIRE(mine.size() == want.size());
  for (auto& [l, share] : want) {
    INFO(m.fabric().port_label(l.first, l.second));
    CHECK(mine[l] == Approx(share).epsilon(1e-9));
  }
}

TEST_CASE("route model: adaptive shares match enumerated minimal routes on a 2-tier tree",
          "[route_model]") {
  Fabric f = tf::two_tier(4, 3, 2);
  RouteModel m(f, nullptr);
  check_adaptive(m, "host000", "host007");  // across the spines: 3 routes each way
  check_adaptive(m, "host000", "host001");  // same leaf: host links only
  check_adaptive(m, "leaf000", "host005");  // a switch endpoint
  check_adaptive(m, "leaf001", "leaf003");
  check_adaptive(m, "host000", "host007", false);  // one way: the up links of leaf000 only
  check_adaptive(m, "host000", "host001", false);
  check_adaptive(m, "leaf000", "host005", false);
  // A spine link down: the remaining routes share the traffic, the link carries none.
  m.set_down(f.resolve("leaf000"), 4);  // leaf000 -> spine001
  CHECK_FALSE(m.link_up(f.resolve("spine001"), 1));
  check_adaptive(m, "host000", "host007");
  std::string err;
  std::vector<LinkShare> got;
  REQUIRE(m.adaptive_route(*m.resolve("host000", &err), *m.resolve("host006", &err), &got, &err));
  for (const auto& l : got) CHECK_FALSE((l.node == f.resolve("leaf000") && l.port == 4));
}

TEST_CASE("route model: adaptive shares match enumeration on a 3-tier k=4 fat tree",
          "[route_model]") {
  Fabric f = tf::k4_fat_tree();
  RouteModel m(f, nullptr);
  std::vector<std::string> hosts;
  for (uint32_t i = 0; i < f.size(); ++i)
    if (f.node(i).type == NodeType::ca) hosts.push_back(f.node(i).name);
  REQUIRE(hosts.size() == 16);
  for (size_t i = 0; i < hosts.size(); i += 3)
    for (size_t j = 1; j < hosts.size(); j += 5) check_adaptive(m, hosts[i], hosts[j]);
  // Spine to core down: pods still reach each other over the other core.
  uint32_t spine = f.resolve("spine0001");
  REQUIRE(spine != kNoNode);
  for (const Port& p : f.node(spine).ports)
    if (p.number && p.has_peer() && f.node(p.peer_node).name.rfind("core", 0) == 0) {
      m.set_down(spine, p.number);
      break;
    }
  for (size_t i = 0; i < hosts.size(); i += 4)
    for (size_t j = 2; j < hosts.size(); j += 7) check_adaptive(m, hosts[i], hosts[j]);
}

TEST_CASE("route model: compact tables and spray_k agree with toward and spray", "[route_model]") {
  Fabric f = tf::k4_fat_tree();
  RouteModel m(f, nullptr);
  uint32_t dest = f.resolve("leaf0003");
  auto t = m.toward(dest);
  auto c = m.table(dest);
  for (uint32_t o = 0; o < m.switches(); ++o) {
    uint32_t n = m.switch_node(o);
    CHECK(m.ordinal(n) == o);
    CHECK(c.dist[o] == t.dist[n]);
    CHECK(c.count[o] == t.count[n]);
  }
  std::vector<double> w(f.size(), 0), wk(m.switches() * 2, 0), scratch(wk.size(), 0);
  for (const char* s : {"leaf0001", "leaf0006", "spine0008"}) {
    w[f.resolve(s)] = 3;
    wk[m.ordinal(f.resolve(s)) * 2] = 3, wk[m.ordinal(f.resolve(s)) * 2 + 1] = 1;
  }
  std::map<std::pair<uint32_t, int>, double> one, k0, k1;
  m.spray(t, w, [&](uint32_t n, int p, double flow) { one[{n, p}] += flow; });
  m.spray_k(c, wk.data(), 2, scratch, [&](uint32_t e, int k, double flow) {
    (k ? k1 : k0)[{m.switch_node(m.edge_from(e)), m.edge_port(e)}] += flow;
  });
  REQUIRE(one.size() == k0.size());
  for (auto& [l, flow] : one) {
    CHECK(k0[l] == Approx(flow));
    CHECK(k1[l] == Approx(flow / 3));
  }
  for (double x : scratch) CHECK(x == 0);  // left zeroed for the next destination
}

TEST_CASE("route model: expected loss is the average over the enumerated routes", "[route_model]") {
  Fabric f = tf::two_tier(3, 2, 1);
  RouteModel m(f, nullptr);
  uint32_t l0 = f.resolve("leaf000"), l2 = f.resolve("leaf002"), s1 = f.resolve("spine001");
  auto loss = [&](uint32_t n, int p) { return n == s1 && p == 3 ? 0.4 : 0.0; };  // s1 -> l2
  auto v = m.expected_loss(m.toward(l2), loss);
  // leaf000 -> leaf002: two routes, one over spine001 -> leaf002: mean loss 0.2.
  CHECK(v[l0] == Approx(0.2));
  CHECK(v[s1] == Approx(0.4));
  CHECK(v[l2] == 0);
}

TEST_CASE("route model: directed routes and endpoints", "[route_model]") {
  Fabric f = tf::two_tier(2, 2, 2);
  RouteModel m(f, nullptr);
  std::string err;
  auto h0 = m.resolve("host000", &err);
  REQUIRE(h0);
  CHECK(h0->port == 1);
  std::vector<LinkShare> out;
  REQUIRE(
      m.directed_route(*h0, {0, 1, 3, 2}, &out, &err));  // host -> leaf000 -> spine000 -> leaf001
  REQUIRE(out.size() == 6);                              // three links, out and back
  CHECK(f.node(out[4].node).name == "spine000");
  CHECK(f.node(out[5].node).name == "leaf001");
  out.clear();
  REQUIRE(m.directed_route(*h0, {0, 1, 3, 2}, &out, &err, false));  // one way: out only
  REQUIRE(out.size() == 3);
  CHECK(f.node(out[0].node).name == "host000");
  CHECK(f.node(out[1].node).name == "leaf000");
  CHECK(f.node(out[2].node).name == "spine000");
  CHECK_FALSE(m.directed_route(*h0, {0, 1, 9}, &out, &err));
  CHECK(err.find("hop 2") != std::string::npos);
  CHECK_FALSE(m.directed_route(*h0, {1, 1}, &out, &err));

  CHECK(m.resolve("leaf001", &err)->port == 0);
  CHECK(m.resolve("host003/1", &err)->node == f.resolve("host003"));
  uint16_t lid = f.node(f.resolve("host002")).port(1)->lid;
  CHECK(m.resolve(std::to_string(lid), &err)->node == f.resolve("host002"));
  CHECK(m.resolve("0x" + std::string("0000000000000201"), &err)->node == f.resolve("leaf001"));
  CHECK_FALSE(m.resolve("nosuch", &err));
  CHECK(err == "no node \"nosuch\" in the fabric");
  CHECK_FALSE(m.resolve("host000/2", &err));  // port 2 has no cable
  CHECK_FALSE(m.resolve("host000/300", &err));
  CHECK(err.find("0-255") != std::string::npos);
}

}  // namespace route_model_test

namespace route_model_test {

TEST_CASE("route model: crossing marks the switches whose minimal routes cross a link",
          "[route_model]") {
  Fabric f = tf::k4_fat_tree();
  RouteModel m(f, nullptr);
  // Mark every link out of spine0001 toward a core and one core -> spine link.
  std::vector<std::pair<uint32_t, int>> marked;
  uint32_t spine = f.resolve("spine0001");
  for (const Port& p : f.node(spine).ports)
    if (p.number && p.has_peer() && f.node(p.peer_node).name.rfind("core", 0) == 0)
      marked.push_back({spine, p.number});
  uint32_t core = f.resolve("core0002");
  for (const Port& p : f.node(core).ports)
    if (p.number && p.has_peer()) {
      marked.push_back({core, p.number});
      break;
    }
  auto mask = m.edge_mask(marked);
  std::vector<uint8_t> out;
  int crossed = 0;
  for (uint32_t o = 0; o < m.switches(); ++o) {
    uint32_t dest = m.switch_node(o);
    m.crossing(m.table(dest), mask, out);
    for (uint32_t a = 0; a < m.switches(); ++a) {
      auto [used, routes] =
          enumerate(f, m.switch_node(a), dest, [](uint32_t, int) { return true; });
      bool want = false;
      for (auto l : marked) want |= used.count(l) > 0;
      INFO(f.node(m.switch_node(a)).name << " -> " << f.node(dest).name);
      CHECK((out[a] != 0) == want);
      crossed += want;
    }
  }
  CHECK(crossed > 0);
}

}  // namespace route_model_test
