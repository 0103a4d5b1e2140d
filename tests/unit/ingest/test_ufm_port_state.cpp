// Unit tests for UFM's port view (ingest/ufm/port_state.h): states from the recorded ports and
// links answers in tests/data/ufm, peers from links, and the changes between two polls
// (upserts, removals, high_ber events and their dedup keys).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "ingest/ufm/events.h"
#include "ingest/ufm/port_state.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::ingest;

namespace ufm_port_state_test {

std::vector<UfmPortState> recorded(bool with_links, int64_t now) {
  auto ports = parse_ufm_ports(ibw::test::ufm_recording("ports.json"));
  auto links = parse_ufm_links(ibw::test::ufm_recording("links.json"));
  REQUIRE(ports.ok);
  REQUIRE(links.ok);
  return ufm_port_states(ports.items, with_links ? &links.items : nullptr, now);
}

const UfmPortState& find(const std::vector<UfmPortState>& v, const std::string& name) {
  for (const auto& s : v)
    if (s.name == name) return s;
  FAIL("no port " << name);
  return v.front();
}

}  // namespace ufm_port_state_test

using namespace ufm_port_state_test;

TEST_CASE("ufm port state: ports become states keyed by the GUID of their name", "[ufm]") {
  auto v = recorded(false, 1000);
  REQUIRE(v.size() == 4);  // the record without a name is not a port
  const UfmPortState& up = find(v, "9c0591030090e000_33");
  CHECK(up.node_guid == 0x9c0591030090e000);
  CHECK(up.port == 33);
  CHECK(up.system_name == "sw-leaf-07");
  CHECK(up.dname == "1/17/1");
  CHECK(up.logical_state == "Active");
  CHECK(up.physical_state == "Link Up");
  CHECK(up.speed == "NDR");
  CHECK(up.width == "4x");
  CHECK(up.high_ber_severity == "warning");
  CHECK(up.peer_guid == 0xfc6a1c0300244e00);  // from the port's own peer name
  CHECK(up.peer_port == 8);
  CHECK(up.peer_node == "sw-spine-02");
  CHECK(up.peer_from == "ports");
  CHECK(up.since_us == 1000);
  const UfmPortState& down = find(v, "9c0591030090e000_52");
  CHECK(down.speed.empty());
  CHECK(down.high_ber_severity.empty());  // "N/A"
  CHECK(down.peer_guid == 0);
  CHECK(down.peer_from.empty());
}

TEST_CASE("ufm port state: links fill and confirm peers", "[ufm]") {
  auto v = recorded(true, 1000);
  const UfmPortState& leaf = find(v, "9c0591030090e000_33");
  CHECK(leaf.peer_guid == 0xfc6a1c0300244e00);
  CHECK(leaf.peer_port == 8);
  CHECK(leaf.peer_node == "sw-spine-02");  // the peer's record names it
  CHECK(leaf.peer_from == "links");
  const UfmPortState& spine = find(v, "fc6a1c0300244e00_8");
  CHECK(spine.peer_guid == 0x9c0591030090e000);
  CHECK(spine.peer_port == 33);
  CHECK(spine.peer_node == "sw-leaf-07");
  CHECK(spine.peer_from == "links");
  const UfmPortState& host = find(v, "0c42a10300001234_1");
  CHECK(host.peer_guid == 0x9c0591030090e000);
  CHECK(host.peer_port == 1);  // the link to a leaf port UFM did not list
  CHECK(host.peer_from == "links");
}

TEST_CASE("ufm port state: a first poll upserts every port and reports high BER ports", "[ufm]") {
  UfmPortStates states;
  auto c = states.update(recorded(true, 1000), 1000);
  CHECK(c.upsert.size() == 4);
  CHECK(c.removed.empty());
  REQUIRE(c.events.size() == 2);  // warning on the leaf port, error on the host port
  const Event& w = c.events[0].port == 33 ? c.events[0] : c.events[1];
  const Event& e = c.events[0].port == 33 ? c.events[1] : c.events[0];
  CHECK(w.kind == ufm_kind::high_ber);  // as UFM's BER events 917/918
  CHECK(w.source == EventSource::ufm);
  CHECK(w.severity == Severity::warning);
  CHECK(w.node_guid == 0x9c0591030090e000);
  CHECK(w.node == "sw-leaf-07");
  CHECK(w.time_us == 1000);
  CHECK(w.message == "UFM port sw-leaf-07/1/17/1 high_ber_severity warning (was none)");
  CHECK(w.dedup_key == "ufm_port:9c0591030090e000_33:high_ber:warning:1000");
  CHECK(e.severity == Severity::error);
  CHECK(e.node_guid == 0x0c42a10300001234);
}

TEST_CASE("ufm port state: an unchanged poll writes nothing and changes give events once",
          "[ufm]") {
  UfmPortStates states;
  states.update(recorded(true, 1000), 1000);
  auto same = states.update(recorded(true, 2000), 2000);
  CHECK(same.upsert.empty());
  CHECK(same.events.empty());
  CHECK(same.unchanged == 4);
  CHECK(states.find(0x9c0591030090e000, 33)->since_us == 1000);  // first seen as it is

  // The leaf port goes to error, the host port clears, a spine port goes down.
  auto v = recorded(true, 3000);
  for (auto& s : v) {
    if (s.port == 33) s.high_ber_severity = "error";
    if (s.name == "0c42a10300001234_1") s.high_ber_severity.clear();
    if (s.name == "fc6a1c0300244e00_8") s.logical_state = "Down";
  }
  auto c = states.update(v, 3000);
  CHECK(c.upsert.size() == 3);
  REQUIRE(c.events.size() == 2);  // a state change is recorded, not turned into an event
  for (const auto& e : c.events) {
    if (e.port == 33) {
      CHECK(e.kind == ufm_kind::high_ber);
      CHECK(e.severity == Severity::error);
      CHECK(e.message.find("error (was warning)") != std::string::npos);
    } else {
      CHECK(e.kind == ufm_kind::high_ber_cleared);
      CHECK(e.severity == Severity::info);
      CHECK(e.dedup_key == "ufm_port:0c42a10300001234_1:high_ber:none:3000");
    }
  }
  CHECK(states.find(0xfc6a1c0300244e00, 8)->logical_state == "Down");
  CHECK(states.find(0xfc6a1c0300244e00, 8)->since_us == 3000);
}

TEST_CASE("ufm port state: ports no longer listed are removed and a seeded view is quiet",
          "[ufm]") {
  UfmPortStates first;
  auto all = recorded(true, 1000);
  first.update(all, 1000);
  auto v = all;
  v.pop_back();
  auto c = first.update(v, 2000);
  REQUIRE(c.removed.size() == 1);
  CHECK(c.removed[0] == std::make_pair(all.back().node_guid, all.back().port));
  CHECK(first.size() == 3);

  // After a restart the stored view is the baseline: nothing to write, no events again.
  UfmPortStates restarted;
  restarted.seed(all);
  auto again = restarted.update(recorded(true, 5000), 5000);
  CHECK(again.upsert.empty());
  CHECK(again.events.empty());
}

TEST_CASE("ufm port state: link ends by system GUID and repeated unchanged polls", "[ufm]") {
  auto state = [](uint64_t guid, uint64_t system, int port, const std::string& name) {
    UfmPortState s;
    s.node_guid = guid, s.system_guid = system, s.port = port, s.system_name = name;
    s.name = std::to_string(guid) + "_" + std::to_string(port);
    return s;
  };
  std::vector<UfmPortState> v = {state(0x20, 0x2f, 3, "leaf-a"), state(0x10, 0, 1, "host-b"),
                                 state(0x20, 0, 3, "listed twice")};
  UfmLink l;
  l.source.guid = 0x2f, l.source.port = 3;  // the leaf's end named by its system GUID
  l.destination.guid = 0x10, l.destination.port = 1;
  l.destination.node_description = "host-b mlx5_0";
  UfmLink far;  // an end UFM did not list: nothing found, nothing changed
  far.source.guid = 0x99, far.source.port = 1;
  far.destination.guid = 0x10, far.destination.port = 9;
  apply_ufm_links(v, {far, l});
  CHECK(v[0].peer_guid == 0x10);
  CHECK(v[0].peer_port == 1);
  CHECK(v[0].peer_node == "host-b");  // the peer's record names it
  CHECK(v[1].peer_guid == 0x20);      // the leaf's node GUID, not the system GUID of the link
  CHECK(v[1].peer_node == "leaf-a");
  CHECK(v[2].peer_guid == 0);  // the same key listed again: the first entry is the one found

  UfmPortStates table;
  auto first = table.update(v, 100);
  CHECK(first.upsert.size() == 2);  // the second listing of 0x20/3 does not count
  for (int64_t now : {200, 300, 400}) {
    auto again = table.update(v, now);
    CHECK(again.upsert.empty());
    CHECK(again.removed.empty());
    CHECK(again.unchanged == 2);
  }
  const UfmPortState* kept = table.find(0x20, 3);
  REQUIRE(kept);
  CHECK(kept->system_name == "leaf-a");
  CHECK(kept->since_us == 100);
  CHECK(kept->peer_guid == 0x10);
}
