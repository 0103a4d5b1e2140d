// The daemon's UFM wiring: one flap reported by OpenSM and by UFM counts once for the rules,
// credentials come from the named variable or file (and errors never show them), the health
// board reports transitions, and UfmExecutor (actions.via: ufm) against the UFM emulator:
// isolation and its undo, a failed job with its critical audit event.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <thread>

#include "actions/ufm_executor.h"
#include "daemon/source_health.h"
#include "daemon/sources/ufm.h"
#include "daemon/ufm_setup.h"
#include "rules/rules.h"
#include "rules/runner.h"
#include "tests/ufm_emulator/emulator_fixture.h"
#include "tests/unit/test_fabrics.h"

namespace ufm_wiring_test {

using namespace ibw;

ingest::Event link_event(ingest::EventSource source, uint64_t guid, int port, int64_t t,
                         bool down = true) {
  ingest::Event e;
  e.source = source;
  e.kind = std::string(down ? ingest::kind::link_down : ingest::kind::link_up);
  e.node_guid = guid;
  e.port = port;
  e.time_us = t;
  return e;
}

TEST_CASE("ufm wiring: a flap reported by OpenSM and by UFM counts once", "[ufm][rules]") {
  auto rules = rules::parse_rules(
      "rules:\n  - name: flap\n    type: link_flap\n    action: disable\n    severity: error\n"
      "    confirm: none\n    cycles: 2\n    window: 1m\n",
      "rules.yaml");
  rules::RuleRunner runner(std::move(rules));
  const int64_t t0 = 1'700'000'000'000'000;
  auto topo = daemon::make_topology(test_fabric::two_tier(2, 2, 2), nullptr, t0);
  const uint64_t leaf = test_fabric::leaf_guid(0);
  const int uplink = 3;  // leaf000/3 -> spine000/1
  using ingest::EventSource;
  // One drop: OpenSM's re-discovery and UFM's 329 both report leaf000/3, 2 s apart.
  runner.add_events({link_event(EventSource::opensm, leaf, uplink, t0)});
  runner.add_events({link_event(EventSource::ufm, leaf, uplink, t0 + 2'000'000),
                     link_event(EventSource::ufm, leaf, uplink, t0 + 3'000'000, false)});
  CHECK(runner.evaluate(topo->links, t0 + 5'000'000).empty());  // one flap, not two
  // A second drop 20 s later, seen by UFM only: now two.
  runner.add_events({link_event(EventSource::ufm, leaf, uplink, t0 + 20'000'000)});
  auto v = runner.evaluate(topo->links, t0 + 21'000'000);
  REQUIRE_FALSE(v.empty());
  CHECK(v[0].evidence.flaps == 2);

  // Two reports of one source are never merged (each is its own drop).
  rules::RuleRunner same(rules::parse_rules(
      "rules:\n  - name: flap\n    type: link_flap\n    action: disable\n    severity: error\n"
      "    confirm: none\n    cycles: 2\n    window: 1m\n",
      "rules.yaml"));
  same.add_events({link_event(EventSource::ufm, leaf, uplink, t0),
                   link_event(EventSource::ufm, leaf, uplink, t0 + 2'000'000)});
  CHECK_FALSE(same.evaluate(topo->links, t0 + 3'000'000).empty());
}

TEST_CASE("ufm wiring: UFM events slightly ahead count now and far ahead stay out of the rules",
          "[ufm][rules]") {
  rules::RuleRunner runner(rules::parse_rules(
      "rules:\n  - name: flap\n    type: link_flap\n    action: disable\n    severity: error\n"
      "    confirm: none\n    cycles: 2\n    window: 1m\n",
      "rules.yaml"));
  const int64_t t0 = 1'700'000'000'000'000, sec = 1'000'000, minute = 60 * sec;
  auto topo = daemon::make_topology(test_fabric::two_tier(2, 2, 2), nullptr, t0);
  const uint64_t leaf = test_fabric::leaf_guid(0);
  using ingest::EventSource;
  // UFM's clock 25 s ahead: two drops of leaf000/3 in the last seconds, stamped "ahead".
  std::vector<ingest::Event> events = {
      link_event(EventSource::ufm, leaf, 3, t0 + 15 * sec),
      link_event(EventSource::ufm, leaf, 3, t0 + 20 * sec, false),
      link_event(EventSource::ufm, leaf, 3, t0 + 25 * sec),
      link_event(EventSource::ufm, leaf, 4, t0 - 10 * sec),      // already past: kept as is
      link_event(EventSource::ufm, leaf, 5, t0 + 60 * minute)};  // a zone off: left out
  auto for_rules = daemon::ufm_rule_events(&runner, events, t0);
  REQUIRE(for_rules.size() == 4);
  CHECK(for_rules[0].time_us == t0);
  CHECK(for_rules[2].time_us == t0);
  CHECK(for_rules[3].time_us == t0 - 10 * sec);
  CHECK(events[0].time_us == t0 + 15 * sec);  // what is stored keeps UFM's own time
  runner.add_events(for_rules);
  auto v = runner.evaluate(topo->links, t0 + sec);
  REQUIRE_FALSE(v.empty());  // leaf000/3 (and its peer, which sees the far-end drops)
  CHECK(v[0].evidence.flaps == 2);
  // Fed with UFM's times the rule would wait until this host's clock caught up.
  rules::RuleRunner raw(runner.rules());
  raw.add_events(events);
  CHECK(raw.evaluate(topo->links, t0 + sec).empty());

  // UFM an hour ahead (ufm.timezone one zone off): five drops spread over 50 minutes must not
  // be bunched at "now" into five flaps in a minute.
  rules::RuleRunner five(rules::parse_rules(
      "rules:\n  - name: flap\n    type: link_flap\n    action: disable\n    severity: error\n"
      "    confirm: none\n    cycles: 5\n    window: 1m\n",
      "rules.yaml"));
  std::vector<ingest::Event> spread;
  for (int i = 0; i < 5; ++i)
    spread.push_back(link_event(EventSource::ufm, leaf, 6, t0 + 10 * minute + i * 10 * minute));
  CHECK(daemon::ufm_rule_events(&five, spread, t0).empty());
  CHECK(daemon::ufm_rule_events(nullptr, events, t0).empty());
}

TEST_CASE("ufm wiring: a UFM clock or zone far off is reported", "[ufm]") {
  const int64_t now = 1'700'000'000'000'000, minute = 60'000'000;
  auto at = [](std::vector<int64_t> times) {
    std::vector<ingest::UfmEvent> out;
    for (int64_t t : times) out.emplace_back().time_us = t;
    return out;
  };
  auto ahead = daemon::ufm_clock_warning(at({now - minute, now + 60 * minute}), now, false);
  REQUIRE(ahead);
  CHECK(ahead->find("60 min ahead") != std::string::npos);
  CHECK(ahead->find("ufm.timezone") != std::string::npos);
  CHECK(daemon::ufm_clock_warning(at({now + 60 * minute}), now, /*backlog=*/true));
  auto behind = daemon::ufm_clock_warning(at({now - 150 * minute, now - 121 * minute}), now, false);
  REQUIRE(behind);
  CHECK(behind->find("2 h 1 min behind") != std::string::npos);
  // A first poll's backlog may be old; small offsets and no events say nothing.
  CHECK_FALSE(daemon::ufm_clock_warning(at({now - 150 * minute}), now, /*backlog=*/true));
  CHECK_FALSE(daemon::ufm_clock_warning(at({now - 10 * minute, now + 20'000'000}), now, false));
  auto slightly = daemon::ufm_clock_warning(at({now + 45'000'000}), now, false);
  REQUIRE(slightly);
  CHECK(slightly->find("45 s ahead") != std::string::npos);
  CHECK_FALSE(daemon::ufm_clock_warning({}, now, false));
  CHECK_FALSE(daemon::ufm_clock_warning(at({0}), now, false));  // unreadable timestamps
}

TEST_CASE("ufm wiring: credentials come from the named variable or file", "[ufm][config]") {
  config::UfmSection u;
  u.url = "https://ufm";
  u.api = "v1";
  u.user_env = "IBW_UT_UFM_USER";
  u.password_env = "IBW_UT_UFM_PASSWORD";
  unsetenv("IBW_UT_UFM_USER");
  setenv("IBW_UT_UFM_PASSWORD", "pw-not-in-errors", 1);
  try {
    daemon::ufm_credentials(u);
    FAIL("no error for a missing variable");
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    CHECK(m.find("ufm.user_env") != std::string::npos);
    CHECK(m.find("IBW_UT_UFM_USER") != std::string::npos);
    CHECK(m.find("pw-not-in-errors") == std::string::npos);
  }
  setenv("IBW_UT_UFM_USER", "svc-ibwarden", 1);
  auto c = daemon::ufm_credentials(u);
  CHECK(c.user == "svc-ibwarden");
  CHECK(c.password == "pw-not-in-errors");
  CHECK(c.token.empty());

  std::string token = "/tmp/ibw-ut-ufm-token-" + std::to_string(getpid());
  u.api = "v3";
  u.token_file = token;
  CHECK_THROWS_WITH(daemon::ufm_credentials(u),
                    Catch::Contains("ufm.token_file") && Catch::Contains(token));
  std::ofstream(token) << "\n";
  CHECK_THROWS_WITH(daemon::ufm_credentials(u), Catch::Contains("is empty"));
  std::ofstream(token) << "tok-123 \n";
  CHECK(daemon::ufm_credentials(u).token == "tok-123");
  std::remove(token.c_str());
  u.ca_file = "/nonexistent/ca.pem";
  CHECK_THROWS_WITH(daemon::ufm_credentials(u), Catch::Contains("ufm.ca_file"));
  unsetenv("IBW_UT_UFM_USER");
  unsetenv("IBW_UT_UFM_PASSWORD");
}

TEST_CASE("ufm wiring: the health board reports transitions only", "[ufm]") {
  daemon::SourceHealthBoard board;
  using ingest::HealthState;
  CHECK_FALSE(board.set({"ufm", HealthState::ok, "", 1, 1}));
  CHECK(board.set({"ufm", HealthState::degraded, "HTTP 503", 1, 2}));
  CHECK_FALSE(board.set({"ufm", HealthState::degraded, "HTTP 503", 1, 3}));
  CHECK(board.set({"ufm_telemetry", HealthState::down, "timeout", 0, 3}));
  CHECK(board.set({"ufm", HealthState::ok, "", 4, 4}));
  auto s = board.snapshot();
  REQUIRE(s.size() == 2);
  CHECK(s[0].name == "ufm");
  CHECK(s[0].state == HealthState::ok);
  CHECK(s[0].last_ok_us == 4);
  CHECK(s[1].detail == "timeout");
}

// Executor options for the emulator, with short job polls.
actions::UfmExecutorOptions executor_options(const test::UfmEmulator& emu) {
  actions::UfmExecutorOptions o;
  o.client = emu.client_options(ingest::UfmApi::v3);
  o.job.poll_interval_us = 50'000;
  o.job.timeout_us = 5'000'000;
  return o;
}

TEST_CASE("ufm wiring: UfmExecutor isolates - undoes it - and audits a failed job",
          "[ufm][actions]") {
  test::UfmEmulator emu;
  actions::UfmExecutor exec(executor_options(emu));
  const uint64_t leaf001 = 0xb83fd20300000002;  // the emulator's default fabric
  const std::string name = "b83fd20300000002_3";
  CHECK_THROWS_WITH(exec.disable({}, 3), Catch::Contains("set_context"));

  exec.set_context({leaf001, 3, "leaf001", "symbol_ber", "BER 3e-11 over 12m", true});
  actions::PortChange c = exec.disable({}, 3);
  CHECK(c.isolated);
  CHECK(c.after.phys_state == 5);  // isolation leaves the PHY up
  CHECK(emu.get("state")["unhealthy"] == nlohmann::json::array({name}));
  exec.set_context({leaf001, 3, "leaf001", "manual", "operator: cleaned", false});
  c = exec.enable({}, 3);
  CHECK(c.via.find("HEALTHY") != std::string::npos);
  CHECK(emu.get("state")["unhealthy"].empty());

  emu.post("control", {{"job_status", "Completed With Errors"}, {"count", 1}});
  exec.set_context({leaf001, 3, "leaf001", "link_flap", "5 link down/up cycles in 1m", false});
  CHECK_THROWS_WITH(exec.disable({}, 3), Catch::Contains("Completed With Errors"));
  std::vector<int> ids;
  std::string last;
  for (const auto& a : emu.actions())
    if (a["path"] == "/app/events/external_event") {
      ids.push_back(a["body"]["event_id"]);
      last = a["body"]["description"];
    }
  CHECK(ids == std::vector<int>{553, 552, 554});
  CHECK(last.find("failed to disable leaf001/3") != std::string::npos);
  CHECK(last.find("rule link_flap: 5 link down/up cycles") != std::string::npos);
}

TEST_CASE("ufm wiring: UfmExecutor waits for UFM's port view and enables without the list",
          "[ufm][actions]") {
  test::UfmEmulator emu;
  actions::UfmExecutorOptions o = executor_options(emu);
  o.readback_wait_us = 3'000'000;
  o.readback_poll_us = 50'000;
  actions::UfmExecutor exec(o);
  const uint64_t leaf001 = 0xb83fd20300000002;  // the emulator's default fabric
  exec.set_context({leaf001, 3, "leaf001", "symbol_ber", "BER 3e-11 over 12m", false});
  // UFM's port view trails the completed job by ~0.5 s: the read-back waits for it.
  emu.post("port", {{"port", "leaf001/3"}, {"physical_state", "LinkUp"}});
  std::thread lag([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    emu.post("port", {{"port", "leaf001/3"}, {"physical_state", ""}});
  });
  actions::PortChange c = exec.disable({}, 3);
  lag.join();
  CHECK(c.after.phys_state == fabric::kPhysDisabled);

  // Unhealthy ports unreadable (Monitoring-Only mode): the enable job still runs.
  emu.fail("5xx", 20, {{"path", "/app/unhealthy_ports"}});
  exec.set_context({leaf001, 3, "leaf001", "manual", "operator: cleaned", false});
  c = exec.enable({}, 3);
  CHECK(c.via.find("taken as not isolated") != std::string::npos);
  CHECK(c.via.find("UFM job") != std::string::npos);
  CHECK(c.after.phys_state != fabric::kPhysDisabled);
  emu.post("control", {{"fail", "none"}});

  // A job UFM took but was not seen to finish (timed out): the port, still up, leaves the
  // outcome unknown (the job may still run), audited as unconfirmed (554), never "failed".
  {
    actions::UfmExecutorOptions slow = o;
    slow.job.timeout_us = 300'000;
    slow.readback_wait_us = 200'000;
    actions::UfmExecutor exec_slow(slow);
    exec_slow.set_context({leaf001, 4, "leaf001", "symbol_ber", "BER 3e-11 over 12m", false});
    emu.post("control", {{"job_polls", 1000}});
    CHECK_THROWS_AS(exec_slow.disable({}, 4), actions::OutcomeUnknown);
    emu.post("control", {{"job_polls", 1}});  // the emulator's default
    std::string last;
    for (const auto& a : emu.actions())
      if (a["path"] == "/app/events/external_event") last = a["body"]["description"];
    CHECK(last.find("could not confirm the disable of leaf001/4") != std::string::npos);
  }

  // A view that never shows the disable fails the action, audited as failed (554).
  o.readback_wait_us = 300'000;
  actions::UfmExecutor quick(o);
  quick.set_context({leaf001, 4, "leaf001", "symbol_ber", "BER 3e-11 over 12m", false});
  emu.post("port", {{"port", "leaf001/4"}, {"physical_state", "LinkUp"}});
  CHECK_THROWS_WITH(quick.disable({}, 4), Catch::Contains("still shows leaf001/4"));
  auto actions = emu.actions();
  REQUIRE_FALSE(actions.empty());
  CHECK(actions.back()["path"] == "/app/events/external_event");
  CHECK(actions.back()["body"]["event_id"] == 554);
}

}  // namespace ufm_wiring_test
