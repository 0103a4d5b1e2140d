// UfmInventory (daemon/sources/ufm_inventory.h) against the UFM emulator serving a lab fat tree:
// UFM's ports mapped onto the fabric's GUIDs with their peers, only changes in the batch, high BER
// and alarms as events named from the fabric with peer and planned cable, failed and partial
// reads that keep the last view, alarms not raised twice across a restart and cleared after
// two reads without them.
#include <catch2/catch.hpp>

#include <memory>

#include "daemon/sources/ufm_inventory.h"
#include "ingest/clock.h"
#include "ingest/ufm/events.h"
#include "tests/unit/test_ufm_fabric.h"

namespace ufm_inventory_test {

using namespace ibw;

// A 2-leaf, 2-spine, 2-hosts-per-leaf fat tree, and a UFM client of the emulator serving it.
struct Rig : test::UfmFabric {
  ingest::ManualClock clock;
  std::unique_ptr<ingest::UfmClient> client;
  Rig() : UfmFabric(2, 2, 2) {
    ingest::UfmClientOptions o = emu->client_options(ingest::UfmApi::v3);
    o.breaker.failures_to_open = 1'000'000;  // failures are injected: keep asking
    client =
        std::make_unique<ingest::UfmClient>(o, clock, [this](int64_t us) { clock.advance_us(us); });
  }
  daemon::UfmInventory inventory(const std::optional<std::string>& alarm_cursor = std::nullopt) {
    return daemon::UfmInventory(*client, {}, alarm_cursor, {});
  }
};

const ingest::UfmPortState* state_of(const store::WriteBatch& b, uint64_t guid, int port) {
  for (const auto& s : b.ufm_ports)
    if (s.node_guid == guid && s.port == port) return &s;
  return nullptr;
}

TEST_CASE("ufm inventory: UFM's ports on the fabric's GUIDs with peers - then only changes",
          "[ufm][daemon]") {
  Rig rig;
  auto inv = rig.inventory();
  CHECK_FALSE(inv.index());
  auto first = inv.poll_ports(rig.topo.get(), Rig::kNow);
  REQUIRE(first.ok);
  CHECK(first.error.empty());
  CHECK(first.listed == 16);  // 4 host ports, 4 on each leaf, 2 on each spine
  CHECK(first.links == 8);
  CHECK(first.changed == first.listed);  // all new
  CHECK(first.removed == 0);
  CHECK(first.batch.events.empty());
  CHECK(inv.index());
  const uint64_t leaf = rig.guid("leaf001");
  auto ctx = rig.topo->correlator->port(leaf, 3);  // a leaf-spine link
  REQUIRE(ctx);
  const ingest::UfmPortState* s = state_of(first.batch, leaf, 3);
  REQUIRE(s);
  CHECK(s->peer_guid == ctx->peer_guid);
  CHECK(s->peer_port == ctx->peer_port);
  CHECK(s->peer_from == "links");
  CHECK(s->high_ber_severity.empty());

  auto same = inv.poll_ports(rig.topo.get(), Rig::kNow + 10'000'000);
  REQUIRE(same.ok);
  CHECK(same.changed == 0);
  CHECK(same.batch.ufm_ports.empty());
  CHECK(same.batch.events.empty());

  rig.emu->post("port", {{"port", "leaf001/3"}, {"high_ber", "warning"}});
  auto ber = inv.poll_ports(rig.topo.get(), Rig::kNow + 20'000'000);
  REQUIRE(ber.ok);
  CHECK(ber.changed == 1);
  REQUIRE(ber.batch.ufm_ports.size() == 1);
  CHECK(ber.batch.ufm_ports[0].high_ber_severity == "warning");
  REQUIRE(ber.batch.events.size() == 1);
  const ingest::Event& e = ber.batch.events[0];
  CHECK(e.kind == ingest::ufm_kind::high_ber);
  CHECK(e.node_guid == leaf);
  CHECK(e.node == "leaf001");
  CHECK(e.port == 3);
  CHECK(e.peer_node == ctx->peer_node);
  CHECK(e.peer_port == ctx->peer_port);
  CHECK_FALSE(e.cable_id.empty());
  CHECK(e.cable_id == rig.topo->correlator->cable_at(leaf, 3));

  rig.emu->post("port", {{"port", "leaf001/3"}, {"high_ber", nullptr}});
  auto cleared = inv.poll_ports(rig.topo.get(), Rig::kNow + 30'000'000);
  REQUIRE(cleared.batch.events.size() == 1);
  CHECK(cleared.batch.events[0].kind == ingest::ufm_kind::high_ber_cleared);
}

TEST_CASE("ufm inventory: a failed or partial read keeps the last view", "[ufm][daemon]") {
  Rig rig;
  auto inv = rig.inventory();
  REQUIRE(inv.poll_ports(rig.topo.get(), Rig::kNow).ok);

  // Links unreadable: the ports are still read, peers from the last links read.
  rig.emu->fail("5xx", 50, {{"path", "/resources/links"}});
  rig.emu->post("port", {{"port", "leaf002/4"}, {"high_ber", "error"}});
  auto no_links = inv.poll_ports(rig.topo.get(), Rig::kNow + 10'000'000);
  CHECK(no_links.ok);
  CHECK(no_links.error.rfind("links: ", 0) == 0);
  CHECK(no_links.changed == 1);  // the one real change, no churn of every peer
  REQUIRE(no_links.batch.ufm_ports.size() == 1);
  CHECK(no_links.batch.ufm_ports[0].peer_from == "links");
  rig.emu->post("control", {{"fail", "none"}});

  // Ports unreadable: nothing to store.
  rig.emu->fail("5xx", 50, {{"path", "/resources/ports"}});
  auto no_ports = inv.poll_ports(rig.topo.get(), Rig::kNow + 20'000'000);
  CHECK_FALSE(no_ports.ok);
  CHECK(no_ports.error.rfind("ports: ", 0) == 0);
  CHECK(no_ports.batch.ufm_ports.empty());
  CHECK(no_ports.batch.ufm_ports_removed.empty());
  rig.emu->post("control", {{"fail", "none"}});

  // A quarter of the ports: not taken for three quarters of the fabric gone.
  rig.emu->fail("partial", 50, {{"path", "/resources/ports"}, {"keep", 0.25}});
  auto partial = inv.poll_ports(rig.topo.get(), Rig::kNow + 30'000'000);
  CHECK_FALSE(partial.ok);
  CHECK(partial.error.find("not trusted") != std::string::npos);
  CHECK(partial.batch.ufm_ports_removed.empty());
  rig.emu->post("control", {{"fail", "none"}});
  auto back = inv.poll_ports(rig.topo.get(), Rig::kNow + 40'000'000);
  REQUIRE(back.ok);
  CHECK(back.changed == 0);
  CHECK(back.removed == 0);
}

TEST_CASE("ufm inventory: alarms raised once with peer - cleared - not again after a restart",
          "[ufm][daemon]") {
  Rig rig;
  auto inv = rig.inventory();
  REQUIRE(inv.poll_ports(rig.topo.get(), Rig::kNow).ok);
  rig.emu->post("alarms", {{"port", "leaf001/3"}, {"type", 394}, {"severity", "Critical"}});
  auto raised = inv.poll_alarms(rig.topo.get(), Rig::kNow + 1);
  REQUIRE(raised.ok);
  CHECK(raised.listed == 1);
  CHECK(raised.changed == 1);
  REQUIRE(raised.batch.events.size() == 1);
  const ingest::Event& e = raised.batch.events[0];
  const uint64_t leaf = rig.guid("leaf001");
  CHECK(e.kind == ingest::ufm_kind::alarm);
  CHECK(e.node_guid == leaf);
  CHECK(e.node == "leaf001");
  CHECK(e.port == 3);
  CHECK(e.peer_node == rig.topo->correlator->port(leaf, 3)->peer_node);
  CHECK(e.cable_id == rig.topo->correlator->cable_at(leaf, 3));
  REQUIRE(raised.batch.cursors.size() == 1);
  CHECK(raised.batch.cursors[0].first == "ufm_alarms");
  const std::string cursor = raised.batch.cursors[0].second;

  auto again = inv.poll_alarms(rig.topo.get(), Rig::kNow + 2);
  REQUIRE(again.ok);
  CHECK(again.changed == 0);
  CHECK(again.batch.events.empty());
  CHECK(again.batch.cursors.empty());  // nothing to store

  auto restarted = rig.inventory(cursor);  // the stored cursor: the open alarm is known
  auto after_restart = restarted.poll_alarms(rig.topo.get(), Rig::kNow + 3);
  REQUIRE(after_restart.ok);
  CHECK(after_restart.changed == 0);
  CHECK(after_restart.batch.events.empty());

  rig.emu->post("alarms", {{"clear", "all"}});
  auto missed_once = inv.poll_alarms(rig.topo.get(), Rig::kNow + 4);  // one miss clears nothing
  REQUIRE(missed_once.ok);
  CHECK(missed_once.removed == 0);
  CHECK(missed_once.batch.events.empty());
  auto cleared = inv.poll_alarms(rig.topo.get(), Rig::kNow + 5);
  REQUIRE(cleared.ok);
  CHECK(cleared.removed == 1);
  REQUIRE(cleared.batch.events.size() == 1);
  CHECK(cleared.batch.events[0].kind == ingest::ufm_kind::alarm_cleared);
  CHECK(cleared.batch.events[0].node_guid == leaf);

  rig.emu->fail("5xx", 50, {{"path", "/app/alarms"}});
  auto failed = inv.poll_alarms(rig.topo.get(), Rig::kNow + 6);
  CHECK_FALSE(failed.ok);
  CHECK(failed.error.rfind("alarms: ", 0) == 0);
  CHECK(failed.batch.events.empty());
}

TEST_CASE("ufm inventory: fill_peers gives a port event UFM's peer - named from the fabric",
          "[ufm][daemon]") {
  Rig rig;
  auto inv = rig.inventory();
  const uint64_t leaf = rig.guid("leaf002");
  std::vector<ingest::Event> events(3);
  events[0].node_guid = leaf, events[0].port = 4;
  events[1].node_guid = leaf, events[1].port = 3, events[1].peer_node = "as the source said";
  events[2].node_guid = leaf;  // a node event: no port, no peer
  inv.fill_peers(rig.topo.get(), events);
  CHECK(events[0].peer_node.empty());  // nothing read from UFM yet

  REQUIRE(inv.poll_ports(rig.topo.get(), Rig::kNow).ok);
  inv.fill_peers(rig.topo.get(), events);
  auto ctx = rig.topo->correlator->port(leaf, 4);
  REQUIRE(ctx);
  CHECK(events[0].peer_guid == ctx->peer_guid);
  CHECK(events[0].peer_node == ctx->peer_node);
  CHECK(events[0].peer_port == ctx->peer_port);
  CHECK(events[0].cable_id == rig.topo->correlator->cable_at(leaf, 4));
  CHECK(events[1].peer_node == "as the source said");
  CHECK(events[1].peer_guid == 0);
  CHECK(events[2].peer_node.empty());

  std::vector<ingest::Event> without_topology(1);  // UFM's own name of the peer
  without_topology[0].node_guid = leaf, without_topology[0].port = 4;
  inv.fill_peers(nullptr, without_topology);
  CHECK(without_topology[0].peer_guid == ctx->peer_guid);
  CHECK_FALSE(without_topology[0].peer_node.empty());
  CHECK(without_topology[0].cable_id.empty());
}

}  // namespace ufm_inventory_test
