// The prober's pure parts: which LIDs and links a round probes, the directed routes to the
// links, the token bucket that paces MADs, and the RTT percentiles.
#include <catch2/catch.hpp>

#include <set>

#include "ingest/prober.h"
#include "tests/unit/test_fabrics.h"

using namespace ibw::ingest;
namespace tf = ibw::test_fabric;

namespace prober_test {

// two_tier(3, 2, 2): hosts 0-5 (nodes 0-5), leaves 0-2 (nodes 6-8), spines 0-1 (nodes 9-10).
constexpr uint32_t kHost0 = 0, kLeaf0 = 6, kLeaf1 = 7, kSpine0 = 9;

TEST_CASE("prober: every Active link once - every LID but our own", "[probe]") {
  auto f = tf::two_tier(3, 2, 2);
  auto links = fabric_links(f);
  CHECK(links.size() == 12);  // 6 host links + 3 x 2 leaf-spine links
  std::set<std::pair<uint32_t, uint32_t>> pairs;
  for (const LinkEnd& e : links) {
    const auto& p = *f.node(e.node).port(e.port);
    pairs.insert({std::min(e.node, p.peer_node), std::max(e.node, p.peer_node)});
  }
  CHECK(pairs.size() == 12);

  uint16_t own = f.node(kHost0).ports[1].lid;
  auto lids = plan_lid_targets(f, own);
  CHECK(lids.size() == 5 + 6 - 1);  // switches + linked host ports - ours (port 2 has no cable)
  std::set<uint16_t> seen;
  for (const auto& t : lids) {
    CHECK(t.lid != own);
    CHECK(seen.insert(t.lid).second);
    CHECK(f.find_guid(t.node_guid) != ibw::fabric::kNoNode);
  }

  // A link that is down is neither a link to probe nor a LID target at its CA end.
  f.node(1).ports[1].state = 1;
  CHECK(fabric_links(f).size() == 11);
  CHECK(plan_lid_targets(f, own).size() == lids.size() - 1);
}

TEST_CASE("prober: directed routes leave through the nearer end of each link", "[probe]") {
  auto f = tf::two_tier(3, 2, 2);
  DrPlan plan = plan_link_probes(f, kHost0, 1, fabric_links(f));
  CHECK(plan.unreachable.empty());
  REQUIRE(plan.targets.size() == 12);
  auto find = [&](uint32_t near, int port) -> const DrTarget* {
    for (const auto& t : plan.targets)
      if (t.near == LinkEnd{near, port}) return &t;
    return nullptr;
  };
  // Our own link: out of our port 1 to leaf000.
  const DrTarget* own = find(kHost0, 1);
  REQUIRE(own);
  CHECK(own->route == std::vector<uint8_t>{1});
  CHECK(own->far == LinkEnd{kLeaf0, 1});
  CHECK(own->dst == ibw::fabric::format_guid(tf::leaf_guid(0)));
  // spine000 - leaf001: through leaf000 (port 3 up to spine000), then spine000's port 2.
  const DrTarget* down = find(kSpine0, 2);
  REQUIRE(down);
  CHECK(down->route == std::vector<uint8_t>{1, 3, 2});
  CHECK(down->far == LinkEnd{kLeaf1, 3});
  CHECK(down->far_guid == tf::leaf_guid(1));
  // A host on leaf001: the CA answers, named with its port.
  const DrTarget* host = find(kLeaf1, 1);
  REQUIRE(host);
  CHECK(host->route == std::vector<uint8_t>{1, 3, 2, 1});
  CHECK(host->dst == ibw::fabric::format_guid(tf::host_guid(2)) + "/1");

  // Guided: only the links asked for, by either end.
  DrPlan guided = plan_link_probes(f, kHost0, 1, {{kLeaf1, 3}});
  REQUIRE(guided.targets.size() == 1);
  CHECK(guided.targets[0].route == down->route);
}

TEST_CASE("prober: links with no directed route are reported - bad input throws", "[probe]") {
  auto f = tf::two_tier(3, 2, 2);
  // leaf001 cut off from both spines: its host links cannot be reached from host000.
  f.node(kLeaf1).ports[3].state = 1;
  f.node(kLeaf1).ports[4].state = 1;
  DrPlan plan = plan_link_probes(f, kHost0, 1, fabric_links(f));
  CHECK(plan.targets.size() == 8);      // 12 - 2 down - 2 host links of leaf001
  CHECK(plan.unreachable.size() == 2);  // the host links (down links are not listed)
  // Asked for by name, a down link is unreachable too.
  CHECK(plan_link_probes(f, kHost0, 1, {{kLeaf1, 3}}).unreachable.size() == 1);
  // A CA sends only out of its own port: from port 2 (no cable) nothing is reachable.
  CHECK(plan_link_probes(f, kHost0, 2, {{kSpine0, 1}}).targets.empty());
  CHECK_THROWS_AS(plan_link_probes(f, 999, 1, {}), std::invalid_argument);
  CHECK_THROWS_AS(plan_link_probes(f, kHost0, 1, {{kHost0, 2}}), std::invalid_argument);
}

TEST_CASE("prober: the token bucket allows a burst - then the rate", "[probe]") {
  TokenBucket b(1000, 4, 0);  // 1000/s: one token per ms
  for (int i = 0; i < 4; ++i) CHECK(b.take(0));
  CHECK_FALSE(b.take(0));
  CHECK(b.wait_us(0) == 1000);
  CHECK(b.wait_us(400) == 600);
  CHECK_FALSE(b.take(999));
  CHECK(b.take(1000));
  // Over a second in 50 us steps, never more than burst + rate.
  TokenBucket c(1000, 4, 0);
  int taken = 0;
  for (int64_t t = 0; t <= 1'000'000; t += 50)
    while (c.take(t)) ++taken;
  CHECK(taken >= 1000);
  CHECK(taken <= 1004);
  TokenBucket unlimited(0, 1, 0);
  for (int i = 0; i < 100; ++i) CHECK(unlimited.take(0));
}

TEST_CASE("prober: nearest-rank percentiles", "[probe]") {
  std::vector<double> none;
  CHECK_FALSE(percentile(none, 0.5));
  std::vector<double> one = {42};
  CHECK(*percentile(one, 0.99) == 42);
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  CHECK(*percentile(v, 0.50) == 50);
  CHECK(*percentile(v, 0.99) == 99);
  CHECK(*percentile(v, 1.0) == 100);
  CHECK(*percentile(v, 0.0) == 1);
}

}  // namespace prober_test
