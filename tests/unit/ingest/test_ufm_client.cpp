// UfmClient (ingest/ufm/client.h) against the UFM emulator (tests/ufm_emulator) run as a
// subprocess: the three authentication variants, retries of 5xx, timeouts, malformed answers,
// 401, the circuit breaker on a manual clock, secrets kept out of errors, and the write calls
// (actions with job polling, isolation, external events) plus the resource and telemetry GETs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "ingest/ufm/client.h"
#include "tests/test_paths.h"
#include "tests/ufm_emulator/emulator_fixture.h"

using namespace ibw::ingest;
using ibw::test::UfmEmulator;

namespace ufm_client_test {

// A client whose waits advance a manual clock instead of sleeping.
struct Rig {
  ManualClock clock;
  UfmClient client;
  Rig(UfmClientOptions o)
      : client(std::move(o), clock, [this](int64_t us) { clock.advance_us(us); }) {}
};

int requests(UfmEmulator& emu) {
  return emu.get("state")["requests"].get<int>();
}

}  // namespace ufm_client_test

using ufm_client_test::Rig;

TEST_CASE("ufm client: each authentication variant reads from the emulator", "[ufm][emulator]") {
  UfmEmulator emu({"--backlog", "20"});
  for (UfmApi api : {UfmApi::v1, UfmApi::v2, UfmApi::v3}) {
    INFO("api " << ufm_api_prefix(api));
    Rig rig(emu.client_options(api));
    auto events = rig.client.events({});
    REQUIRE(events.ok());
    CHECK(events.parsed.items.size() == 20);
    CHECK(rig.client.ports().parsed.items.size() == 16);
    CHECK(rig.client.health().state == HealthState::ok);
    CHECK(rig.client.health().calls == 2);
  }
  CHECK(emu.get("state")["sessions"] == 1);  // v2 logged in once for both calls

  for (UfmApi api : {UfmApi::v1, UfmApi::v2, UfmApi::v3}) {
    INFO("api " << ufm_api_prefix(api));
    UfmClientOptions o = emu.client_options(api);
    o.credentials = {"admin", "wrong-password", "wrong-token"};
    Rig rig(o);
    auto r = rig.client.get("/app/events");
    CHECK_FALSE(r.ok);
    CHECK(r.status == 401);
    CHECK(r.attempts == 1);  // authentication failures are not retried
    CHECK(r.error.find("wrong-") == std::string::npos);
    CHECK(rig.client.health().state == HealthState::degraded);
  }
}

TEST_CASE("ufm client: v3 without a token fetches one with user and password", "[ufm][emulator]") {
  UfmEmulator emu({"--backlog", "3"});
  UfmClientOptions o = emu.client_options(UfmApi::v3);
  o.credentials.token.clear();  // the issue's config: api v3, token_file null
  Rig rig(o);
  auto events = rig.client.events({});
  REQUIRE(events.ok());
  CHECK(events.parsed.items.size() == 3);
  CHECK(emu.get("state")["tokens"] == 1);  // the user's unrevoked token was reused
  // Revoked (by an admin): the next call gets 401, and a new token is created.
  Rig admin(emu.client_options(UfmApi::v1));
  REQUIRE(admin.client.post("/app/tokens/revoke", "token=" + std::string(ibw::test::kUfmToken)).ok);
  CHECK(rig.client.get("/app/ufm_version").ok);
  auto state = emu.get("state");
  CHECK(state["tokens"] == 2);
  CHECK(state["revoked"] == 1);
  CHECK(rig.client.get("/app/ufm_version").ok);  // and kept
  CHECK(emu.get("state")["tokens"] == 2);

  UfmClientOptions bad = o;
  bad.credentials.password = "wrong-password";
  Rig wrong(bad);
  auto r = wrong.client.get("/app/events");
  CHECK_FALSE(r.ok);
  CHECK(r.status == 401);
  CHECK(r.attempts == 1);
  CHECK(r.error.find("user or password rejected") != std::string::npos);
  CHECK(r.error.find("wrong-password") == std::string::npos);
}

TEST_CASE("ufm client: 5xx is retried with backoff and reported when it persists",
          "[ufm][emulator]") {
  UfmEmulator emu;
  Rig rig(emu.client_options(UfmApi::v3));
  emu.fail("5xx", 2);
  auto ok = rig.client.get("/app/ufm_version");
  CHECK(ok.ok);
  CHECK(ok.attempts == 3);
  CHECK(rig.client.health().retries == 2);
  CHECK(rig.clock.now_us() == ManualClock().now_us() + 1000 + 2000);  // backoff 1 ms, 2 ms
  CHECK(rig.client.health().state == HealthState::ok);

  emu.fail("5xx", 3);
  auto bad = rig.client.get("/app/ufm_version");
  CHECK_FALSE(bad.ok);
  CHECK(bad.status == 503);
  CHECK(bad.attempts == 3);
  CHECK(bad.error.find("GET " + emu.base() + "/ufmRestV3/app/ufm_version: HTTP 503") == 0);
  ServiceHealth h = rig.client.health();
  CHECK(h.state == HealthState::degraded);
  CHECK(h.consecutive_failures == 1);
  CHECK(h.last_error == bad.error);
  // POST is not retried on 5xx: the action may have run.
  emu.fail("5xx", 1);
  auto post = rig.client.post("/app/events/external_event", R"({"event_id": 551})");
  CHECK(post.status == 503);
  CHECK(post.attempts == 1);
}

TEST_CASE("ufm client: a timeout is reported and the next call works", "[ufm][emulator]") {
  UfmEmulator emu;
  UfmClientOptions o = emu.client_options(UfmApi::v1);
  o.timeout_ms = 300;
  o.max_attempts = 2;
  Rig rig(o);
  emu.fail("timeout", 2, {{"delay", 1.0}});
  auto r = rig.client.get("/app/events");
  CHECK_FALSE(r.ok);
  CHECK(r.status == 0);
  CHECK(r.attempts == 2);
  CHECK(r.error.find("timed out after 300 ms") != std::string::npos);
  CHECK(rig.client.health().state == HealthState::degraded);
  emu.fail("slow", 1, {{"delay", 0.02}});
  CHECK(rig.client.get("/app/events").ok);  // slow but within the timeout
  CHECK(rig.client.health().state == HealthState::ok);
}

TEST_CASE("ufm client: malformed JSON is retried and then reported", "[ufm][emulator]") {
  UfmEmulator emu({"--backlog", "30"});
  Rig rig(emu.client_options(UfmApi::v3));
  emu.fail("malformed", 1);
  auto once = rig.client.events({});
  CHECK(once.ok());
  CHECK(once.response.attempts == 2);
  CHECK(once.parsed.items.size() == 30);

  emu.fail("malformed", 3);
  auto bad = rig.client.events({});
  CHECK_FALSE(bad.ok());
  CHECK(bad.response.status == 200);
  CHECK(bad.response.error.find("unusable answer: events: response is not a valid JSON array") !=
        std::string::npos);
  CHECK(rig.client.health().state == HealthState::degraded);
}

TEST_CASE("ufm client: a ports list read as it arrives is retried when malformed",
          "[ufm][emulator]") {
  UfmEmulator emu;
  Rig rig(emu.client_options(UfmApi::v3));
  emu.fail("malformed", 1);  // the first answer cut in half: a fresh parse on the retry
  auto once = rig.client.ports();
  CHECK(once.ok());
  CHECK(once.response.attempts == 2);
  CHECK(once.parsed.items.size() == 16);
  CHECK(once.response.body.empty());  // streamed: never held whole

  emu.fail("malformed", 3);
  auto bad = rig.client.ports();
  CHECK_FALSE(bad.ok());
  CHECK(bad.response.status == 200);
  CHECK(bad.response.attempts == 3);
  CHECK(bad.parsed.items.empty());
  CHECK(bad.response.error.find("unusable answer: ports: response is not valid JSON") !=
        std::string::npos);
  CHECK(rig.client.health().state == HealthState::degraded);
}

TEST_CASE("ufm client: a ports list handed to a sink as it is read", "[ufm][emulator]") {
  struct Sink : UfmPortsSink {
    void begin() override {
      ++attempts;
      names.clear();
    }
    void take(std::vector<UfmPort>& ports) override {
      for (const UfmPort& p : ports) names.push_back(p.name);
    }
    int attempts = 0;
    std::vector<std::string> names;
  };
  UfmEmulator emu;
  Rig rig(emu.client_options(UfmApi::v3));
  auto kept = rig.client.ports();
  REQUIRE(kept.ok());
  emu.fail("malformed", 1);  // what the first attempt gave is forgotten
  Sink sink;
  auto handed = rig.client.ports(sink);
  CHECK(handed.ok());
  CHECK(handed.parsed.items.empty());
  CHECK(sink.attempts == 2);
  REQUIRE(sink.names.size() == kept.parsed.items.size());
  for (size_t i = 0; i < sink.names.size(); ++i) CHECK(sink.names[i] == kept.parsed.items[i].name);
}

TEST_CASE("ufm client: 401 fails at once except that a v2 session logs in again",
          "[ufm][emulator]") {
  UfmEmulator emu;
  Rig v3(emu.client_options(UfmApi::v3));
  emu.fail("401", 1);
  auto r = v3.client.get("/app/ufm_version");
  CHECK(r.status == 401);
  CHECK(r.attempts == 1);
  CHECK(v3.client.get("/app/ufm_version").ok);

  Rig v2(emu.client_options(UfmApi::v2));
  CHECK(v2.client.get("/app/ufm_version").ok);
  emu.fail("401", 1);  // e.g. the session expired
  CHECK(v2.client.get("/app/ufm_version").ok);
  // A UFM restart drops sessions too.
  emu.post("control", {{"fail", "restart"}});
  CHECK(v2.client.get("/app/ufm_version").ok);
  CHECK(emu.get("state")["sessions"] == 1);
}

TEST_CASE("ufm client: the circuit breaker opens and probes when half-open", "[ufm][emulator]") {
  UfmEmulator emu;
  UfmClientOptions o = emu.client_options(UfmApi::v3);
  o.max_attempts = 2;
  o.breaker = {3, 30'000'000};
  Rig rig(o);
  emu.fail("5xx", 1000);
  for (int i = 0; i < 3; ++i) CHECK_FALSE(rig.client.get("/app/ufm_version").ok);
  ServiceHealth h = rig.client.health();
  CHECK(h.state == HealthState::down);
  CHECK(h.breaker == BreakerState::open);
  CHECK(h.open_until_us == rig.clock.now_us() + 30'000'000);

  // Open: refused without a request.
  int before = ufm_client_test::requests(emu);
  auto refused = rig.client.get("/app/ufm_version");
  CHECK(refused.rejected);
  CHECK(refused.attempts == 0);
  CHECK(refused.error.find("circuit open after 3 failures") != std::string::npos);
  CHECK(ufm_client_test::requests(emu) == before);
  CHECK(rig.client.health().rejected == 1);

  // After the cool-down one probe goes out (one attempt); it fails: open again.
  rig.clock.advance_us(30'000'000);
  auto probe = rig.client.get("/app/ufm_version");
  CHECK(probe.attempts == 1);
  CHECK(ufm_client_test::requests(emu) == before + 1);
  CHECK(rig.client.health().breaker == BreakerState::open);
  CHECK(rig.client.get("/app/ufm_version").rejected);

  // UFM recovers: the next probe closes the breaker.
  emu.post("control", {{"fail", "none"}});
  rig.clock.advance_us(30'000'000);
  CHECK(rig.client.get("/app/ufm_version").ok);
  h = rig.client.health();
  CHECK(h.state == HealthState::ok);
  CHECK(h.breaker == BreakerState::closed);
  CHECK(h.consecutive_failures == 0);
  CHECK(h.last_success_us == rig.clock.now_us());
}

TEST_CASE("ufm client: secrets never appear in errors or health", "[ufm][emulator]") {
  UfmEmulator emu;
  for (UfmApi api : {UfmApi::v1, UfmApi::v2, UfmApi::v3}) {
    Rig rig(emu.client_options(api));
    // The emulator's 404 answer echoes the path, which here holds the secret.
    std::string secret = api == UfmApi::v3 ? ibw::test::kUfmToken : ibw::test::kUfmPassword;
    auto r = rig.client.get("/nope/" + secret);
    CHECK(r.status == 404);
    CHECK(r.error.find(secret) == std::string::npos);
    CHECK(r.error.find("***") != std::string::npos);
    CHECK(rig.client.health().last_error.find(secret) == std::string::npos);
  }
  UfmClientOptions o = emu.client_options(UfmApi::v1);
  o.url = "http://user:pw@127.0.0.1:1";
  o.max_attempts = 1;
  Rig rig(o);
  auto r = rig.client.get("/app/events");
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("user:pw") == std::string::npos);
  UfmClientOptions ftp;
  ftp.url = "ftp://ufm";
  CHECK_THROWS_AS(UfmClient(ftp, rig.clock), std::invalid_argument);
}

TEST_CASE("ufm client: a port action runs as a job until it completes", "[ufm][emulator]") {
  UfmEmulator emu({"--job-polls", "2"});
  Rig rig(emu.client_options(UfmApi::v3));
  UfmAction disable = ufm_port_action("disable", 0xb83fd20300000002, "b83fd20300000002_3",
                                      "ibwarden: symbol errors");
  UfmActionResult r = rig.client.run_action(disable, {5'000'000, 100'000});
  CHECK(r.outcome == UfmJobOutcome::completed);
  CHECK(r.job_id == "1");
  CHECK(r.polls == 3);
  REQUIRE(r.job);
  CHECK(r.job->status == "Completed");
  auto actions = emu.actions();
  REQUIRE(actions.size() == 1);
  CHECK(actions[0]["path"] == "/actions");
  CHECK(actions[0]["body"]["action"] == "disable");
  CHECK(actions[0]["body"]["object_ids"] == nlohmann::json::array({"b83fd20300000002"}));
  CHECK(actions[0]["body"]["params"]["port_id"] == "b83fd20300000002_3");
  CHECK(actions[0]["body"]["identifier"] == "id");
  auto ports = rig.client.ports();
  REQUIRE(ports.ok());
  auto port = std::find_if(ports.parsed.items.begin(), ports.parsed.items.end(),
                           [](const UfmPort& p) { return p.name == "b83fd20300000002_3"; });
  REQUIRE(port != ports.parsed.items.end());
  CHECK(port->physical_state == "Disabled");
  // The job's events: 336 on the port and the link going down.
  auto events = rig.client.events({});
  REQUIRE(events.parsed.items.size() == 2);
  CHECK(to_event(events.parsed.items[1]).kind == "link_down");

  // A job that fails, an unknown port, and one that never ends.
  emu.post("control", {{"job_status", "Completed With Errors"}});
  CHECK(rig.client.run_action(disable, {5'000'000, 100'000}).outcome == UfmJobOutcome::failed);
  auto unknown = rig.client.run_action(ufm_port_action("enable", 1, "0000000000000001_1", ""),
                                       {5'000'000, 100'000});
  CHECK(unknown.outcome == UfmJobOutcome::failed);
  CHECK(unknown.error.find("unknown port") != std::string::npos);
  emu.post("control", {{"job_polls", 1000}});
  auto slow = rig.client.run_action(disable, {1'000'000, 250'000});
  CHECK(slow.outcome == UfmJobOutcome::timed_out);
  CHECK(slow.polls == 5);
  CHECK(ufm_job_outcome("Completed With Warnings") == UfmJobOutcome::completed_with_warnings);
  CHECK(ufm_job_outcome("Aborted") == UfmJobOutcome::failed);
  CHECK_FALSE(ufm_job_outcome("Running"));
}

TEST_CASE("ufm client: isolation through unhealthy ports and external events", "[ufm][emulator]") {
  UfmEmulator emu;
  Rig rig(emu.client_options(UfmApi::v1));
  auto put = rig.client.set_ports_health({"b83fd20300000002_3"}, false);
  CHECK(put.ok);
  auto listed = rig.client.unhealthy_ports();
  REQUIRE(listed.ok());
  REQUIRE(listed.parsed.items.size() == 1);
  CHECK(listed.parsed.items[0].guid == 0xb83fd20300000002);
  CHECK(listed.parsed.items[0].number == 3);
  CHECK(listed.parsed.items[0].conditions == std::vector<std::string>{"MANUAL"});
  // The 702 MANUAL that isolation causes is no fault of the link.
  auto events = rig.client.events({});
  REQUIRE(events.parsed.items.size() == 1);
  CHECK(events.parsed.items[0].type == 702);
  CHECK(to_event(events.parsed.items[0]).kind == "ufm_event");
  CHECK(rig.client.set_ports_health({"b83fd20300000002_3"}, true).ok);
  CHECK(rig.client.unhealthy_ports().parsed.items.empty());
  CHECK(rig.client.set_ports_health({"nope_1"}, false).status == 400);

  auto posted = rig.client.post_external_event(553, "ibwarden isolated leaf002/3: BER",
                                               "b83fd20300000002", "Switch");
  CHECK(posted.ok);
  auto actions = emu.actions();
  REQUIRE(actions.size() == 3);
  CHECK(actions[0]["body"] == nlohmann::json::parse(
                                  R"({"ports": ["b83fd20300000002_3"], "ports_policy": "UNHEALTHY",
                                      "action": "isolate"})"));
  CHECK(actions[1]["body"]["ports_policy"] == "HEALTHY");
  CHECK(actions[2]["body"]["event_id"] == 553);
  auto after = rig.client.events({});
  CHECK(after.parsed.items.back().type == 553);
  CHECK(after.parsed.items.back().description == "ibwarden isolated leaf002/3: BER");
}

TEST_CASE("ufm client: resources and telemetry from the emulator", "[ufm][emulator]") {
  UfmEmulator emu;
  Rig rig(emu.client_options(UfmApi::v3));
  auto links = rig.client.links();
  REQUIRE(links.ok());
  CHECK(links.parsed.items.size() == 8);
  CHECK(rig.client.ports("active=true").parsed.items.size() == 16);
  CHECK(rig.client.get("/resources/ports?system_name=leaf001").status == 400);
  emu.post("events", {{"events", {{{"kind", "link_down"}, {"port", "leaf001/3"}}}}});
  auto alarms = rig.client.alarms({});
  REQUIRE(alarms.ok());
  REQUIRE(alarms.parsed.items.size() == 1);
  CHECK(alarms.parsed.items[0].event_type == 329);

  UfmClientOptions o = emu.client_options(UfmApi::plain);
  Rig tel(o);
  emu.post("telemetry", {{"port", "leaf001/3"}, {"counters", {{"SymbolErrorCounter", 4242}}}});
  emu.post("telemetry", {{"port", "leaf001/3"}, {"phy", {{"Symbol_BER", 2e-11}}}});
  for (std::string path : {"/csv/metrics", "/metrics"}) {
    INFO(path);
    auto t = tel.client.telemetry(path);
    REQUIRE(t.ok());
    CHECK(t.parsed.samples.size() == 16);
    bool found = false;
    for (const auto& s : t.parsed.samples)
      if (s.node_guid == 0xb83fd20300000002 && s.port == 3) {
        found = true;
        CHECK(s.get(Counter::SymbolErrorCounter) == 4242);
      }
    CHECK(found);
  }
  auto sec = tel.client.telemetry("/csv/xcset/low_freq_debug");
  REQUIRE(sec.ok());
  REQUIRE(sec.parsed.phy.size() == 16);
  for (const auto& p : sec.parsed.phy)
    if (p.node_guid == 0xb83fd20300000002 && p.port == 3) CHECK(p.symbol_ber == Approx(2e-11));
}

TEST_CASE("ufm client: the emulator serves a fabric read from ibnetdiscover text",
          "[ufm][emulator]") {
  UfmEmulator emu({"--topology", std::string(IBW_TEST_DATA) + "/unit/ibnetdiscover-ndr.txt"});
  Rig rig(emu.client_options(UfmApi::v3));
  auto links = rig.client.links();
  REQUIRE(links.ok());
  CHECK(links.parsed.items.size() == 5);
  auto ports = rig.client.ports();
  REQUIRE(ports.ok());
  CHECK(ports.parsed.items.size() == 10);
  std::map<std::string, const UfmPort*> by_name;
  for (const auto& p : ports.parsed.items) by_name[p.name] = &p;
  size_t hosts = 0;
  for (const auto& p : ports.parsed.items) {
    CHECK(p.logical_state == "Active");
    CHECK_FALSE(p.peer.empty());
    const UfmPort* peer = by_name.count(p.peer) ? by_name[p.peer] : nullptr;
    REQUIRE(peer != nullptr);
    CHECK(peer->peer == p.name);  // links are symmetric
    if (p.description == "Computer IB Port") ++hosts;
  }
  CHECK(hosts == 3);
  // Names with ';', ':' and '/' survive into event text and back.
  emu.post("events", {{"events", nlohmann::json::array({{{"kind", "link_down"},
                                                         {"port", "MF0;leaf01:MQM9700/U1/17"}}})}});
  auto events = rig.client.events({});
  REQUIRE(events.parsed.items.size() == 1);
  Event e = to_event(events.parsed.items[0]);
  CHECK(e.node == "MF0;leaf01:MQM9700/U1");
  CHECK(e.node_guid == 0xb83fd2030080e4a0);
  CHECK(e.port == 17);
  CHECK(e.peer_node == "node0043 mlx5_0");
  CHECK(e.peer_port == 1);
}
