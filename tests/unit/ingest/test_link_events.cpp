// ingest/link_events.h: the events a change of a port's peer makes.
#include <catch2/catch.hpp>

#include "ingest/link_events.h"

using namespace ibw::ingest;

namespace {
const LinkEnd kLeaf{0x100, 17, 3, "leaf003", "C-0017"};
const LinkPeer kSpine{0x200, 5, "spine001"};
const LinkPeer kOther{0x300, 2, "spine002"};
}  // namespace

TEST_CASE("link events: an unchanged peer makes no event", "[link_events]") {
  std::vector<Event> events;
  append_link_changes(kLeaf, kSpine, kSpine, 1'000, &events);
  append_link_changes(kLeaf, {}, {}, 1'000, &events);
  CHECK(events.empty());
}

TEST_CASE("link events: a moved cable is a link_down then a link_up", "[link_events]") {
  std::vector<Event> events;
  append_link_changes(kLeaf, kSpine, kOther, 5'000'000, &events);
  REQUIRE(events.size() == 2);
  CHECK(events[0].kind == kind::link_down);
  CHECK(events[0].severity == Severity::warning);
  CHECK(events[0].peer_node == "spine001");
  CHECK(events[0].peer_port == 5);
  CHECK(events[0].message == "link down: leaf003/17 - spine001/5");
  CHECK(events[1].kind == kind::link_up);
  CHECK(events[1].severity == Severity::info);
  CHECK(events[1].peer_guid == 0x300);
  CHECK(events[1].cable_id == "C-0017");
  CHECK(events[1].lid == 3);
  CHECK(events[0].dedup_key != events[1].dedup_key);
  CHECK(events[0].time_us == 5'000'000);
}

TEST_CASE("link events: a new link is only a link_up and a lost one only a link_down",
          "[link_events]") {
  std::vector<Event> up, down;
  append_link_changes(kLeaf, {}, kSpine, 1, &up);
  append_link_changes(kLeaf, kSpine, {}, 1, &down);
  REQUIRE(up.size() == 1);
  CHECK(up[0].kind == kind::link_up);
  REQUIRE(down.size() == 1);
  CHECK(down[0].kind == kind::link_down);
  CHECK(down[0].source == EventSource::opensm);
  // The same port, kind and time make the same key: a replayed change is stored once.
  CHECK(link_event(kind::link_down, kLeaf, kSpine, 1).dedup_key == down[0].dedup_key);
}
