// Unit tests for UFM alarms, ports, links, jobs and unhealthy ports (ingest/ufm/resources.h) on
// the recorded samples in tests/data/ufm, and for completing event ports with UfmPortIndex.
#include <catch2/catch.hpp>

#include <tuple>

#include <fstream>
#include <sstream>
#include <string>

#include "ingest/ufm/event_poller.h"
#include "ingest/ufm/resources.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::ingest;

TEST_CASE("ufm resources: alarms", "[ufm]") {
  auto a = parse_ufm_alarms(ibw::test::ufm_recording("alarms.json"), {});
  REQUIRE(a.ok);
  REQUIRE(a.items.size() == 2);
  CHECK(a.skipped == 1);
  CHECK(a.items[0].id == 41);
  CHECK(a.items[0].name == "Module status FAULT");
  CHECK(a.items[0].event_type == 394);
  CHECK(a.items[0].event_count == 3);
  CHECK(a.items[0].duration_s == 120);
  CHECK(a.items[0].object.guid == 0x9c0591030090e000);
  CHECK(a.items[0].object.node == "sw-leaf-07");
  CHECK(a.items[0].time_us == 1709289600000000);
  // "summary" instead of "name", event_type as a string, object_name instead of related_*.
  CHECK(a.items[1].name == "Symbol Error Counter Rate");
  CHECK(a.items[1].event_type == 110);
  CHECK(a.items[1].object.guid == 0xfc6a1c0300244e00);
  CHECK(a.items[1].object.port == 8);
}

TEST_CASE("ufm resources: ports with state speeds widths peer and high BER", "[ufm]") {
  auto p = parse_ufm_ports(ibw::test::ufm_recording("ports.json"));
  REQUIRE(p.ok);
  REQUIRE(p.items.size() == 4);
  CHECK(p.skipped == 1);
  const UfmPort& up = p.items[0];
  CHECK(up.name == "9c0591030090e000_33");
  CHECK(up.node_guid == 0x9c0591030090e000);
  CHECK(up.system_guid == 0x9c0591030090e000);
  CHECK(up.number == 33);
  CHECK(up.dname == "1/17/1");
  CHECK(up.system_name == "sw-leaf-07");
  CHECK(up.logical_state == "Active");
  CHECK(ufm_logical_state(up.logical_state) == 4);
  CHECK(ufm_physical_state(up.physical_state) == 5);
  CHECK(up.active_speed == "NDR");
  CHECK(ufm_width_lanes(up.active_width) == 4);
  CHECK(up.enabled_speed == std::vector<std::string>{"HDR", "NDR"});
  CHECK(up.enabled_width.size() == 3);
  CHECK(up.high_ber_severity == "warning");
  CHECK(up.peer == "fc6a1c0300244e00_8");
  CHECK(up.peer_guid == 0xfc6a1c0300244e00);  // from the peer port name
  CHECK(up.peer_number == 8);
  CHECK(up.capabilities.size() == 4);

  const UfmPort& down = p.items[1];
  CHECK(down.active_speed.empty());
  CHECK(down.active_width.empty());
  CHECK(down.peer.empty());
  CHECK(down.high_ber_severity.empty());
  CHECK(ufm_physical_state(down.physical_state) == 2);
  CHECK(ufm_logical_state(down.logical_state) == 1);

  CHECK(p.items[2].lid == 3);                            // a string
  CHECK(ufm_width_lanes(p.items[2].active_width) == 4);  // "IB_4x"
  CHECK(p.items[2].peer_guid == 0x9c0591030090e000);     // remote_guid
  CHECK(p.items[3].guid == 0x0c42a10300001235);          // port GUID of an HCA
  CHECK(p.items[3].node_guid == 0x0c42a10300001234);
  CHECK(p.items[3].high_ber_severity == "error");
}

TEST_CASE("ufm resources: links plain paged and old", "[ufm]") {
  auto l = parse_ufm_links(ibw::test::ufm_recording("links.json"));
  REQUIRE(l.ok);
  REQUIRE(l.items.size() == 2);
  CHECK(l.skipped == 1);
  CHECK(l.items[0].source.guid == 0x9c0591030090e000);
  CHECK(l.items[0].source.port == 33);
  CHECK(l.items[0].source.dname == "1/17/1");
  CHECK(l.items[0].destination.port_name == "fc6a1c0300244e00_8");
  CHECK(l.items[0].width_lanes == 4);
  CHECK(l.items[1].source.port_name.empty());  // 6.11 records lack it
  CHECK(l.items[1].width_lanes == 4);          // "IB_4x"
  auto paged = parse_ufm_links(ibw::test::ufm_recording("links-paged.json"));
  REQUIRE(paged.ok);
  CHECK(paged.items.size() == 1);
  CHECK_FALSE(parse_ufm_links("{\"links\": []}").ok);
}

TEST_CASE("ufm resources: jobs and unhealthy ports", "[ufm]") {
  auto running = parse_ufm_job(ibw::test::ufm_recording("job-running.json"));
  REQUIRE(running);
  CHECK(running->id == "77");
  CHECK(running->status == "Running");
  CHECK(running->progress == 40);
  auto done = parse_ufm_job(ibw::test::ufm_recording("job-completed.json"));
  REQUIRE(done);
  CHECK(done->status == "Completed");
  CHECK(done->summary == "port 9c0591030090e000_33 disabled");
  CHECK_FALSE(parse_ufm_job(ibw::test::ufm_recording("job-unknown.json")));
  CHECK_FALSE(parse_ufm_job("not json"));

  auto old = parse_ufm_unhealthy_ports(ibw::test::ufm_recording("unhealthy-ports-6.20.json"));
  REQUIRE(old.ok);
  REQUIRE(old.items.size() == 1);
  CHECK(old.items[0].guid == 0x9c0591030090e000);
  CHECK(old.items[0].number == 33);
  CHECK(old.items[0].peer_guid == 0xfc6a1c0300244e00);
  CHECK(old.items[0].conditions == std::vector<std::string>{"MANUAL"});
  auto now = parse_ufm_unhealthy_ports(ibw::test::ufm_recording("unhealthy-ports-6.22.json"));
  REQUIRE(now.ok);
  CHECK(now.items[0].conditions == std::vector<std::string>{"MANUAL", "FLAPPING"});
  CHECK(now.items[0].node == "node0042 mlx5_0");
}

TEST_CASE("ufm resources: the port index completes ports named by label", "[ufm]") {
  auto ports = parse_ufm_ports(ibw::test::ufm_recording("ports.json"));
  REQUIRE(ports.ok);
  UfmPortIndex index(ports.items);
  CHECK(index.size() == ports.items.size());
  CHECK(index.by_guid(0x9c0591030090e000, 52)->number == 52);
  CHECK(index.by_guid(0x9c0591030090e000, 999) == nullptr);
  CHECK(index.by_guid(0xfc6a1c0300244e00, 8)->system_name == "sw-spine-02");
  CHECK(index.by_label("sw-leaf-07", "1/17/1")->number == 33);
  CHECK(index.by_label("sw-leaf-07", "33")->number == 33);
  CHECK(index.by_label("nowhere", "1") == nullptr);

  UfmPortRef ref{"", "sw-spine-02", "1/4/2", 0, 0};
  REQUIRE(index.resolve(ref));
  CHECK(ref.guid == 0xfc6a1c0300244e00);
  CHECK(ref.port == 8);

  // A 702 whose peer is named by label only gets its GUID and number.
  auto events = parse_ufm_events(ibw::test::ufm_recording("events-6.17.json"), {});
  REQUIRE(events.ok);
  Event plain = to_event(events.items[2]);
  Event resolved = to_event(events.items[2], index);
  CHECK(plain.peer_port == 0);
  CHECK(resolved.peer_guid == 0xfc6a1c0300244e00);
  CHECK(resolved.peer_port == 8);
  CHECK(resolved.port == 33);
}

TEST_CASE("ufm resources: a port index built port by port answers as one built at once", "[ufm]") {
  auto ports = parse_ufm_ports(ibw::test::ufm_recording("ports.json"));
  REQUIRE(ports.ok);
  UfmPortIndex whole(ports.items);
  UfmPortIndex built;
  for (const UfmPort& p : ports.items) built.add(p);
  built.seal();
  CHECK(built.size() == whole.size());
  for (const UfmPort& p : ports.items) {
    INFO(p.name);
    for (uint64_t guid : {p.node_guid, p.system_guid}) {
      const UfmPortKey* a = whole.by_guid(guid, p.number);
      const UfmPortKey* b = built.by_guid(guid, p.number);
      REQUIRE((a == nullptr) == (b == nullptr));
      if (a) CHECK(std::tie(a->node_guid, a->dname) == std::tie(b->node_guid, b->dname));
    }
    const UfmPortKey* a = whole.by_label(p.system_name, p.dname);
    const UfmPortKey* b = built.by_label(p.system_name, p.dname);
    REQUIRE((a == nullptr) == (b == nullptr));
    if (a) CHECK(a->number == b->number);
  }
}
