// DestTables (fabric/dest_tables.h): one table per destination class must give exactly what
// one table per destination gives: distances and route counts, sprayed link flows (the
// shared part plus the per-member last hops) and route crossings, on a 3-tier fat tree and on
// an irregular fabric with parallel links, a leaf-to-leaf link and a link down.
#include <catch2/catch.hpp>

#include <random>

#include "fabric/dest_tables.h"
#include "tests/unit/test_fabrics.h"
#include "tests/unit/test_fat_tree.h"

using namespace ibw::fabric;
namespace tf = ibw::test_fabric;

namespace dest_tables_test {

// leaf0 and leaf1 share neighbours (two parallel links to spine0, one to spine1): one class.
// leaf2 has a link to leaf3; spine2 -> spine3 -> leaf4 makes a longer tail.
Fabric irregular() {
  Fabric f;
  std::vector<uint32_t> l, s;
  for (int i = 0; i < 5; ++i)
    l.push_back(tf::add(f, tf::leaf_guid(i), NodeType::sw, tf::name_of("leaf", i), 8));
  for (int i = 0; i < 4; ++i)
    s.push_back(tf::add(f, tf::spine_guid(i), NodeType::sw, tf::name_of("spine", i), 8));
  tf::link(f, l[0], 1, s[0], 1), tf::link(f, l[0], 2, s[0], 2), tf::link(f, l[0], 3, s[1], 1);
  tf::link(f, l[1], 1, s[0], 3), tf::link(f, l[1], 2, s[0], 4), tf::link(f, l[1], 3, s[1], 2);
  tf::link(f, l[2], 1, s[1], 3), tf::link(f, l[2], 2, s[2], 1);
  tf::link(f, s[0], 5, s[2], 2), tf::link(f, s[1], 4, s[2], 3);
  tf::link(f, l[3], 1, s[2], 4), tf::link(f, l[3], 2, l[2], 3);
  tf::link(f, s[2], 5, s[3], 1), tf::link(f, l[4], 1, s[3], 2);
  f.reindex();
  return f;
}

// Everything DestTables answers against per-destination tables.
void check(const RouteModel& m) {
  const uint32_t n = m.switches();
  std::vector<uint32_t> all(n);
  for (uint32_t o = 0; o < n; ++o) all[o] = o;
  DestTables dt(m);
  dt.prepare(all);
  std::vector<RouteModel::Table> per;
  for (uint32_t o = 0; o < n; ++o) per.push_back(m.table(m.switch_node(o)));
  for (uint32_t b = 0; b < n; ++b)
    for (uint32_t x = 0; x < n; ++x) {
      INFO(m.fabric().node(m.switch_node(x)).name << " -> "
                                                  << m.fabric().node(m.switch_node(b)).name);
      REQUIRE(dt.dist(b, x) == per[b].dist[x]);
      REQUIRE(dt.count(b, x) == per[b].count[x]);
    }
  // Flows between every pair with random weights: one spray against a spray per destination.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> weight(0.5, 2);
  std::vector<DestTables::Flow> flows;
  for (uint32_t a = 0; a < n; ++a)
    for (uint32_t b = 0; b < n; ++b)
      if (a != b && per[b].dist[a] > 0) flows.push_back({a, b, {weight(rng), weight(rng), 1}});
  constexpr int K = DestTables::K;
  std::vector<double> got(static_cast<size_t>(m.edges()) * K, 0), want(got.size(), 0);
  dt.spray(flows, got);
  std::vector<double> w(static_cast<size_t>(n) * K, 0), scratch(w.size(), 0);
  for (const auto& f : flows) {
    for (int k = 0; k < K; ++k) w[f.src * K + k] = f.w[k];
    m.spray_k(per[f.dest], w.data(), K, scratch,
              [&](uint32_t e, int k, double flow) { want[e * K + k] += flow; });
    for (int k = 0; k < K; ++k) w[f.src * K + k] = 0;
  }
  size_t used = 0;
  for (uint32_t e = 0; e < m.edges(); ++e)
    for (int k = 0; k < K; ++k) {
      INFO(m.fabric().port_label(m.switch_node(m.edge_from(e)), m.edge_port(e)) << " k=" << k);
      REQUIRE(got[e * K + k] == Approx(want[e * K + k]).epsilon(1e-9).margin(1e-12));
      used += want[e * K + k] > 0;
    }
  CHECK(used > m.edges());  // not a vacuous comparison
  // Crossings of one marked link at a time, last hops into a leaf included.
  for (uint32_t e = 0; e < m.edges(); e += 3) {
    std::vector<uint8_t> mask(m.edges(), 0);
    mask[e] = 1;
    DestTables::Crossing crosses(dt, mask);
    for (uint32_t b = 0; b < n; ++b) {
      std::vector<uint8_t> out;
      m.crossing(per[b], mask, out);
      for (uint32_t a = 0; a < n; ++a)
        if (a != b) REQUIRE(crosses(a, b) == (out[a] != 0));
    }
  }
}

TEST_CASE("dest tables: one table per class equals one per destination on a fat tree",
          "[dest_tables]") {
  Fabric f = tf::k4_fat_tree();
  RouteModel m(f, nullptr);
  std::vector<std::vector<uint32_t>> members;
  auto of = m.dest_classes(&members);
  // The two leaves of each pod share their spines: 4 pods give 4 two-leaf classes.
  CHECK(of[m.ordinal(f.resolve("leaf0001"))] == of[m.ordinal(f.resolve("leaf0002"))]);
  CHECK(of[m.ordinal(f.resolve("leaf0001"))] != of[m.ordinal(f.resolve("leaf0003"))]);
  check(m);
}

TEST_CASE("dest tables: parallel links - a leaf-to-leaf link - a link down", "[dest_tables]") {
  Fabric f = irregular();
  RouteModel m(f, nullptr);
  std::vector<std::vector<uint32_t>> members;
  auto of = m.dest_classes(&members);
  CHECK(of[m.ordinal(f.resolve("leaf000"))] == of[m.ordinal(f.resolve("leaf001"))]);
  check(m);
  m.set_down(f.resolve("leaf000"), 3);  // leaf000 -> spine001: the class splits
  of = m.dest_classes(&members);
  CHECK(of[m.ordinal(f.resolve("leaf000"))] != of[m.ordinal(f.resolve("leaf001"))]);
  check(m);
}

}  // namespace dest_tables_test
