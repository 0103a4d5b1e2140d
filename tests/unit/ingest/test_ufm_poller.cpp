// UfmEventPoller (ingest/ufm/event_poller.h) against the UFM emulator: both schemas give the same
// events, a UFM restart resets ids, restart storms are grouped, duplicated lists give no
// duplicates, failures are survived, a 50,000-event backlog is ingested once, and a cursor
// resumes where the previous run stopped.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "ingest/ufm/event_poller.h"
#include "tests/ufm_emulator/emulator_fixture.h"

using namespace ibw::ingest;
using ibw::test::UfmEmulator;
using nlohmann::json;

namespace ufm_poller_test {

struct Rig {
  ManualClock clock;
  UfmClient client;
  explicit Rig(UfmClientOptions o)
      : client(std::move(o), clock, [this](int64_t us) { clock.advance_us(us); }) {}
};

// Appends events through the emulator's control API: one per (kind, port), at now +
// shift_s (UFM timestamps have whole seconds: a shift keeps an event out of another's second).
json add(UfmEmulator& emu, const std::vector<std::pair<std::string, std::string>>& items,
         double shift_s = 0) {
  double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  json list = json::array();
  for (const auto& [kind, port] : items)
    list.push_back({{"kind", kind}, {"port", port}, {"at", now + shift_s}});
  return emu.post("events", {{"events", list}});
}

std::vector<std::string> kinds(const std::vector<Event>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.kind);
  return out;
}

}  // namespace ufm_poller_test

using ufm_poller_test::add;
using ufm_poller_test::kinds;
using ufm_poller_test::Rig;

TEST_CASE("ufm poller: both schema generations give the same internal events", "[ufm][emulator]") {
  UfmEmulator emu({"--schema", "6.16", "--tz-offset", "-25200"});
  add(emu, {{"link_down", "leaf001/3"}, {"unhealthy", "leaf002/4"}, {"ber", "spine001/2"}});
  Rig rig(emu.client_options(UfmApi::v1));
  UfmPollerOptions o;
  o.time.utc_offset_s = -25200;
  UfmEventPoller legacy(rig.client, o, std::nullopt);
  UfmPollResult a = legacy.poll();
  REQUIRE(a.ok);
  emu.post("control", {{"schema", "6.17"}});
  UfmEventPoller current(rig.client, o, std::nullopt);
  UfmPollResult b = current.poll();
  REQUIRE(b.ok);
  REQUIRE(a.events.size() == 3);
  REQUIRE(b.events.size() == 3);
  CHECK(a.fresh[0].schema == UfmSchema::legacy);
  CHECK(b.fresh[0].schema == UfmSchema::current);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(a.events[i].kind == b.events[i].kind);
    CHECK(a.events[i].node_guid == b.events[i].node_guid);
    CHECK(a.events[i].port == b.events[i].port);
    CHECK(a.events[i].peer_guid == b.events[i].peer_guid);
    CHECK(a.events[i].peer_port == b.events[i].peer_port);
    CHECK(a.events[i].message == b.events[i].message);
    CHECK(a.events[i].dedup_key == b.events[i].dedup_key);
    CHECK(a.events[i].time_us / 1000000 == b.events[i].time_us / 1000000);
    // The zone is applied: within a few seconds of now.
    int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    CHECK(std::llabs(b.events[i].time_us - now) < 60'000'000);
  }
  CHECK(kinds(a.events) == std::vector<std::string>{"link_down", "port_unhealthy", "high_ber"});
  CHECK(a.events[0].node_guid == 0xb83fd20300000002);  // leaf001
  CHECK(a.events[0].port == 3);
  CHECK(a.events[0].peer_guid == 0xb83fd20300000006);  // spine001
  CHECK(a.events[0].peer_port == 1);
}

TEST_CASE("ufm poller: a UFM restart that resets ids is detected and its storm grouped",
          "[ufm][emulator]") {
  UfmEmulator emu;
  Rig rig(emu.client_options(UfmApi::v3));
  add(emu, {{"link_down", "leaf001/3"}, {"link_up", "leaf001/3"}, {"mcast", ""}}, -10);
  UfmEventPoller poller(rig.client, {}, std::nullopt);
  UfmPollResult first = poller.poll();
  REQUIRE(first.events.size() == 3);
  CHECK(first.cursor.rfind("ufm1:0:3:", 0) == 0);

  // UFM restarts: ids start again at 1, and 80 link-up events land within one second.
  emu.post("control", {{"fail", "restart"}, {"storm", 80}});
  UfmPollResult r = poller.poll();
  REQUIRE(r.ok);
  CHECK(r.reset);
  CHECK(r.fresh.size() == 80);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].kind == "ufm_storm");
  REQUIRE(r.storms.size() == 1);
  CHECK(r.storms[0].count == 80);
  CHECK(r.storms[0].by_type == std::vector<std::pair<int, size_t>>{{328, 80}});
  CHECK(r.cursor.rfind("ufm1:1:80:", 0) == 0);

  // After the storm (two seconds later), single events come through one by one.
  add(emu, {{"link_down", "leaf002/4"}}, 2);
  UfmPollResult after = poller.poll();
  CHECK_FALSE(after.reset);
  CHECK(kinds(after.events) == std::vector<std::string>{"link_down"});
  CHECK(poller.poll().events.empty());
}

TEST_CASE("ufm poller: duplicated lists and failures give no duplicates and no losses",
          "[ufm][emulator]") {
  UfmEmulator emu;
  UfmClientOptions o = emu.client_options(UfmApi::v2);
  o.max_attempts = 1;
  o.timeout_ms = 500;
  Rig rig(o);
  UfmEventPoller poller(rig.client, {}, std::nullopt);
  add(emu, {{"link_down", "leaf001/3"}, {"link_up", "leaf001/3"}});
  emu.fail("duplicates", 2);
  UfmPollResult a = poller.poll();
  CHECK(a.events.size() == 2);
  CHECK(a.duplicates == 2);
  add(emu, {{"ber_warning", "leaf001/4"}});
  UfmPollResult b = poller.poll();
  CHECK(kinds(b.events) == std::vector<std::string>{"high_ber"});

  // Each failure mode: the poll fails, health says so, nothing is lost afterwards.
  std::set<std::string> keys;
  for (const char* mode : {"5xx", "malformed", "timeout"}) {
    INFO(mode);
    add(emu, {{"link_down", "leaf002/3"}});
    emu.fail(mode, 1, {{"delay", 1.0}});
    UfmPollResult bad = poller.poll();
    CHECK_FALSE(bad.ok);
    CHECK_FALSE(bad.error.empty());
    CHECK(bad.events.empty());
    CHECK(rig.client.health().state == HealthState::degraded);
    UfmPollResult good = poller.poll();
    REQUIRE(good.ok);
    CHECK(rig.client.health().state == HealthState::ok);
    REQUIRE(good.events.size() == 1);
    CHECK(keys.insert(good.events[0].dedup_key).second);
  }
  // A 401 (an expired session) is survived within the poll: v2 logs in again.
  add(emu, {{"link_up", "leaf002/3"}});
  emu.fail("401", 1);
  UfmPollResult relogged = poller.poll();
  CHECK(relogged.ok);
  CHECK(kinds(relogged.events) == std::vector<std::string>{"link_up"});
  CHECK(poller.poll().events.empty());
}

TEST_CASE("ufm poller: a 50000-event backlog is ingested once", "[ufm][emulator]") {
  UfmEmulator emu;
  emu.post("backlog?n=50000&spacing_ms=150");
  UfmClientOptions o = emu.client_options(UfmApi::v3);
  o.timeout_ms = 20000;  // the emulator renders 50,000 events in Python
  Rig rig(o);
  UfmEventPoller poller(rig.client, {}, std::nullopt);
  UfmPollResult r = poller.poll();
  REQUIRE(r.ok);
  CHECK(r.fetched == 50000);
  CHECK(r.fresh.size() == 50000);
  CHECK(r.held == 0);
  CHECK(r.storms.empty());
  REQUIRE(r.events.size() == 50000);
  std::set<std::string> keys;
  for (const auto& e : r.events) keys.insert(e.dedup_key);
  CHECK(keys.size() == 50000);
  CHECK(r.cursor.rfind("ufm1:0:50000:", 0) == 0);

  // The rates: the whole poll (the emulator rendering 50,000 events in Python dominates it),
  // and ibwarden's own share: parsing, then de-duplication, storm grouping and mapping.
  double own_s = (r.parse_us + r.ingest_us) / 1e6;
  std::printf(
      "ufm backlog: 50000 events: poll %.3f s (%.0f events/s); parse %.3f s + ingest "
      "%.3f s = %.0f events/s\n",
      r.elapsed_us / 1e6, 50000 / (r.elapsed_us / 1e6), r.parse_us / 1e6, r.ingest_us / 1e6,
      50000 / own_s);

  UfmPollResult again = poller.poll();
  CHECK(again.fetched == 50000);
  CHECK(again.events.empty());
  CHECK(again.duplicates == 0);
}

TEST_CASE("ufm poller: a restarted daemon resumes from its cursor", "[ufm][emulator]") {
  UfmEmulator emu;
  Rig rig(emu.client_options(UfmApi::v3));
  add(emu, {{"link_down", "leaf001/3"}, {"link_up", "leaf001/3"}});
  std::string cursor;
  {
    UfmEventPoller poller(rig.client, {}, std::nullopt);
    UfmPollResult r = poller.poll();
    REQUIRE(r.events.size() == 2);
    cursor = r.cursor;  // what the daemon stores with the events
  }
  add(emu, {{"link_down", "leaf002/3"}, {"unhealthy", "leaf002/3"}});
  {
    UfmEventPoller poller(rig.client, {}, cursor);
    UfmPollResult r = poller.poll();
    CHECK(kinds(r.events) == std::vector<std::string>{"link_down", "port_unhealthy"});
    CHECK_FALSE(r.reset);
    cursor = r.cursor;
  }
  // UFM restarted while we were down, and has since written more events than we had seen.
  emu.post("control", {{"fail", "restart"}});
  add(emu, {{"mcast", ""}, {"mcast", ""}, {"mcast", ""}, {"mcast", ""}, {"link_down", "leaf001/4"}},
      10);
  {
    UfmEventPoller poller(rig.client, {}, cursor);
    UfmPollResult r = poller.poll();
    CHECK(r.reset);
    CHECK(r.events.size() == 5);
    CHECK(r.cursor.rfind("ufm1:1:5:", 0) == 0);
  }
  // skip_backlog: a first start that ignores what UFM already holds.
  UfmPollerOptions skip;
  skip.skip_backlog = true;
  UfmEventPoller fresh(rig.client, skip, std::nullopt);
  UfmPollResult r = fresh.poll();
  CHECK(r.ok);
  CHECK(r.fetched == 5);
  CHECK(r.events.empty());
  add(emu, {{"link_up", "leaf001/4"}});
  CHECK(kinds(fresh.poll().events) == std::vector<std::string>{"link_up"});
  // A cursor that does not parse is no cursor.
  UfmEventPoller garbage(rig.client, {}, std::string("opensm:1:2:3:4"));
  CHECK(garbage.poll().events.size() == 6);
}
