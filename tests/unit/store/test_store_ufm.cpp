// Store: UFM's port view (table ufm_ports, migration 3): a version-2 store is migrated and keeps
// its data, rows are upserted and removed in a batch, ports() attaches the view to the port
// with the same GUID and number (both backends), and port_json shows it as the "ufm" object
// only then.
#include <catch2/catch.hpp>

#include <string>

#include "daemon/ufm_setup.h"
#include "store/record_json.h"
#include "store/schema.h"
#include "store/sqlite_store.h"
#include "store/store.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using namespace ibw::store_test;
using store::Store;

namespace store_ufm_test {

ingest::UfmPortState ufm_state(uint64_t guid, int port, const std::string& ber) {
  ingest::UfmPortState u;
  u.node_guid = guid;
  u.port = port;
  u.name = "0000000000000010_" + std::to_string(port);
  u.system_guid = 0xffff'ffff'ffff'fff0ULL;  // full 64 bits both ways
  u.system_name = "leaf001";
  u.dname = "1/" + std::to_string(port) + "/1";
  u.logical_state = "Down";
  u.physical_state = "Polling";
  u.speed = "";
  u.width = "";
  u.high_ber_severity = ber;
  u.severity = "Warning";
  u.peer_guid = 0x8000'0000'0000'0001ULL;
  u.peer_port = 17;
  u.peer_node = "spine001";
  u.peer_from = "links";
  u.since_us = 1'700'000'000'123'456;
  return u;
}

void check_same_ufm(const ingest::UfmPortState& a, const ingest::UfmPortState& b) {
  CHECK(a.same_view(b));
  CHECK(a.since_us == b.since_us);
}

}  // namespace store_ufm_test

using namespace store_ufm_test;

TEST_CASE("store ufm: a version-2 store is migrated to ufm_ports and keeps its data",
          "[store][ufm]") {
  // SQLite only: legacy files (PostgreSQL stores start at the current schema).
  TempDir dir;
  const std::string path = dir.file("v2.db");
  {
    auto s = Store::open(path);
    s->write({.events = {full_event(1)},
              .ports = {full_port(0x10, 1, "a")},
              .cursors = {{"ufm", "ufm1:0:5:-"}}});
  }
  store_test::undo_port_state(path);
  raw_exec(path, "DROP TABLE ufm_ports; " + std::string(store_test::kUndoPackedSamples) +
                     "PRAGMA user_version = 2");
  CHECK_THROWS_WITH(Store::open(path, true), Catch::Contains("older"));
  auto s = Store::open(path);
  CHECK(s->schema_version() == store::schema::latest_version());
  CHECK(store::schema::latest_version() >= 3);
  REQUIRE(s->events({}).size() == 1);
  check_same_event(s->events({})[0].event, full_event(1));
  REQUIRE(s->ports().size() == 1);
  check_same_port(s->ports()[0], full_port(0x10, 1, "a"));
  CHECK_FALSE(s->ports()[0].ufm.has_value());
  CHECK(s->cursor("ufm") == "ufm1:0:5:-");
  CHECK(s->ufm_ports().empty());
  s->write({.ufm_ports = {ufm_state(0x10, 1, "warning")}});
  REQUIRE(s->ufm_ports().size() == 1);
  CHECK(Store::open(path, true)->ports()[0].ufm.has_value());
}

TEST_CASE("store ufm: the view is upserted and removed and joined to its port", "[store][ufm]") {
  STORE_UNDER_TEST(db, s);
  s->write({.ports = {full_port(0x10, 1, "leaf001"), full_port(0x10, 2, "leaf001")},
            .ufm_ports = {ufm_state(0x10, 1, ""), ufm_state(0x10, 9, "error")}});
  auto all = s->ufm_ports();
  REQUIRE(all.size() == 2);
  check_same_ufm(all[0], ufm_state(0x10, 1, ""));
  check_same_ufm(all[1], ufm_state(0x10, 9, "error"));

  auto ports = s->ports();
  REQUIRE(ports.size() == 2);  // a UFM-only port (9) adds no port row
  REQUIRE(ports[0].ufm.has_value());
  check_same_ufm(*ports[0].ufm, ufm_state(0x10, 1, ""));
  check_same_port(ports[0], full_port(0x10, 1, "leaf001"));  // the port's own fields intact
  CHECK_FALSE(ports[1].ufm.has_value());
  REQUIRE(s->ports("leaf001").front().ufm.has_value());  // the filtered query joins too

  // Changed, then removed; writing the port row again leaves the view alone.
  s->write({.ports = {full_port(0x10, 1, "leaf001")},
            .ufm_ports = {ufm_state(0x10, 1, "warning")},
            .ufm_ports_removed = {{0x10, 9}}});
  all = s->ufm_ports();
  REQUIRE(all.size() == 1);
  CHECK(all[0].high_ber_severity == "warning");
  CHECK(s->ports()[0].ufm->high_ber_severity == "warning");
}

TEST_CASE("store ufm: port_json has the ufm object only when UFM reported the port",
          "[store][ufm]") {
  store::PortRecord p = full_port(0x10, 1, "leaf001");  // state 4 Active
  auto plain = store::port_json(p);
  CHECK_FALSE(plain.contains("ufm"));
  p.ufm = ufm_state(0x10, 1, "");
  auto j = store::port_json(p);
  REQUIRE(j.contains("ufm"));
  const auto& u = j["ufm"];
  CHECK(u["name"] == "0000000000000010_1");
  CHECK(u["state"] == "Down");
  CHECK(u["phys_state"] == "Polling");
  CHECK(u["speed"] == "");
  CHECK(u["high_ber_severity"] == "N/A");
  CHECK(u["peer_node"] == "spine001");
  CHECK(u["peer_guid"] == "0x8000000000000001");
  CHECK(u["peer_port"] == 17);
  CHECK(u["peer_from"] == "links");
  CHECK(u["state_differs"] == true);  // MAD says Active, UFM says Down
  CHECK(u["since"] == "2023-11-14T22:13:20.123456Z");
  p.ufm->logical_state = "Active";
  p.ufm->high_ber_severity = "warning";
  j = store::port_json(p);
  CHECK(j["ufm"]["state_differs"] == false);
  CHECK(j["ufm"]["high_ber_severity"] == "warning");
  p.state = 0;  // our state unknown: no difference claimed
  p.ufm->logical_state = "Down";
  CHECK(store::port_json(p)["ufm"]["state_differs"] == false);
}

TEST_CASE("store ufm: a daemon without a ufm section drops the stale view", "[store][ufm]") {
  STORE_UNDER_TEST(db, s);
  s->write({.ports = {full_port(0x10, 1, "leaf001")},
            .ufm_ports = {ufm_state(0x10, 1, "error"), ufm_state(0x10, 9, "")}});
  REQUIRE(s->ports()[0].ufm.has_value());
  CHECK(daemon::drop_ufm_port_view(*s) == 2);
  CHECK(s->ufm_ports().empty());
  REQUIRE(s->ports().size() == 1);  // the port itself stays
  CHECK_FALSE(s->ports()[0].ufm.has_value());
  CHECK_FALSE(store::port_json(s->ports()[0]).contains("ufm"));
  CHECK(daemon::drop_ufm_port_view(*s) == 0);
}
