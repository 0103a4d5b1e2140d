// Unit tests for UFM event parsing and mapping (ingest/ufm/events.h, ufm_description.h) on the
// recorded samples in tests/data/ufm (see its README for which shapes are documented).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ingest/ufm/events.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::ingest;

namespace ufm_events_test {

// The fields both schema generations must agree on (the time differs by the milliseconds
// only 6.16 writes).
std::string identity(const Event& e) {
  std::ostringstream os;
  os << e.kind << "|" << severity_name(e.severity) << "|" << std::hex << e.node_guid << std::dec
     << "/" << e.port << "|" << e.node << "|" << std::hex << e.peer_guid << std::dec << "/"
     << e.peer_port << "|" << e.peer_node << "|" << e.message << "|" << e.dedup_key << "|"
     << e.time_us / 1000000;
  return os.str();
}

}  // namespace ufm_events_test

TEST_CASE("ufm events: timestamps are server-local and converted with the offset", "[ufm]") {
  auto utc = parse_ufm_timestamp("2024-03-01 10:15:30.125", 0);
  REQUIRE(utc);
  CHECK(*utc == 1709288130125000);
  CHECK(parse_ufm_timestamp("2024-03-01 10:15:30", 0) == 1709288130000000);
  CHECK(parse_ufm_timestamp("2024-03-01T10:15:30", 0) == 1709288130000000);
  // US-Pacific in March (UTC-8): 10:15 local is 18:15 UTC.
  CHECK(parse_ufm_timestamp("2024-03-01 10:15:30", -8 * 3600) == 1709288130000000 + 8 * 3600e6);
  CHECK_FALSE(parse_ufm_timestamp("2024-13-01 10:15:30", 0));
  CHECK_FALSE(parse_ufm_timestamp("01/03/2024 10:15", 0));
  CHECK_FALSE(parse_ufm_timestamp("2024-03-01 10:15:30 PST", 0));
  CHECK_FALSE(parse_ufm_timestamp("", 0));
}

TEST_CASE("ufm events: both schema generations give the same internal events", "[ufm]") {
  UfmTimeContext tc{3600};
  auto legacy = parse_ufm_events(ibw::test::ufm_recording("events-6.16.json"), tc);
  auto current = parse_ufm_events(ibw::test::ufm_recording("events-6.17.json"), tc);
  REQUIRE(legacy.ok);
  REQUIRE(current.ok);
  REQUIRE(legacy.items.size() == 11);
  REQUIRE(current.items.size() == 11);
  for (size_t i = 0; i < legacy.items.size(); ++i) {
    INFO("event " << legacy.items[i].id);
    CHECK(legacy.items[i].schema == UfmSchema::legacy);
    CHECK(current.items[i].schema == UfmSchema::current);
    CHECK(legacy.items[i].type == current.items[i].type);
    CHECK(ufm_events_test::identity(to_event(legacy.items[i])) ==
          ufm_events_test::identity(to_event(current.items[i])));
  }
  CHECK(current.items[0].object_type == "Link");
  CHECK(legacy.items[0].time_us == 1709288130125000 - 3600'000'000LL);
}

TEST_CASE("ufm events: the events that matter map to internal kinds", "[ufm]") {
  auto parsed = parse_ufm_events(ibw::test::ufm_recording("events-6.17.json"), {});
  REQUIRE(parsed.ok);
  std::vector<Event> e;
  for (const auto& u : parsed.items) e.push_back(to_event(u));
  REQUIRE(e.size() == 11);

  // 329: both link ends from the description.
  CHECK(e[0].source == EventSource::ufm);
  CHECK(e[0].kind == "link_down");
  CHECK(e[0].severity == Severity::warning);
  CHECK(e[0].node_guid == 0x9c0591030090e000);
  CHECK(e[0].port == 33);
  CHECK(e[0].node == "sw-leaf-07");
  CHECK(e[0].peer_guid == 0xfc6a1c0300244e00);
  CHECK(e[0].peer_port == 8);
  CHECK(e[0].peer_node == "sw-spine-02");
  CHECK(e[0].dedup_key == "ufm:5001:20240301101530");
  CHECK(e[0].message.rfind("UFM 329 Link went down: Link went down: (Switch:sw-leaf-07", 0) == 0);
  CHECK(e[1].kind == "link_up");
  CHECK(e[1].peer_port == 8);
  // 702: the object is the port, the description names its peer by label only.
  CHECK(e[2].kind == "port_unhealthy");
  CHECK(e[2].node_guid == 0x9c0591030090e000);
  CHECK(e[2].port == 33);
  CHECK(e[2].peer_node == "sw-spine-02");
  CHECK(e[2].peer_port == 0);       // "1/4/2" is a label (a UfmPortIndex resolves it)
  CHECK(e[3].kind == "ufm_event");  // 702 MANUAL: an isolation someone asked for
  // Thresholds name their counter.
  CHECK(e[4].kind == "counter_threshold");
  CHECK(e[4].severity == Severity::warning);  // Minor
  CHECK(e[4].node_guid == 0xfc6a1c0300244e00);
  CHECK(e[4].port == 8);
  CHECK(e[4].message.find("(SymbolErrorCounter)") != std::string::npos);
  CHECK(e[5].message.find("(PortXmitDiscards)") != std::string::npos);
  CHECK(e[6].kind == "high_ber");
  CHECK(e[7].kind == "width_degraded");
  CHECK(e[8].kind == "cable");
  CHECK(e[9].kind == "ufm_event");
  CHECK(e[9].node_guid == 0);
  CHECK(e[9].message ==
        "UFM 66 New MCast Group Created: New MCast group is created: "
        "ff12601bffff0000, 1fffc6ec2");
  // A host end: a node description with a space.
  CHECK(e[10].peer_node == "node0042 mlx5_0");
  CHECK(e[10].peer_guid == 0x0c42a10300001234);
  CHECK(e[10].peer_port == 1);
  CHECK(e[10].port == 1);
}

TEST_CASE("ufm events: odd records are read leniently or skipped with a reason", "[ufm]") {
  auto parsed = parse_ufm_events(ibw::test::ufm_recording("events-odd.json"), {});
  REQUIRE(parsed.ok);
  REQUIRE(parsed.items.size() == 3);
  CHECK(parsed.skipped == 2);
  REQUIRE(parsed.warnings.size() == 2);
  CHECK(parsed.warnings[0] == "events[1]: no integer id");
  CHECK(parsed.items[0].type == 352);
  CHECK(parsed.items[1].id == 3);       // id as a string
  CHECK(parsed.items[1].type == 67);    // event_type as a number
  CHECK(parsed.items[1].time_us == 0);  // unreadable timestamp
  CHECK(parsed.items[2].type == 0);     // no number anywhere
  CHECK(parsed.items[2].object_type == "Port");
  CHECK(to_event(parsed.items[2]).kind == "ufm_event");

  CHECK_FALSE(parse_ufm_events("{\"error\": \"x\"}", {}).ok);
  auto bad = parse_ufm_events("[{\"id\": 1, \"na", {});
  CHECK_FALSE(bad.ok);
  CHECK(bad.error == "events: response is not a valid JSON array (offset 14: unexpected end)");
  auto one = parse_ufm_event(R"({"id": 9, "type": "329", "timestamp": "2024-03-01 10:00:00"})", {});
  REQUIRE(one);
  CHECK(one->type == 329);
  CHECK_FALSE(parse_ufm_event("[]", {}));
}

TEST_CASE("ufm events: event.log lines parse like REST events", "[ufm]") {
  std::istringstream in(ibw::test::ufm_recording("event.log"));
  std::vector<UfmEvent> got;
  for (std::string line; std::getline(in, line);)
    if (auto e = parse_ufm_event_log_line(line, {})) got.push_back(*e);
  REQUIRE(got.size() == 4);
  CHECK(got[0].id == 5001);
  CHECK(got[0].type == 329);
  CHECK(got[0].severity == "Warning");
  CHECK(got[0].category == "Fabric_Topology");
  CHECK(got[0].object_type == "Link");
  CHECK(got[0].object_path == "default / Switch: sw-leaf-07 / 1/17/1");
  CHECK(got[0].object_name == "9c0591030090e000");
  CHECK(got[1].object_name.empty());
  CHECK(got[3].object_path == "default");

  auto rest = parse_ufm_events(ibw::test::ufm_recording("events-6.16.json"), {});
  REQUIRE(rest.ok);
  Event from_log = to_event(got[0]);
  Event from_rest = to_event(rest.items[0]);
  CHECK(from_log.kind == from_rest.kind);
  CHECK(from_log.node_guid == from_rest.node_guid);
  CHECK(from_log.port == from_rest.port);
  CHECK(from_log.peer_guid == from_rest.peer_guid);
  CHECK(from_log.dedup_key == from_rest.dedup_key);
  CHECK(from_log.time_us == from_rest.time_us);
  CHECK(to_event(got[1]).port == 0);  // label "1/17/1" only, no dev_id
  CHECK(to_event(got[1]).peer_node == "sw-spine-02");
}

TEST_CASE("ufm events: description parsing finds what it can", "[ufm]") {
  auto d = parse_ufm_description(
      "Link went down: (Switch:T3-E21-N-U47:1/17/1)9c0591030090e000:33 - "
      "(Switch:T4-E45-L-U51:1/4/2)fc6a1c0300244e00:8, cable S/N: MT2330FT09118");
  REQUIRE(d.first);
  REQUIRE(d.second);
  CHECK(*d.first == UfmPortRef{"Switch", "T3-E21-N-U47", "1/17/1", 0x9c0591030090e000, 33});
  CHECK(*d.second == UfmPortRef{"Switch", "T4-E45-L-U51", "1/4/2", 0xfc6a1c0300244e00, 8});
  CHECK(d.cable_sn == "MT2330FT09118");

  // Without GUIDs, with 0x GUIDs, names with ':' and spaces.
  d = parse_ufm_description("Link is up: (Switch:leaf:01:5) - (Computer:node 7 mlx5_0:1)0x2c9:1");
  REQUIRE(d.first);
  CHECK(d.first->node == "leaf:01");
  CHECK(d.first->port == 5);
  CHECK(d.first->guid == 0);
  REQUIRE(d.second);
  CHECK(d.second->node_type == "Computer");
  CHECK(d.second->guid == 0x2c9);

  d = parse_ufm_description(
      "Peer Port T2-E63-L-U37:1/19/2 is considered by SM as unhealthy due "
      "to FLAPPING.");
  REQUIRE(d.first);
  CHECK(d.first->node == "T2-E63-L-U37");
  CHECK(d.first->label == "1/19/2");
  CHECK(d.reason == "FLAPPING");
  CHECK_FALSE(d.second);

  d = parse_ufm_description("Counter rate (threshold: 10) exceeded");
  CHECK_FALSE(d.first);
  d = parse_ufm_description("");
  CHECK_FALSE(d.first);
  CHECK(d.cable_sn.empty());

  CHECK(parse_ufm_port_name("9c0591030090e000_33")->port == 33);
  CHECK(parse_ufm_port_name("0x2c9_4")->guid == 0x2c9);
  CHECK_FALSE(parse_ufm_port_name("default"));
  CHECK_FALSE(parse_ufm_port_name("Grid"));
  CHECK_FALSE(parse_ufm_port_name("9c0591030090e000_x"));
  auto path = parse_ufm_object_path("default(5) / Switch: sw-ufm-ndr03 / 1/26/2");
  REQUIRE(path);
  CHECK(path->node_type == "Switch");
  CHECK(path->node == "sw-ufm-ndr03");
  CHECK(path->label == "1/26/2");
  CHECK(parse_ufm_object_path("default / Switch: sw1 / 17")->port == 17);
  CHECK_FALSE(parse_ufm_object_path("Grid"));
  CHECK(ufm_port_name(0x2c9, 4) == "00000000000002c9_4");
}

TEST_CASE("ufm events: kinds severities and threshold counters", "[ufm]") {
  CHECK(ufm_event_kind(329) == "link_down");
  CHECK(ufm_event_kind(702, "due to MANUAL.") == "ufm_event");
  CHECK(ufm_event_kind(702, "due to NOISY.") == "port_unhealthy");
  CHECK(ufm_event_kind(121) == "counter_threshold");
  CHECK(ufm_event_kind(122) == "ufm_event");
  CHECK(ufm_event_kind(1501) == "cable");
  CHECK(ufm_threshold_counter(110) == Counter::SymbolErrorCounter);
  CHECK(ufm_threshold_counter(113) == Counter::PortRcvErrors);
  CHECK(ufm_threshold_counter(116) == Counter::PortXmitDiscards);
  CHECK(ufm_threshold_counter(120) == Counter::ExcessiveBufferOverrunErrors);
  CHECK(ufm_threshold_counter(121) == Counter::VL15Dropped);
  CHECK_FALSE(ufm_threshold_counter(130));
  CHECK(ufm_severity("Info") == Severity::info);
  CHECK(ufm_severity("minor") == Severity::warning);
  CHECK(ufm_severity("Major") == Severity::error);
  CHECK(ufm_severity("CRITICAL") == Severity::critical);
  CHECK(ufm_severity("Notice") == Severity::info);
}
