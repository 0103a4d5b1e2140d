// hosts_crossing and hosts_crossing_adaptive (fabric/link_hosts.h): on a hand-built two-level
// fat tree whose LFTs spread destinations over the spines by LID, a leaf-spine link
// carries exactly the pairs that rule gives, a host link carries its host's routes, and on
// random tables the hosts and pair counts equal what pairs_crossing (tested against tracing
// every pair) gives.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "fabric/link_hosts.h"
#include "fabric/route_model.h"
#include "fabric/routing.h"
#include "tests/unit/fabric/test_net.h"

using namespace ibw::fabric;

namespace link_hosts_test {

using Net = ibw::test_net::LftNet;

// Leaves L0-L3 (hosts on ports 1..per_leaf, the next port to spine S0, the one after to S1);
// spine port l+1 to leaf l. A leaf sends a destination on another leaf up to S0 when its LID
// is a multiple of 3, else to S1.
struct FatTree : Net {
  std::vector<uint32_t> leaves, spines, hosts;
  std::vector<int> leaf_of;  // per host index
  explicit FatTree(int per_leaf = 2) {
    for (int l = 0; l < 4; ++l) leaves.push_back(sw("L" + std::to_string(l), per_leaf + 2));
    for (int s = 0; s < 2; ++s) spines.push_back(sw("S" + std::to_string(s), 4));
    for (int l = 0; l < 4; ++l)
      for (int i = 0; i < per_leaf; ++i) {
        hosts.push_back(ca("h" + std::to_string(l) + "-" + std::to_string(i) + " mlx5_0"));
        leaf_of.push_back(l);
        link(leaves[l], i + 1, hosts.back(), 1);
      }
    for (int l = 0; l < 4; ++l)
      for (int s = 0; s < 2; ++s) link(leaves[l], per_leaf + 1 + s, spines[s], l + 1);
    for (size_t h = 0; h < hosts.size(); ++h) {
      uint16_t d = lid(hosts[h]);
      int up = per_leaf + 1 + (d % 3 == 0 ? 0 : 1);
      for (int l = 0; l < 4; ++l)
        route(leaves[l], d, l == leaf_of[h] ? 1 + static_cast<int>(h % per_leaf) : up);
      for (int s = 0; s < 2; ++s) route(spines[s], d, leaf_of[h] + 1);
    }
    done();
  }
};

std::set<uint32_t> as_set(const std::vector<uint32_t>& v) {
  return {v.begin(), v.end()};
}

// What pairs_crossing says, reduced to CA nodes and a pair count (both ends inside among).
LinkHosts from_pairs(const Fabric& fab, const RoutingTables& tables, uint32_t node, int port,
                     const std::vector<uint8_t>* among = nullptr) {
  LidIndex lids(fab);
  std::set<uint32_t> cas;
  LinkHosts out;
  for (auto [s, d] : pairs_crossing(fab, tables, lids, node, port)) {
    uint32_t a = lids.find(s)->first, b = lids.find(d)->first;
    if (among && (!(*among)[a] || !(*among)[b])) continue;
    ++out.pairs;
    cas.insert(a), cas.insert(b);
  }
  out.cas.assign(cas.begin(), cas.end());
  return out;
}

}  // namespace link_hosts_test

using namespace link_hosts_test;

TEST_CASE("link hosts: a leaf-spine link carries exactly the pairs its LFTs send over it",
          "[link_hosts]") {
  FatTree t;
  LidIndex lids(t.fab);
  // L0/3 - S0/1: up from L0 to S0's destinations elsewhere; down to S0's destinations on L0.
  uint64_t want = 0;
  std::set<uint32_t> hosts;
  for (size_t s = 0; s < t.hosts.size(); ++s)
    for (size_t d = 0; d < t.hosts.size(); ++d) {
      if (s == d || t.leaf_of[s] == t.leaf_of[d] || t.lid(t.hosts[d]) % 3 != 0) continue;
      if (t.leaf_of[s] != 0 && t.leaf_of[d] != 0) continue;
      ++want;
      hosts.insert(t.hosts[s]), hosts.insert(t.hosts[d]);
    }
  REQUIRE(want > 0);
  REQUIRE(hosts.size() < t.hosts.size());  // the test tells hosts apart
  LinkHosts got = hosts_crossing(t.fab, t.tables, lids, t.leaves[0], 3);
  CHECK(got.pairs == want);
  CHECK(as_set(got.cas) == hosts);
  LinkHosts other_end = hosts_crossing(t.fab, t.tables, lids, t.spines[0], 1);
  CHECK(other_end.pairs == want);
  CHECK(other_end.cas == got.cas);
}

TEST_CASE("link hosts: a host link carries every route from and to its host", "[link_hosts]") {
  FatTree t;
  LidIndex lids(t.fab);
  uint32_t h = t.hosts[3];
  for (auto [node, port] : {std::pair{h, 1}, std::pair{t.leaves[1], 2}}) {
    LinkHosts got = hosts_crossing(t.fab, t.tables, lids, node, port);
    CHECK(got.pairs == 2 * (t.hosts.size() - 1));
    CHECK(as_set(got.cas) == as_set(t.hosts));
    RouteModel model(t.fab, &t.tables);
    LinkHosts ar = hosts_crossing_adaptive(model, node, port);
    CHECK(ar.pairs == got.pairs);
    CHECK(ar.cas == got.cas);
  }
  CHECK(hosts_crossing(t.fab, t.tables, lids, t.leaves[0], 0).pairs == 0);   // not a link port
  CHECK(hosts_crossing(t.fab, t.tables, lids, t.leaves[0], 99).pairs == 0);  // no such port
}

TEST_CASE("link hosts: among keeps only the pairs inside the list", "[link_hosts]") {
  FatTree t;
  LidIndex lids(t.fab);
  std::vector<uint8_t> among(t.fab.size(), 0);
  for (size_t h = 0; h < t.hosts.size(); ++h) among[t.hosts[h]] = t.leaf_of[h] <= 1;
  for (auto [node, port] : {std::pair{t.leaves[0], 3}, std::pair{t.leaves[2], 4},
                            std::pair{t.hosts[0], 1}, std::pair{t.spines[1], 2}}) {
    LinkHosts got = hosts_crossing(t.fab, t.tables, lids, node, port, &among);
    LinkHosts want = from_pairs(t.fab, t.tables, node, port, &among);
    CHECK(got.pairs == want.pairs);
    CHECK(got.cas == want.cas);
  }
  // L2's uplink carries nothing between hosts of L0 and L1.
  CHECK(hosts_crossing(t.fab, t.tables, lids, t.leaves[2], 4, &among).pairs == 0);
}

TEST_CASE("link hosts: equal to pairs_crossing on every port of random tables", "[link_hosts]") {
  std::mt19937 rng(11);
  for (int round = 0; round < 20; ++round) {
    FatTree t;
    std::uniform_int_distribution<int> port(0, 6);  // 0-4, 5 (bad), 6 -> no entry
    for (uint32_t s : t.leaves)
      for (uint32_t h : t.hosts)
        if (rng() % 3 == 0) {
          int p = port(rng);
          t.route(s, t.lid(h), p == 6 ? kNoLftEntry : p);
        }
    t.fab.node(t.leaves[1]).port(4)->state = 1;  // Down: routes into it break there
    LidIndex lids(t.fab);
    INFO("round " << round);
    for (uint32_t n = 0; n < t.fab.size(); ++n)
      for (int p = 1; p <= t.fab.node(n).num_ports; ++p) {
        INFO(t.fab.port_label(n, p));
        LinkHosts got = hosts_crossing(t.fab, t.tables, lids, n, p);
        LinkHosts want = from_pairs(t.fab, t.tables, n, p);
        CHECK(got.pairs == want.pairs);
        CHECK(got.cas == want.cas);
      }
  }
}

TEST_CASE("link hosts: adaptive routing - the hosts of the leaf pairs that can use the link",
          "[link_hosts]") {
  FatTree t;
  RouteModel model(t.fab, &t.tables);
  // Every minimal route between L0 and another leaf may take either spine: L0-S0 carries
  // all pairs with one end on L0 (2 x 6 each way), none between other leaves.
  LinkHosts got = hosts_crossing_adaptive(model, t.leaves[0], 3);
  CHECK(got.pairs == 2 * 2 * 6);
  CHECK(as_set(got.cas) == as_set(t.hosts));
  CHECK(hosts_crossing_adaptive(model, t.spines[1], 3).pairs == 2 * 2 * 6);  // S1 - L2
  std::vector<uint8_t> among(t.fab.size(), 0);
  for (size_t h = 2; h < t.hosts.size(); ++h) among[t.hosts[h]] = 1;  // not L0's hosts
  CHECK(hosts_crossing_adaptive(model, t.leaves[0], 3, &among).pairs == 0);
  // A link that is down carries nothing: adaptive routing goes around it.
  t.fab.node(t.leaves[0]).port(3)->state = 1;
  RouteModel down(t.fab, &t.tables);
  CHECK(hosts_crossing_adaptive(down, t.leaves[0], 3).pairs == 0);
  CHECK(hosts_crossing_adaptive(down, t.leaves[0], 4).pairs == 2 * 2 * 6);
}

TEST_CASE("link hosts: destinations shared by threads give what one walk gives", "[link_hosts]") {
  FatTree t(200);  // 800 hosts: S1's links carry over 256 destinations, shared by threads
  LidIndex lids(t.fab);
  for (auto [node, port] :
       {std::pair{t.leaves[0], 202}, std::pair{t.spines[1], 3}, std::pair{t.leaves[3], 201}}) {
    INFO(t.fab.port_label(node, port));
    LinkHosts got = hosts_crossing(t.fab, t.tables, lids, node, port);
    LinkHosts want = from_pairs(t.fab, t.tables, node, port);
    CHECK(got.pairs > 0);
    CHECK(got.pairs == want.pairs);
    CHECK(got.cas == want.cas);
  }
}
