// Integration: `ibwarden run` with a ufm: section against the UFM emulator, no ibsim
// (tests/integration/ufm_lab.h). Events of both schema generations, a 50,000-event backlog
// and a restart, failure injection with health, port actions through UFM jobs (via: ufm)
// with the audit event, UFM Telemetry driving the symbol_ber rule, and the polls of UFM's
// alarms, ports and links (alarms stored once, UFM's port view in `ibwarden ports`, failed
// resource polls in health), and UFM's high_ber_severity driving the ufm_high_ber rule.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <set>
#include <thread>

#include "fabric/diagnostics.h"
#include "tests/integration/ufm_lab.h"
#include "tests/test_paths.h"

using nlohmann::json;
using namespace ibw::test;
using namespace ibw::test::ufm_lab;
using namespace std::chrono_literals;

namespace ufm_daemon_test {

int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const ibw::ingest::Event* find_port_event(const std::vector<ibw::ingest::Event>& ev,
                                          const std::string& kind, const std::string& node,
                                          int port) {
  for (const auto& e : ev)
    if (e.kind == kind && e.node == node && e.port == port) return &e;
  return nullptr;
}

// Waits for a link_down of node/port injected into the emulator to be stored.
bool inject_and_wait(UfmLab& w, const std::string& node, int port) {
  w.emu->post("events",
              {{"events", {{{"kind", "link_down"}, {"port", node + "/" + std::to_string(port)}}}}});
  auto ev = w.wait_events(
      [&](const auto& e) { return find_port_event(e, "link_down", node, port) != nullptr; }, 15s);
  return find_port_event(ev, "link_down", node, port) != nullptr;
}

}  // namespace ufm_daemon_test

using namespace ufm_daemon_test;

TEST_CASE("ufm daemon: events of both schema generations become the same internal events",
          "[integration][ufm]") {
  UfmLab w;
  Daemon d = started(w.daemon(), "\"ufm events polled\"", 1, 15s);
  // 6.17 (event_type), then 6.16 (type is the event number): the same kinds of event.
  w.emu->post("events",
              {{"events",
                {{{"kind", "link_down"}, {"port", "leaf001/3"}},
                 {{"kind", "unhealthy"}, {"port", "leaf001/4"}, {"reason", "FLAPPING"}}}}});
  w.wait_events([](const auto& e) { return e.size() >= 2; }, 15s);
  w.emu->post("control", {{"schema", "6.16"}});
  w.emu->post("events",
              {{"events",
                {{{"kind", "link_down"}, {"port", "leaf002/4"}},
                 {{"kind", "unhealthy"}, {"port", "leaf002/5"}, {"reason", "FLAPPING"}}}}});
  auto ev = w.wait_events([](const auto& e) { return e.size() >= 4; }, 15s);
  INFO(d.log());
  REQUIRE(ev.size() == 4);  // the re-rendered 6.17 events were not ingested again

  // Through the CLI, as an operator sees them.
  json events = query_json("events", w.config);
  std::vector<json> downs, unhealthy;
  for (const auto& e : events) {
    if (e["source"] != "ufm") continue;
    if (e["kind"] == "link_down") downs.push_back(e);
    if (e["kind"] == "port_unhealthy") unhealthy.push_back(e);
  }
  REQUIRE(downs.size() == 2);
  REQUIRE(unhealthy.size() == 2);
  struct Expect {
    const char *node, *peer, *cable;
    int port, peer_port;
  };
  Expect want[] = {{"leaf001", "spine001", "C-leaf001-3", 3, 1},
                   {"leaf002", "spine002", "C-leaf002-4", 4, 2}};
  for (int i = 0; i < 2; ++i) {
    const json& e = downs[i];
    CHECK(e["node"] == want[i].node);
    CHECK(e["port"] == want[i].port);
    CHECK(e["peer_node"] == want[i].peer);
    CHECK(e["peer_port"] == want[i].peer_port);
    CHECK(e["cable_id"] == want[i].cable);
    CHECK(e["severity"] == "warning");
    // Same fields whatever the schema.
    std::set<std::string> keys0, keys1;
    for (auto& [k, v] : downs[0].items()) keys0.insert(k);
    for (auto& [k, v] : e.items()) keys1.insert(k);
    CHECK(keys0 == keys1);
  }
  // Server-local time +02:00 was converted: the stored times are now, not two hours off.
  for (const auto& e : ev) CHECK(std::llabs(e.time_us / 1'000'000 - now_s()) < 120);
  CHECK(unhealthy[0]["node"] == "leaf001");
  CHECK(unhealthy[0]["port"] == 4);
  CHECK(unhealthy[1]["node"] == "leaf002");
  CHECK(unhealthy[1]["port"] == 5);
  CHECK(unhealthy[1]["peer_node"] == "spine003");
  CHECK(d.stop() == 0);
}

TEST_CASE("ufm daemon: a 50000-event backlog is ingested once and a restart resumes",
          "[integration][ufm]") {
  UfmLabOptions o;
  o.poll = "1s";
  o.emulator_args = {"--backlog", "50000"};
  UfmLab w(o);
  {
    Daemon d = w.daemon("first.log");
    d.start();
    auto ev = w.wait_events([](const auto& e) { return e.size() >= 50000; }, 40s);
    INFO(d.log().substr(0, 4000));
    REQUIRE(ev.size() == 50000);
    // Polls after the backlog re-read the whole list and add nothing.
    int polls = static_cast<int>(log_lines(d.log(), "ufm events polled").size());
    REQUIRE(d.wait_log("\"ufm events polled\"", polls + 2, 15s));
    ev = w.ufm_events();
    CHECK(ev.size() == 50000);
    std::set<std::string> keys;
    for (const auto& e : ev) keys.insert(e.dedup_key);
    CHECK(keys.size() == 50000);
    CHECK(d.stop() == 0);
  }
  w.emu->post("backlog?n=10&spacing_ms=200");  // while ibwarden is stopped
  Daemon d = w.daemon("second.log");
  d.start();
  auto ev = w.wait_events([](const auto& e) { return e.size() >= 50010; }, 30s);
  REQUIRE(d.wait_log("\"ufm events polled\"", 2, 15s));
  ev = w.ufm_events();
  CHECK(ev.size() == 50010);
  // The restarted daemon delivered the ten new events only (cursor resumed).
  size_t delivered = 0;
  for (const auto& l : log_lines(d.log(), "ufm events polled"))
    delivered += l.value("delivered", 0);
  CHECK(delivered == 10);
  size_t logged = 0;  // UFM's events (an incident ibwarden derives from them is its own)
  for (const auto& l : log_lines(d.log(), "event")) logged += l.value("kind", "") != "incident";
  CHECK(logged == 10);
  CHECK(d.stop() == 0);
}

TEST_CASE("ufm daemon: failures are survived with health logged and ingestion resuming",
          "[integration][ufm]") {
  UfmLab w;
  Daemon d = started(w.daemon(), "\"ufm events polled\"", 1, 15s);
  json on_events = {{"path", "/app/events"}};
  {
    w.emu->fail("5xx", 3, on_events);  // one poll: three attempts, all 503
    CHECK(inject_and_wait(w, "leaf001", 3));
    w.emu->fail("malformed", 3, on_events);  // cut JSON: retried, then the poll fails
    CHECK(inject_and_wait(w, "leaf001", 4));
    w.emu->fail("401", 3, on_events);  // not retried: three polls fail
    CHECK(inject_and_wait(w, "leaf001", 5));
    w.emu->fail("timeout", 1, {{"path", "/app/events"}, {"delay", 1.0}});  // no answer at all
    CHECK(inject_and_wait(w, "leaf001", 6));
    w.emu->fail("duplicates", 3);  // every event listed twice
    CHECK(inject_and_wait(w, "leaf002", 3));
    // Five failed calls open the breaker: down. Every REST path fails here, since a call to
    // another endpoint that succeeds (the alarms poll of each cycle) closes the count again.
    w.emu->fail("5xx", 18, {{"path", "/ufmRest/"}});
    CHECK(inject_and_wait(w, "leaf002", 4));
    // A UFM restart: ids start again at 1, and 60 link-up events arrive within a second. (The
    // pauses keep the old events' second apart from the storm's, and the next event out of
    // the storm's window.)
    std::this_thread::sleep_for(1100ms);
    w.emu->post("control", {{"fail", "restart"}, {"storm", 60}});
    w.wait_events([](const auto& e) { return count_kind(e, "ufm_storm") > 0; }, 15s);
    std::this_thread::sleep_for(1100ms);
    CHECK(inject_and_wait(w, "leaf002", 5));

    auto ev = w.ufm_events();
    INFO(d.log());
    CHECK(count_kind(ev, "link_down") == 7);  // each injected event once, no duplicates
    CHECK(count_kind(ev, "ufm_storm") == 1);  // the storm: one summary, no link_up events
    CHECK(count_kind(ev, "link_up") == 0);
    std::string log = d.log();
    std::set<std::string> states;
    for (const auto& l : log_lines(log, "source health"))
      if (l["source"] == "ufm") states.insert(l["state"].get<std::string>());
    CHECK(states == std::set<std::string>{"degraded", "down", "ok"});
    bool reset = false;
    for (const auto& l : log_lines(log, "ufm events polled")) reset = reset || l["reset"] == true;
    CHECK(reset);
    // The password never reaches the log.
    CHECK(log.find(kUfmPassword) == std::string::npos);
  }
  CHECK(d.stop() == 0);
}

TEST_CASE("ufm daemon: via ufm disables a flapping port through a UFM job with an audit event",
          "[integration][ufm]") {
  UfmLabOptions o;
  o.api = "v3";
  o.mode = "enforce";
  o.via = "ufm";
  o.rules =
      "rules:\n  - name: link_flap\n    type: link_flap\n    action: disable\n"
      "    severity: critical\n    confirm: none\n    cycles: 3\n    window: 1m\n";
  UfmLab w(o);
  Daemon d = started(w.daemon(), "\"ufm events polled\"", 1, 15s);
  json flaps = json::array();
  for (int i = 0; i < 3; ++i) {
    flaps.push_back({{"kind", "link_down"}, {"port", "leaf001/3"}, {"at", now_s() - 20 + 4 * i}});
    flaps.push_back({{"kind", "link_up"}, {"port", "leaf001/3"}, {"at", now_s() - 18 + 4 * i}});
  }
  w.emu->post("events", {{"events", flaps}});
  const json dec = only_decision(w.config, d);
  INFO(d.log());
  CHECK(verdict_of(dec) == "link_flap disable executed");
  CHECK(dec["cable_id"] == "C-leaf001-3");
  CHECK(dec["evidence"]["readback"]["after"]["phys_state"] == "Disabled");
  CHECK(dec["evidence"]["via"].get<std::string>().find("UFM job") == 0);
  std::string acted = dec["node"].get<std::string>();
  int acted_port = dec["port"];
  std::string name = w.port_name(acted, acted_port);
  CHECK((acted == "leaf001" || acted == "spine001"));

  auto jobs = recorded(*w.emu, "/actions");
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0]["api"] == "/ufmRestV3");
  CHECK(jobs[0]["body"]["action"] == "disable");
  CHECK(jobs[0]["body"]["params"]["port_id"] == name);
  CHECK(jobs[0]["body"]["object_ids"][0] == name.substr(0, 16));
  auto audit = recorded(*w.emu, "/app/events/external_event");
  REQUIRE(audit.size() == 1);
  CHECK(audit[0]["body"]["event_id"] == 553);
  std::string text = audit[0]["body"]["description"];
  CHECK(text.find("disabled " + acted + "/" + std::to_string(acted_port)) != std::string::npos);
  CHECK(text.find("rule link_flap") != std::string::npos);
  CHECK(text.find("3 link down/up cycles") != std::string::npos);

  // UFM reports our own disable (336, and 329 for the link): stored, and nothing new decided
  // (the link's order is already active).
  auto ev = w.wait_events([](const auto& e) { return e.size() >= 9; }, 15s);
  CHECK(count_kind(ev, "link_down") == 4);
  int polls = static_cast<int>(log_lines(d.log(), "ufm events polled").size());
  REQUIRE(d.wait_log("\"ufm events polled\"", polls + 3, 10s));
  CHECK(query_json("decisions", w.config).size() == 1);

  // The operator path through UFM: enable, with the reason in UFM's event log.
  CmdResult r = run_cmd({IBW_BINARY, "enable", "--config", w.config, "--port",
                         acted + "/" + std::to_string(acted_port), "--reason", "cable reseated",
                         "--format", "json"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  json en = json::parse(r.out);
  CHECK(en["status"] == "executed");
  CHECK(en["evidence"]["readback"]["after"]["phys_state"] == "LinkUp");
  jobs = recorded(*w.emu, "/actions");
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[1]["body"]["action"] == "enable");
  audit = recorded(*w.emu, "/app/events/external_event");
  REQUIRE(audit.size() == 2);
  CHECK(audit[1]["body"]["event_id"] == 552);
  CHECK(audit[1]["body"]["description"].get<std::string>().find("cable reseated") !=
        std::string::npos);
  CHECK(d.stop() == 0);
}

TEST_CASE("ufm daemon: UFM Telemetry counters drive the symbol_ber rule and isolate the port",
          "[integration][ufm]") {
  UfmLabOptions o;
  o.telemetry = true;
  o.mode = "enforce";
  o.via = "ufm";
  o.rules = ibw::fabric::read_file(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  UfmLab w(o);
  Daemon d = started(w.daemon(), "\"telemetry sweep\"", 2, 15s);
  w.emu->post("telemetry", {{"port", "leaf002/4"}, {"add", {{"SymbolErrorCounter", 5000}}}});
  const json dec = only_decision(w.config, d);
  INFO(d.log());
  CHECK(dec["rule"] == "symbol_ber");
  CHECK(dec["status"] == "executed");
  CHECK(dec["node"] == "leaf002");
  CHECK(dec["port"] == 4);
  CHECK(dec["cable_id"] == "C-leaf002-4");
  CHECK(dec["evidence"]["counters"]["SymbolErrorCounter"] == 5000);
  CHECK(dec["evidence"]["isolated"] == true);  // the rule says isolate: UFM isolation
  auto puts = recorded(*w.emu, "/app/unhealthy_ports");
  REQUIRE(puts.size() == 1);
  CHECK(puts[0]["body"]["ports_policy"] == "UNHEALTHY");
  CHECK(puts[0]["body"]["action"] == "isolate");
  CHECK(puts[0]["body"]["ports"][0] == w.port_name("leaf002", 4));
  CHECK(recorded(*w.emu, "/actions").empty());
  auto audit = recorded(*w.emu, "/app/events/external_event");
  REQUIRE(audit.size() == 1);
  CHECK(audit[0]["body"]["description"].get<std::string>().find("rule symbol_ber") !=
        std::string::npos);
  // The counters came from telemetry, not from a MAD sweep (none ran).
  auto ports = query_json("ports", w.config, {"--node", "leaf002"});
  bool seen = false;
  for (const auto& p : ports)
    if (p["port"] == 4) seen = p["counters"]["SymbolErrorCounter"] == 5000;
  CHECK(seen);
  CHECK(d.log().find("\"counter sweep") == std::string::npos);
  CHECK(d.stop() == 0);
}

TEST_CASE("ufm daemon: event.log lines are tailed once across a restart", "[integration][ufm]") {
  UfmLabOptions o;
  o.event_log = true;
  UfmLab w(o);
  auto guid_of = [&](const std::string& name) {
    for (const auto& n : w.lab.nodes)
      if (n.name == name) return n.guid;
    FAIL("no node " << name);
    return uint64_t{0};
  };
  // A UFM 329 line for leaf001/3 <-> spine001/1, written as UFM writes event.log.
  auto line = [&](int id, const std::string& leaf, int leaf_port, bool write = true) {
    char buf[600];
    std::time_t t = now_s() - 7200;  // the emulator's UFM runs at +02:00; lines carry local time
    std::tm tm{};
    gmtime_r(&t, &tm);
    tm.tm_hour += 2;
    std::mktime(&tm);
    char ts[32];
    std::strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", &tm);
    std::snprintf(
        buf, sizeof buf,
        "%s.000 [%d] [329] Warning [Fabric_Topology] Link [default / Switch: %s / 1/%d/1] "
        "[dev_id: %016llx]: Link went down: (Switch:%s:1/%d/1)%016llx:%d - "
        "(Switch:spine001:1/1/1)%016llx:1\n",
        ts, id, leaf.c_str(), leaf_port, (unsigned long long)guid_of(leaf), leaf.c_str(), leaf_port,
        (unsigned long long)guid_of(leaf), leaf_port, (unsigned long long)guid_of("spine001"));
    if (write) std::ofstream(w.dir + "/ufm-event.log", std::ios::app) << buf;
    return std::string(buf);
  };
  auto from_log = [&](const std::vector<ibw::ingest::Event>& ev, const std::string& node) {
    int n = 0;
    for (const auto& e : ev)
      n += e.kind == "link_down" && e.node == node && e.dedup_key.rfind("ufm:9", 0) == 0;
    return n;
  };
  {
    Daemon d = started(w.daemon("daemon1.log"), "fabric discovered", 1, 20s);
    std::this_thread::sleep_for(500ms);  // the tailer has started at the end of the file
    line(90001, "leaf001", 3);
    auto ev = w.wait_events([&](const auto& e) { return from_log(e, "leaf001") == 1; }, 15s);
    INFO(d.log());
    REQUIRE(from_log(ev, "leaf001") == 1);
    const auto* e = find_port_event(ev, "link_down", "leaf001", 3);
    REQUIRE(e);
    CHECK(e->peer_node == "spine001");
    CHECK(e->cable_id == "C-leaf001-3");
    CHECK(d.stop() == 0);
  }
  line(90002, "leaf002", 3);  // written while the daemon is down
  {
    Daemon d = w.daemon("daemon2.log");
    d.start();
    auto ev = w.wait_events([&](const auto& e) { return from_log(e, "leaf002") == 1; }, 15s);
    INFO(d.log());
    CHECK(from_log(ev, "leaf002") == 1);  // resumed where it stopped
    std::this_thread::sleep_for(1s);
    CHECK(from_log(w.ufm_events(), "leaf001") == 1);  // not read twice
    // A burst as on a UFM restart: 80 lines within one second become one storm summary.
    std::string burst;  // one write(2), so the tailer reads it in one go
    for (int i = 0; i < 80; ++i) burst += line(90100 + i, "leaf002", 4, false);
    int fd = ::open((w.dir + "/ufm-event.log").c_str(), O_WRONLY | O_APPEND);
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, burst.data(), burst.size()) == static_cast<ssize_t>(burst.size()));
    ::close(fd);
    auto storms = [](const std::vector<ibw::ingest::Event>& e) {
      int n = 0;
      for (const auto& x : e) n += x.kind == "ufm_storm";
      return n;
    };
    ev = w.wait_events([&](const auto& e) { return storms(e) > 0; }, 15s);
    CHECK(storms(ev) >= 1);
    CHECK(find_port_event(ev, "link_down", "leaf002", 4) == nullptr);  // not acted on one by one
    CHECK(d.stop() == 0);
  }
}

namespace ufm_daemon_test {

std::vector<ibw::ingest::Event> of_kind(const std::vector<ibw::ingest::Event>& ev,
                                        const std::string& kind) {
  std::vector<ibw::ingest::Event> out;
  for (const auto& e : ev)
    if (e.kind == kind) out.push_back(e);
  return out;
}

// The port's JSON from `ibwarden ports --node node --format json`; null when absent.
json port_of(const std::string& config, const std::string& node, int port) {
  for (const auto& p : query_json("ports", config, {"--node", node}))
    if (p["port"] == port) return p;
  return nullptr;
}

// Waits for a "source health" line of source ufm in `state` whose error contains `what`.
bool wait_health(const Daemon& d, const std::string& state, const std::string& what) {
  auto until = std::chrono::steady_clock::now() + 15s;
  while (std::chrono::steady_clock::now() < until) {
    for (const auto& l : log_lines(d.log(), "source health"))
      if (l["source"] == "ufm" && l["state"] == state &&
          l.value("error", "").find(what) != std::string::npos)
        return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

}  // namespace ufm_daemon_test

TEST_CASE("ufm daemon: an open alarm is stored once and its clearing once across a restart",
          "[integration][ufm]") {
  UfmLab w;
  json alarm;
  {
    Daemon d = started(w.daemon("first.log"), "\"ufm alarms polled\"", 1, 15s);
    alarm = w.emu->post("alarms", {{"port", "leaf001/3"},
                                   {"type", 394},
                                   {"severity", "Critical"},
                                   {"reason", "PSU 2 failed"}});
    w.wait_events([](const auto& e) { return count_kind(e, "ufm_alarm") > 0; }, 15s, true);
    // It stays open over many polls, with more occurrences.
    w.emu->post("alarms", {{"port", "leaf001/3"}, {"type", 394}, {"count", 5}});
    int polls = static_cast<int>(log_lines(d.log(), "ufm alarms polled").size());
    REQUIRE(d.wait_log("\"ufm alarms polled\"", polls + 5, 15s));
    auto ev = w.ufm_events(true);
    INFO(d.log());
    REQUIRE(count_kind(ev, "ufm_alarm") == 1);
    const auto* e = find_port_event(ev, "ufm_alarm", "leaf001", 3);
    REQUIRE(e);
    CHECK(e->severity == ibw::ingest::Severity::critical);
    CHECK(e->peer_node == "spine001");
    CHECK(e->peer_port == 1);
    CHECK(e->cable_id == "C-leaf001-3");
    CHECK(e->message.find("PSU 2 failed") != std::string::npos);
    CHECK(w.ufm_events().empty());  // an alarm alone: no UFM event was stored
    CHECK(d.stop() == 0);
  }
  // While ibwarden is stopped, the alarm clears and another one is raised.
  w.emu->post("alarms", {{"clear", alarm["id"]}});
  w.emu->post("alarms", {{"port", "leaf002/4"}, {"type", 394}, {"severity", "Major"}});
  Daemon d = w.daemon("second.log");
  d.start();
  auto ev = w.wait_events(
      [](const auto& e) {
        return count_kind(e, "ufm_alarm") >= 2 && count_kind(e, "ufm_alarm_cleared") >= 1;
      },
      15s, true);
  REQUIRE(d.wait_log("\"ufm alarms polled\"", 5, 15s));
  ev = w.ufm_events(true);
  INFO(d.log());
  CHECK(count_kind(ev, "ufm_alarm") == 2);  // the open one was not stored again
  REQUIRE(count_kind(ev, "ufm_alarm_cleared") == 1);
  const auto cleared = of_kind(ev, "ufm_alarm_cleared")[0];
  CHECK(cleared.node == "leaf001");
  CHECK(cleared.port == 3);
  CHECK(cleared.severity == ibw::ingest::Severity::info);
  const auto* raised = find_port_event(ev, "ufm_alarm", "leaf002", 4);
  REQUIRE(raised);
  CHECK(raised->severity == ibw::ingest::Severity::error);  // Major
  CHECK(raised->cable_id == "C-leaf002-4");
  // As an operator sees them.
  size_t listed = 0;
  for (const auto& j : query_json("events", w.config))
    listed +=
        j["source"] == "ufm" && (j["kind"] == "ufm_alarm" || j["kind"] == "ufm_alarm_cleared");
  CHECK(listed == 3);
  CHECK(d.stop() == 0);
}

TEST_CASE("ufm daemon: ibwarden ports shows UFM's view and high BER gives one event per change",
          "[integration][ufm]") {
  UfmLab w;
  w.emu->post("port", {{"port", "leaf002/4"}, {"high_ber", "warning"}});
  Daemon d = started(w.daemon(), "\"ufm ports polled\"", 1, 15s);
  json p = nullptr;
  auto until = std::chrono::steady_clock::now() + 15s;
  while (std::chrono::steady_clock::now() < until && !(p.is_object() && p.contains("ufm"))) {
    p = port_of(w.config, "leaf002", 4);
    std::this_thread::sleep_for(100ms);
  }
  INFO(d.log());
  REQUIRE(p.is_object());
  REQUIRE(p.contains("ufm"));
  const json& u = p["ufm"];
  CHECK(u["name"] == w.port_name("leaf002", 4));
  CHECK(u["high_ber_severity"] == "warning");
  CHECK(u["state"] == "Active");
  CHECK(u["phys_state"] == "Link Up");
  CHECK(u["speed"] == "HDR");
  CHECK(u["width"] == "4x");
  CHECK(u["peer_node"] == "spine002");
  CHECK(u["peer_port"] == 2);
  // The text format ends with UFM's state and BER grade.
  CmdResult text = run_cmd({IBW_BINARY, "ports", "--config", w.config, "--node", "leaf002"});
  CHECK(text.out.find("leaf002/4  Active/LinkUp  -> spine002/2  [C-leaf002-4]") !=
        std::string::npos);
  CHECK(text.out.find("ufm:Active high_ber=warning\n") != std::string::npos);
  CHECK(u["peer_from"] == "links");
  CHECK(u["state_differs"] == false);
  CHECK(p["state"] == "Active");  // our own (discovered) state is still there

  auto ev = w.wait_events([](const auto& e) { return count_kind(e, "high_ber") > 0; }, 15s, true);
  REQUIRE(count_kind(ev, "high_ber") == 1);
  const auto* hb = find_port_event(ev, "high_ber", "leaf002", 4);
  REQUIRE(hb);
  CHECK(hb->severity == ibw::ingest::Severity::warning);
  CHECK(hb->source == ibw::ingest::EventSource::ufm);
  CHECK(hb->cable_id == "C-leaf002-4");

  // UFM raises it to error and sees another port down: one more event; the state is shown.
  w.emu->post("port", {{"port", "leaf002/4"}, {"high_ber", "error"}});
  w.emu->post("port", {{"port", "leaf001/5"}, {"logical_state", "Down"}});
  ev = w.wait_events([](const auto& e) { return count_kind(e, "high_ber") >= 2; }, 15s, true);
  REQUIRE(d.wait_log("\"ufm ports polled\"", 4, 15s));  // and later polls add nothing
  ev = w.ufm_events(true);
  CHECK(count_kind(ev, "high_ber") == 2);
  CHECK(count_kind(ev, "link_down") == 0);  // a UFM state change is recorded, not an event
  auto down = port_of(w.config, "leaf001", 5);
  REQUIRE(down.contains("ufm"));
  CHECK(down["ufm"]["state"] == "Down");
  CHECK(down["state"] == "Active");
  CHECK(down["ufm"]["state_differs"] == true);
  CHECK(port_of(w.config, "leaf002", 4)["ufm"]["high_ber_severity"] == "error");
  CHECK(d.stop() == 0);
}

TEST_CASE("ufm daemon: a partial ports answer keeps UFM's last port view", "[integration][ufm]") {
  UfmLab w;
  w.emu->post("port", {{"port", "leaf002/4"}, {"high_ber", "warning"}});
  Daemon d = w.daemon();
  d.start();
  auto ev = w.wait_events([](const auto& e) { return count_kind(e, "high_ber") > 0; }, 15s, true);
  REQUIRE(count_kind(ev, "high_ber") == 1);
  auto with_ufm = [&] {
    size_t n = 0;
    for (const auto& p : query_json("ports", w.config)) n += p.contains("ufm");
    return n;
  };
  size_t before = with_ufm();
  REQUIRE(before >= 16);
  int polls = static_cast<int>(log_lines(d.log(), "ufm ports polled").size());
  // UFM answers two ports reads with a quarter of its list (e.g. still loading after a
  // restart), then with all of it again.
  w.emu->fail("partial", 2, {{"path", "/resources/ports"}});
  bool refused = wait_health(d, "degraded", "known ports; not trusted");
  REQUIRE(d.wait_log("\"ufm ports polled\"", polls + 1, 30s));  // the next whole answer
  INFO(d.log());
  CHECK(refused);
  json injected = w.emu->get("state")["fail"];
  REQUIRE(injected.is_object());
  CHECK(injected["kind"] == "partial");
  CHECK(injected["count"] == 0);  // both partial answers were served
  CHECK(with_ufm() == before);    // no row dropped
  ev = w.ufm_events(true);
  CHECK(count_kind(ev, "high_ber") == 1);  // not cleared and raised again
  CHECK(count_kind(ev, "high_ber_cleared") == 0);
  CHECK(port_of(w.config, "leaf002", 4)["ufm"]["high_ber_severity"] == "warning");
  CHECK(d.stop() == 0);
}

TEST_CASE("ufm daemon: failed alarm port and link polls are survived and reported in health",
          "[integration][ufm]") {
  UfmLab w;
  w.emu->fail("5xx", 3, {{"path", "/resources/ports"}});  // the first ports read fails
  Daemon d = w.daemon();
  d.start();
  bool ports_failed = wait_health(d, "degraded", "ports: ");
  REQUIRE(d.wait_log("\"ufm ports polled\"", 1, 15s));  // read again on the next poll
  bool recovered = wait_health(d, "ok", "");
  w.emu->fail("malformed", 3, {{"path", "/app/alarms"}});
  bool alarms_failed = wait_health(d, "degraded", "alarms: ");
  int polls = static_cast<int>(log_lines(d.log(), "ufm ports polled").size());
  w.emu->fail("5xx", 3, {{"path", "/resources/links"}});
  bool links_failed = wait_health(d, "degraded", "links: ");
  REQUIRE(d.wait_log("\"ufm ports polled\"", polls + 2, 15s));
  INFO(d.log());
  CHECK(ports_failed);
  CHECK(recovered);
  CHECK(alarms_failed);
  CHECK(links_failed);
  // Everything still works: events, alarms (once), and the port view with its link peers.
  CHECK(inject_and_wait(w, "leaf001", 3));
  w.emu->post("alarms", {{"port", "leaf002/3"}, {"type", 394}});
  auto ev = w.wait_events([](const auto& e) { return count_kind(e, "ufm_alarm") >= 2; }, 15s, true);
  CHECK(count_kind(ev, "ufm_alarm") == 2);  // the injected 329 raised one in the emulator too
  auto p = port_of(w.config, "leaf002", 3);
  REQUIRE(p.contains("ufm"));
  CHECK(p["ufm"]["peer_from"] == "links");
  std::set<std::string> states;
  for (const auto& l : log_lines(d.log(), "source health"))
    if (l["source"] == "ufm") states.insert(l["state"].get<std::string>());
  CHECK(states == std::set<std::string>{"degraded", "ok"});
  CHECK(d.stop() == 0);
}

TEST_CASE("ufm daemon: UFM's high_ber_severity error drives the ufm_high_ber rule in dry-run",
          "[integration][ufm]") {
  UfmLabOptions o;  // dry-run, the shipped rules (ufm_high_ber: isolate at error)
  o.rules = ibw::fabric::read_file(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  UfmLab w(o);
  Daemon d = started(w.daemon(), "\"ufm ports polled\"", 1, 15s);
  w.emu->post("port", {{"port", "leaf002/4"}, {"high_ber", "error"}});
  const json dec = only_decision(w.config, d);
  INFO(d.log());
  CHECK(verdict_of(dec) == "ufm_high_ber disable dry_run");
  CHECK(dec["cable_id"] == "C-leaf002-4");
  const json& ev = dec["evidence"];
  CHECK(ev["rule_type"] == "ufm_high_ber");
  REQUIRE(ev["ufm_events"].size() == 1);
  CHECK(ev["ufm_events"][0]["severity"] == "error");
  CHECK(ev["ufm_events"][0]["source"] == "ufm");
  CHECK(ev["ufm_events"][0]["message"].get<std::string>().find("high_ber_severity error") !=
        std::string::npos);
  CHECK(recorded(*w.emu, "/app/unhealthy_ports").empty());  // dry-run: nothing sent
  // Later polls and evaluations add nothing (the link's order is active).
  REQUIRE(d.wait_log("\"ufm ports polled\"", 3, 15s));
  CHECK(query_json("decisions", w.config).size() == 1);
  CHECK(d.stop() == 0);
}
