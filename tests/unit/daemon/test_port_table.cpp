// PortTable (daemon/port_table.h): link states read by the link check (daemon/sources/link_check.h)
// become link_down / link_up events for both ends of a cable, a link comes back only to the
// peer both ends last lost, and a discovery older than a check does not undo what it read.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "daemon/port_table.h"
#include "tests/unit/daemon/two_switches.h"
#include "tests/unit/test_fat_tree.h"

using namespace ibw;

namespace port_table_test {

size_t count(const std::vector<ingest::Event>& events, std::string_view kind) {
  size_t n = 0;
  for (const auto& e : events) n += e.kind == kind;
  return n;
}

}  // namespace port_table_test

using namespace port_table_test;

TEST_CASE("port table: a link check reading Down drops both ends - Up restores the last peer",
          "[port_table]") {
  daemon::PortTable table;
  std::vector<ingest::Event> events;
  table.apply_topology(*daemon::make_topology(test::two_switches(true), nullptr, 100), 100,
                       &events);
  REQUIRE(events.empty());

  table.apply_link_states({{0xa, 1, 1, 2}}, 200, &events);  // leafA/1 reads Down/Polling
  CHECK(count(events, "link_down") == 2);                   // leafA/1 and spineB/1
  CHECK(table.get(0xa, 1)->peer_guid == 0);
  CHECK(table.get(0xb, 1)->peer_guid == 0);
  CHECK(table.get(0xa, 1)->phys_state == 2);
  CHECK(table.get(0xa, 2)->peer_guid == 0xb);  // the other cable is untouched

  events.clear();
  table.apply_link_states({{0xb, 1, 2, 5}}, 300, &events);  // spineB/1 reads Init/LinkUp
  CHECK(count(events, "link_up") == 2);
  auto a1 = table.get(0xa, 1);
  CHECK(a1->peer_guid == 0xb);
  CHECK(a1->peer_port == 1);
  CHECK(a1->peer_node == "spineB");
  CHECK(a1->state == 2);

  events.clear();  // reading the same states again changes nothing
  table.apply_link_states({{0xa, 1, 2, 5}, {0xb, 1, 2, 5}}, 310, &events);
  CHECK(events.empty());
}

TEST_CASE("port table: a discovery older than a link check does not undo it", "[port_table]") {
  daemon::PortTable table;
  std::vector<ingest::Event> events;
  table.apply_topology(*daemon::make_topology(test::two_switches(true), nullptr, 100), 100,
                       &events);
  table.apply_link_states({{0xa, 1, 1, 2}}, 300, &events);
  table.apply_link_states({{0xa, 1, 4, 5}}, 400, &events);  // back up
  events.clear();
  // A discovery that started at 350, when the link was down, lands after the check at 400.
  auto without = daemon::make_topology(test::two_switches(false), nullptr, 350);
  table.apply_topology(*without, 350, &events);
  CHECK(events.empty());
  CHECK(table.get(0xa, 1)->peer_guid == 0xb);
  // One that started after the check is believed: the link is gone again.
  table.apply_topology(*without, 500, &events);
  CHECK(count(events, "link_down") == 2);
  CHECK(table.get(0xa, 1)->peer_guid == 0);
}

TEST_CASE("port table: a node's name outlives its discovery", "[port_table]") {
  // A switch rebooting is gone from the next topology; its work order still names it.
  daemon::PortTable table;
  std::vector<ingest::Event> events;
  table.apply_topology(*daemon::make_topology(test::two_switches(true), nullptr, 100), 100,
                       &events);
  fabric::Fabric alone;
  fabric::Node a;
  a.guid = 0xa, a.type = fabric::NodeType::sw, a.name = "leafA", a.num_ports = 4;
  alone.add_node(std::move(a));
  alone.reindex();
  table.apply_topology(*daemon::make_topology(std::move(alone), nullptr, 200), 200, &events);
  CHECK(table.node_name(0xb) == "spineB");
  CHECK(table.node_name(0xa) == "leafA");
  CHECK(table.node_name(0xc).empty());  // never seen
}

TEST_CASE("port table: a port up with no lost peer waits for the discovery", "[port_table]") {
  daemon::PortTable table;
  std::vector<ingest::Event> events;
  table.apply_topology(*daemon::make_topology(test::two_switches(false), nullptr, 100), 100,
                       &events);
  // leafA/1 was never linked: the check cannot know its peer, so it reports nothing.
  table.apply_link_states({{0xa, 1, 4, 5}}, 200, &events);
  CHECK(events.empty());
  CHECK(table.get(0xa, 1)->peer_guid == 0);
  CHECK(table.get(0xa, 1)->state == 4);
  // A link that came back with one end now cabled elsewhere is left to the discovery too.
  table.apply_link_states({{0xa, 2, 1, 2}}, 300, &events);  // leafA/2 - spineB/2 down
  REQUIRE(count(events, "link_down") == 2);
  events.clear();
  auto moved = test::two_switches(false);
  moved.connect(0, 3, 1, 2);  // spineB/2 now reaches leafA/3
  table.apply_topology(*daemon::make_topology(std::move(moved), nullptr, 400), 400, &events);
  events.clear();
  table.apply_link_states({{0xa, 2, 4, 5}}, 500, &events);
  CHECK(events.empty());
}

TEST_CASE("port table: counter readings update known ports only - a renamed peer is a change",
          "[port_table]") {
  daemon::PortTable table;
  std::vector<ingest::Event> events;
  table.apply_topology(*daemon::make_topology(test::two_switches(true), nullptr, 100), 100,
                       &events);
  ingest::CounterDelta known, unknown;
  known.sample.node_guid = 0xa;
  known.sample.port = 2;
  known.sample.time_us = 150;
  known.sample.value[0] = 7;
  known.delta[0] = 3;
  known.rate[0] = 0.5;
  known.valid = 1;
  known.at_least = 1;
  unknown.sample.node_guid = 0xc;
  unknown.sample.port = 1;
  CHECK(table.apply_counters({known, unknown}) == 1);
  auto r = table.get(0xa, 2);
  REQUIRE(r);
  CHECK(r->counters.value[0] == 7);
  CHECK(r->counters.time_us == 150);
  CHECK(r->deltas[0] == 3);
  CHECK(r->rates[0] == 0.5);
  CHECK(r->rates_valid == 1);
  CHECK(r->deltas_valid == 1);
  CHECK(r->deltas_at_least == 1);
  CHECK_FALSE(table.get(0xc, 1));

  // Counter writes no longer carry whole records, so the rows of leafA's ports must be
  // rewritten when only their peer's name changes.
  fabric::Fabric renamed = test::two_switches(true);
  renamed.node(1).name = "spineB2";
  renamed.reindex();
  auto changed =
      table.apply_topology(*daemon::make_topology(std::move(renamed), nullptr, 200), 200, &events);
  size_t peers_renamed = 0;
  for (const auto& c : changed) peers_renamed += c.node_guid == 0xa && c.peer_node == "spineB2";
  CHECK(peers_renamed == 2);
  CHECK(table.get(0xa, 2)->counters.value[0] == 7);  // the counters stay
}

TEST_CASE("port table: readings in any order with unknown ports among them each reach their port",
          "[port_table]") {
  // apply_counters looks ports up a few readings ahead of the one it writes: every reading
  // must still land on its own port, whatever the order and wherever the misses fall.
  daemon::PortTable table;
  std::vector<ingest::Event> events;
  auto topo = daemon::make_topology(test_fabric::k4_fat_tree(), nullptr, 100);
  table.apply_topology(*topo, 100, &events);
  std::vector<ingest::CounterDelta> deltas;
  for (const auto& l : topo->links) {
    ingest::CounterDelta& d = deltas.emplace_back();
    d.sample.node_guid = l.node_guid, d.sample.port = l.port, d.sample.time_us = 200;
    d.sample.value[0] = l.node_guid * 100 + static_cast<uint64_t>(l.port);
    d.valid = 1;
  }
  const size_t known = deltas.size();
  REQUIRE(known > 50);
  for (int i = 0; i < 20; ++i) {  // ports no topology has
    ingest::CounterDelta& d = deltas.emplace_back();
    d.sample.node_guid = 0xdead0000 + static_cast<uint64_t>(i), d.sample.port = 1;
  }
  std::shuffle(deltas.begin(), deltas.end(), std::mt19937(7));
  CHECK(table.apply_counters(deltas) == known);
  for (const auto& l : topo->links) {
    auto r = table.get(l.node_guid, l.port);
    REQUIRE(r);
    CHECK(r->counters.value[0] == l.node_guid * 100 + static_cast<uint64_t>(l.port));
    CHECK(r->counters.time_us == 200);
  }
  CHECK(table.apply_counters({deltas.begin(), deltas.begin() + 3}) <= 3);  // fewer than ahead
}
