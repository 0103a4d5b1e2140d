// SlurmHosts (daemon/slurm_hosts.h): which hosts count as cut off or degraded -- a link down,
// disabled by ibwarden, up at fewer lanes than enabled, a host_down incident -- and that a host
// keeps being judged after it drops out of a later discovery.
#include <catch2/catch.hpp>

#include "daemon/slurm_hosts.h"
#include "tests/unit/test_fabrics.h"

using namespace ibw;
using Health = actions::SlurmHostView::Health;

namespace {

// One leaf with five hosts "node000N mlx5_0" (N = 1..5) at leaf ports 1..5, 4x HDR enabled.
fabric::Fabric hosts_fabric(int degraded_host) {
  auto f = test_fabric::two_tier(1, 1, 5);
  for (uint32_t i = 0; i < f.size(); ++i) {
    auto& n = f.node(i);
    for (auto& p : n.ports) {
      if (!p.has_peer()) continue;
      p.width_enabled = p.width_active = 4;
      p.speed_enabled = p.speed_active = fabric::Speed::hdr;
    }
    if (n.type != fabric::NodeType::ca) continue;
    int h = static_cast<int>(n.guid - test_fabric::host_guid(0));
    n.description = "node000" + std::to_string(h + 1) + " mlx5_0";
    if (h == degraded_host) n.port(1)->width_active = 1;
  }
  return f;
}

const actions::SlurmHostView* find(const std::vector<actions::SlurmHostView>& v,
                                   const std::string& node) {
  for (const auto& h : v)
    if (h.node == node) return &h;
  return nullptr;
}

// A discovery of `fab` at `now`: its port table and the Slurm hosts learned from it.
struct Learned {
  std::shared_ptr<const daemon::Topology> topo;
  daemon::PortTable ports;
  std::vector<ingest::Event> events;
  daemon::SlurmHosts hosts;
  Learned(const fabric::Fabric& fab, int64_t now) : topo(daemon::make_topology(fab, nullptr, now)) {
    ports.apply_topology(*topo, now, &events);
    hosts.learn(topo->fabric, {});
  }
};

}  // namespace

TEST_CASE("slurm hosts: down disabled degraded and host_down count and the rest is whole",
          "[slurm][slurm_hosts]") {
  Learned at(hosts_fabric(2), 100);  // node0003 up at 1x
  auto& ports = at.ports;
  auto& events = at.events;
  auto& hosts = at.hosts;
  REQUIRE(hosts.size() == 5);
  // node0001's link goes down (a link check read it).
  ports.apply_link_states({{test_fabric::host_guid(0), 1, 1, 2}}, 200, &events);
  // node0002's link was disabled by ibwarden at the leaf end.
  std::set<std::pair<uint64_t, int>> disabled = {{test_fabric::leaf_guid(0), 2}};
  // node0004: a host_down incident.
  rules::Incident inc;
  inc.id = "260-1";
  inc.kind = "host_down";
  inc.node_guid = test_fabric::host_guid(3);
  inc.state = "active";
  inc.down = 1;
  auto v = hosts.views(ports, disabled, {inc});
  REQUIRE(v.size() == 5);
  CHECK(find(v, "node0001")->health == Health::cut_off);
  CHECK(find(v, "node0001")->why == "link down");
  CHECK(find(v, "node0001")->peer.node == "leaf000");
  CHECK(find(v, "node0001")->peer.port == 1);
  CHECK(find(v, "node0002")->health == Health::cut_off);
  CHECK(find(v, "node0002")->why == "link disabled");
  CHECK(find(v, "node0003")->health == Health::degraded);
  CHECK(find(v, "node0003")->why == "up at 1x HDR (expected 4x HDR)");
  CHECK(find(v, "node0004")->health == Health::cut_off);
  CHECK(find(v, "node0004")->incident == "260-1");
  CHECK(find(v, "node0005")->health == Health::whole);
  CHECK(find(v, "node0005")->link_key ==
        core::link_key(test_fabric::host_guid(4), 1, test_fabric::leaf_guid(0), 5));

  SECTION("an incident whose links are back no longer counts") {
    inc.down = 0;
    auto back = hosts.views(ports, disabled, {inc});
    CHECK(find(back, "node0004")->health == Health::whole);
  }
  SECTION("a later discovery keeps what the port table says") {
    auto without = hosts_fabric(-1);
    auto t2 = daemon::make_topology(without, nullptr, 300);
    hosts.learn(t2->fabric, {});
    auto again = hosts.views(ports, {}, {});
    CHECK(find(again, "node0001")->health == Health::cut_off);
    CHECK(find(again, "node0002")->health == Health::whole);
  }
}

TEST_CASE("slurm hosts: a link up at what both ends enable is whole", "[slurm][slurm_hosts]") {
  // node0005's HCA enables 4x HDR, its leaf port only 2x EDR: up at 2x EDR is as configured
  // (the link-width rule judges it the same way), not a degraded host to drain. Below that
  // both-ends rate it is degraded.
  auto fab = hosts_fabric(-1);
  auto& leaf = fab.node(fab.find_guid(test_fabric::leaf_guid(0)));
  auto& host = fab.node(fab.find_guid(test_fabric::host_guid(4)));
  leaf.port(5)->width_enabled = leaf.port(5)->width_active = 2;
  leaf.port(5)->speed_enabled = leaf.port(5)->speed_active = fabric::Speed::edr;
  host.port(1)->width_active = 2;
  host.port(1)->speed_active = fabric::Speed::edr;
  Learned at(fab, 100);
  auto v = at.hosts.views(at.ports, {}, {});
  REQUIRE(find(v, "node0005"));
  CHECK(find(v, "node0005")->health == Health::whole);

  host.port(1)->width_active = leaf.port(5)->width_active = 1;
  Learned narrow(fab, 200);
  auto w = at.hosts.views(narrow.ports, {}, {});
  CHECK(find(w, "node0005")->health == Health::degraded);
  CHECK(find(w, "node0005")->why == "up at 1x EDR (expected 2x EDR)");
}

TEST_CASE(
    "slurm hosts: a multi-rail host short of a rail is degraded and all rails lost is cut off",
    "[slurm][slurm_hosts]") {
  // Two hosts of two adapters each: node0001 = hosts 0 and 1 (mlx5_0, mlx5_1), node0002 =
  // hosts 2 and 3.
  auto fab = hosts_fabric(-1);
  for (int h = 0; h < 4; ++h) {
    auto& n = fab.node(fab.find_guid(test_fabric::host_guid(h)));
    n.description = "node000" + std::to_string(h / 2 + 1) + " mlx5_" + std::to_string(h % 2);
  }
  Learned at(fab, 100);
  auto& ports = at.ports;
  auto& events = at.events;
  auto v = at.hosts.views(ports, {}, {});
  CHECK(find(v, "node0001")->health == Health::whole);
  CHECK(find(v, "node0002")->health == Health::whole);
  // node0001 loses its mlx5_1 rail (down); node0002 one rail disabled by ibwarden, one down.
  ports.apply_link_states({{test_fabric::host_guid(1), 1, 1, 2}}, 200, &events);
  ports.apply_link_states({{test_fabric::host_guid(3), 1, 1, 2}}, 200, &events);
  std::set<std::pair<uint64_t, int>> disabled = {{test_fabric::leaf_guid(0), 3}};
  auto w = at.hosts.views(ports, disabled, {});
  REQUIRE(find(w, "node0001"));
  CHECK(find(w, "node0001")->health == Health::degraded);
  CHECK(find(w, "node0001")->why == "link down (1 of 2 links)");
  CHECK(find(w, "node0001")->ca.guid == test_fabric::host_guid(1));
  CHECK(find(w, "node0002")->health == Health::cut_off);
  CHECK(find(w, "node0002")->why == "link disabled");
  // The rail back: whole again.
  ports.apply_link_states({{test_fabric::host_guid(1), 1, 4, 5}}, 300, &events);
  CHECK(find(at.hosts.views(ports, disabled, {}), "node0001")->health == Health::whole);
}
