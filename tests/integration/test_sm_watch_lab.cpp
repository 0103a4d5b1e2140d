// Integration: the subnet-manager watcher on real ibsim + OpenSM with `ibwarden run`.
//  - OpenSM killed: `no master` within 5 s (event, status JSON, /health); a symbol-error jump
//    meanwhile is not acted on but recorded as a `held` decision; OpenSM started again: the
//    held decision is acted on (the port is disabled through the guard as usual).
//  - A second OpenSM as standby (lower priority, short SMInfo polling): the master killed, the
//    standby takes over and the daemon reports a `failover`.
//  - OpenSM's log state lines: stored as `sm_state` events (once each, a daemon restart
//    included), shown as `log_state`; "Exiting SM" (OpenSM stopped with SIGTERM) makes the
//    watcher poll at once; a SIGKILL logs nothing, and MADs alone say "no master".
// Simulator-specific (see daemon/sources/sm_watch.cpp): under ibsim the OpenSM process answers
// SMInfo itself, clears the IsSM capability bit when it exits, and its ActCount moves with
// every SMInfo answer; a killed OpenSM leaves the fabric up (LIDs, LFTs, SMPs work).
// Fabric: 2 leaves x 4 spines, 2 hosts per leaf; OpenSM and the daemon at node0001 (leaf001/1).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ingest/opensm_log.h"
#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using nlohmann::json;
using namespace ibw::test;
using namespace std::chrono_literals;

namespace sm_watch_lab {

struct SmLab {
  ibw::lab::Lab lab;
  std::unique_ptr<ibw::lab::SimLab> sim;
  std::string config;

  explicit SmLab(std::vector<std::string> opensm_args = {}, bool read_existing = false) {
    lab = ibw::lab::two_tier_lab(2, 4, 2);
    ibw::lab::SimLabOptions o{ibw::lab::to_ibsim_net(lab)};
    o.opensm_args = std::move(opensm_args);
    sim = std::make_unique<ibw::lab::SimLab>(o);
    std::string d = sim->dir();
    std::ofstream(d + "/plan.csv") << ibw::lab::plan_csv(lab);
    config = d + "/ibwarden.yaml";
    remedy_lab_config("enforce")
        .set("opensm",
             {{"rediscover_delay", "200ms"}, {"read_existing", read_existing ? "true" : "false"}})
        .set("sm_watch", {{"interval", "1s"}, {"rescan", "2s"}})
        .set("web", "listen", "127.0.0.1:0")
        .write(config);
  }
  Daemon daemon(const std::string& log = "daemon.log") {
    return Daemon({config, sim->dir(), sim->sockname(), sim->dir() + "/" + log});
  }
  // `ibwarden status --format json`'s subnet_manager (the state the watcher stored).
  json sm_status() const {
    auto r = run_cmd({IBW_BINARY, "status", "--config", config, "--format", "json"});
    if (r.status != 0) return nullptr;
    return json::parse(r.out, nullptr, false).value("subnet_manager", json(nullptr));
  }
  // Waits until sm_status() satisfies pred; returns the last one.
  template <typename Pred>
  json wait_sm(Pred pred, std::chrono::milliseconds timeout) const {
    auto until = std::chrono::steady_clock::now() + timeout;
    json j = sm_status();
    while (!(j.is_object() && pred(j)) && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(200ms);
      j = sm_status();
    }
    return j;
  }
  std::string phys_state(const std::string& dr_path, int port) const {
    auto r = sim->run({"smpquery", "-D", "portinfo", dr_path, std::to_string(port)}, "", 60s);
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("PhysLinkState:", 0) == 0) return line.substr(line.find_last_of('.') + 1);
    return "?";
  }
};

int sweeps(const Daemon& d) {
  std::string log = d.log();
  int n = 0;
  for (size_t at = log.find("\"counter sweep\""); at != std::string::npos;
       at = log.find("\"counter sweep\"", at + 1))
    ++n;
  return n;
}

bool has_master(const json& sm) {
  return sm.value("status", "") == "master" && sm["master"].is_object();
}

std::string log_state(const json& sm) {
  return sm.contains("log_state") && sm["log_state"].is_object()
             ? sm["log_state"].value("state", "")
             : "";
}

// The stored sm_state events' messages, in time order.
std::vector<std::string> sm_states(const std::string& config) {
  std::vector<std::pair<std::string, std::string>> found;
  for (const auto& e : query_json("events", config))
    if (e.value("kind", "") == "sm_state") found.emplace_back(e["time"], e["message"]);
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& f : found) out.push_back(f.second);
  return out;
}

// The sm_state events the whole OpenSM log gives (parse_opensm_line + to_event), in order.
std::vector<std::string> logged_states(const std::string& log_text) {
  ibw::ingest::OsmLogContext ctx{std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count(),
                                 0};
  std::vector<std::string> out;
  std::istringstream in(log_text);
  for (std::string line; std::getline(in, line);)
    if (auto r = ibw::ingest::parse_opensm_line(line, ctx))
      if (auto e = ibw::ingest::to_event(*r); e && e->kind == "sm_state") out.push_back(e->message);
  return out;
}

}  // namespace sm_watch_lab

using namespace sm_watch_lab;

TEST_CASE("sm watch lab: no master within 5 s - a held decision - acted on once OpenSM is back",
          "[integration][sm_watch]") {
  SmLab w;
  Daemon d = started(w.daemon(), "\"counter sweep\"", 2, 30s);
  json sm = w.wait_sm(has_master, 20s);
  INFO(d.log());
  REQUIRE(has_master(sm));
  CHECK(sm["watch"] == "on");
  CHECK(sm["master"]["state"] == "master");
  CHECK(sm["master"]["lid"].get<int>() > 0);
  CHECK(sm["standby"].empty());

  // OpenSM dies: the watcher says so within 5 s.
  auto killed = std::chrono::steady_clock::now();
  w.sim->kill_opensm();
  REQUIRE(d.wait_log("\"kind\":\"sm_no_master\"", 1, 10s));
  auto detected = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - killed);
  std::cout << "sm watch lab: OpenSM killed -> no master in " << detected.count() << " ms\n";
  CHECK(detected < 5s);
  sm = w.wait_sm([](const json& j) { return j.value("status", "") == "no_master"; }, 5s);
  CHECK(sm["master"].is_null());
  CHECK(sm["log_state"].is_null());  // a killed OpenSM logs nothing: MADs alone said it
  int port = web_port(d);
  REQUIRE(port > 0);
  auto h = http_call(port, "GET", "/api/v1/health", "");
  CHECK(h.body["subnet_manager"]["status"] == "no_master");
  CHECK(h.body["status"] == "degraded");

  // A symbol-error jump without a master: held, not disabled.
  w.sim->console("PerformanceSet \"leaf001\"[3] PortCounters.SymbolErrorCounter=5000");
  json held = wait_query(
      "decisions", w.config, {},
      [](const json& l) { return !l.empty() && l.back().value("status", "") == "held"; }, 30s);
  REQUIRE(held.size() == 1);
  CHECK(held[0]["status"] == "held");
  CHECK(held[0]["action"] == "disable");
  CHECK(held[0]["node"] == "leaf001");
  CHECK(held[0]["port"] == 3);
  CHECK(held[0]["reason"].get<std::string>().find("no master SM") != std::string::npos);
  CHECK(w.phys_state("0,1", 3) == "LinkUp");  // over MADs, independently of ibwarden
  // Three more sweeps without a master: still one held decision, and no disable.
  REQUIRE(d.wait_log("\"counter sweep\"", sweeps(d) + 3, 20s));
  CHECK(query_json("decisions", w.config).size() == 1);
  CHECK(w.phys_state("0,1", 3) == "LinkUp");

  // A manual disable asks for --force and says why (nothing recorded, nothing sent).
  auto manual = w.sim->run(
      {IBW_BINARY, "disable", "--config", w.config, "--port", "leaf002/4", "--reason", "test"}, "",
      60s);
  CHECK(manual.status == 2);
  CHECK(manual.err.find("no master subnet manager") != std::string::npos);
  CHECK(manual.err.find("--force") != std::string::npos);
  CHECK(query_json("decisions", w.config).size() == 1);

  // OpenSM again: a master, and the held verdict goes through the guard as usual.
  REQUIRE(w.sim->restart_opensm(60s));
  REQUIRE(d.wait_log("\"kind\":\"sm_master\"", 1, 15s));
  json all = wait_query(
      "decisions", w.config, {}, [](const json& l) { return l.size() >= 2 && decided(l, 2); }, 60s);
  REQUIRE(all.size() == 2);
  CHECK(all[0]["status"] == "held");
  CHECK(verdict_of(all[1]) == "symbol_ber disable executed");
  CHECK(all[1]["node"] == "leaf001");
  CHECK(all[1]["port"] == 3);
  CHECK(w.phys_state("0,1", 3) == "Disabled");
  CHECK(d.log().find("held decision acted on") != std::string::npos);
  sm = w.wait_sm(has_master, 10s);
  CHECK(has_master(sm));
  CHECK(sm["failovers"] == 0);          // the same SM came back
  CHECK(sm["last_sweep"].is_string());  // the restarted OpenSM's SUBNET UP, from its log
  sm = w.wait_sm([](const json& j) { return log_state(j) == "master"; }, 10s);
  CHECK(log_state(sm) == "master");  // the restarted OpenSM's "Entering MASTER state"
  CHECK(sm_states(w.config) ==
        std::vector<std::string>{"OpenSM state discovering: Entering DISCOVERING state",
                                 "OpenSM state master: Entering MASTER state"});
}

TEST_CASE("sm watch lab: a standby OpenSM takes over - a failover event",
          "[integration][sm_watch]") {
  SmLab w({"-p", "10"});  // the master: priority 10
  // The standby on node0003 (leaf002/1): priority 1, polls the master every second, takes
  // over after 2 missed polls (OpenSM's default: 10 s x 4).
  std::string conf = w.sim->dir() + "/standby.conf";
  std::ofstream(conf) << "sminfo_polling_timeout 1000\npolling_retry_number 2\n";
  w.sim->start_other_opensm("node0003 mlx5_0", "standby", {"-p", "1", "-F", conf});
  Daemon d = started(w.daemon(), "\"counter sweep\"", 1, 30s);
  json sm = w.wait_sm([](const json& j) { return has_master(j) && j["standby"].size() == 1; }, 30s);
  INFO(d.log());
  REQUIRE(has_master(sm));
  REQUIRE(sm["standby"].size() == 1);
  CHECK(sm["standby"][0]["state"] == "standby");
  CHECK(sm["standby"][0]["priority"] == 1);
  CHECK(sm["master"]["priority"] == 10);
  std::string old_master = sm["master"]["guid"], standby = sm["standby"][0]["guid"];

  auto killed = std::chrono::steady_clock::now();
  w.sim->kill_opensm();
  bool failover = d.wait_log("\"kind\":\"sm_failover\"", 1, 60s);
  if (!failover) {  // (a rare CI failure): what the standby and the watcher saw, to tell why
    std::string standby_log = ibw::lab::slurp_file(w.sim->dir() + "/opensm-standby.log");
    if (standby_log.size() > 6000)
      standby_log = "..." + standby_log.substr(standby_log.size() - 6000);
    UNSCOPED_INFO("the standby OpenSM's log (end):\n" << standby_log);
    UNSCOPED_INFO("the watcher's sm status: " << w.sm_status().dump());
  }
  REQUIRE(failover);
  std::cout << "sm watch lab: master killed -> failover reported in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - killed)
                   .count()
            << " ms (standby: sminfo_polling_timeout 1000, polling_retry_number 2)\n";
  sm = w.wait_sm([&](const json& j) { return has_master(j) && j["master"]["guid"] != old_master; },
                 10s);
  REQUIRE(has_master(sm));
  CHECK(sm["master"]["guid"] == standby);
  CHECK(sm["failovers"] == 1);
  auto events = query_json("events", w.config);
  int failovers = 0;
  for (const auto& e : events) failovers += e.value("kind", "") == "sm_failover";
  CHECK(failovers == 1);
}

TEST_CASE("sm watch lab: normal sweeps every 2 s give no false no master",
          "[integration][sm_watch]") {
  // OpenSM sweeping every 2 s (-s 2) while the watcher polls every second; IBW_SM_SOAK_S sets
  // the length (default 60 s; the report's longer run used 600).
  int seconds = std::getenv("IBW_SM_SOAK_S") ? std::atoi(std::getenv("IBW_SM_SOAK_S")) : 60;
  SmLab w({"-s", "2"});
  Daemon d = started(w.daemon(), "\"counter sweep\"", 1, 30s);
  json sm = w.wait_sm(has_master, 20s);
  INFO(d.log());
  REQUIRE(has_master(sm));
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  CHECK(d.log().find("\"kind\":\"sm_no_master\"") == std::string::npos);
  sm = w.sm_status();
  CHECK(has_master(sm));
  auto events = query_json("events", w.config);
  int no_master = 0;
  for (const auto& e : events) no_master += e.value("kind", "") == "sm_no_master";
  CHECK(no_master == 0);
  std::cout << "sm watch lab: " << seconds << " s of 2 s sweeps, " << no_master
            << " false no master\n";
}

TEST_CASE("sm watch lab: OpenSM's state lines - sm_state events - log_state - an early poll",
          "[integration][sm_watch]") {
  SmLab w({}, /*read_existing=*/true);  // the daemon reads OpenSM's log from its start
  std::vector<std::string> states;
  {
    Daemon d = started(w.daemon(), "\"counter sweep\"", 1, 30s);
    INFO(d.log());
    json sm =
        w.wait_sm([](const json& j) { return has_master(j) && log_state(j) == "master"; }, 20s);
    REQUIRE(has_master(sm));
    CHECK(log_state(sm) == "master");
    CHECK(sm_states(w.config) ==
          std::vector<std::string>{"OpenSM state discovering: Entering DISCOVERING state",
                                   "OpenSM state master: Entering MASTER state"});

    // A clean stop: "Exiting SM" wakes the watcher, which polls at once; MADs confirm.
    auto stopped = std::chrono::steady_clock::now();
    w.sim->stop_opensm();
    REQUIRE(d.wait_log("\"kind\":\"sm_no_master\"", 1, 10s));
    auto detected = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - stopped);
    std::cout << "sm watch lab: OpenSM stopped (Exiting SM) -> no master in " << detected.count()
              << " ms\n";
    CHECK(detected < 5s);
    CHECK(d.log().find("SM watcher polls now") != std::string::npos);
    sm = w.wait_sm(
        [](const json& j) {
          return j.value("status", "") == "no_master" && log_state(j) == "exiting";
        },
        5s);
    CHECK(log_state(sm) == "exiting");
    CHECK(sm["status"] == "no_master");
    std::string exited_at = sm["log_state"].value("at", "");
    int port = web_port(d);
    REQUIRE(port > 0);
    auto h = http_call(port, "GET", "/api/v1/health", "");
    CHECK(h.body["subnet_manager"]["log_state"]["state"] == "exiting");
    CHECK(h.body["subnet_manager"]["log_state"]["at"] == exited_at);

    // OpenSM again: DISCOVERING, MASTER; log_state follows with the line's time.
    REQUIRE(w.sim->restart_opensm(60s));
    REQUIRE(d.wait_log("\"kind\":\"sm_master\"", 1, 15s));
    sm = w.wait_sm([](const json& j) { return has_master(j) && log_state(j) == "master"; }, 10s);
    CHECK(log_state(sm) == "master");
    CHECK(sm["log_state"].value("at", "") > exited_at);
    states = logged_states(w.sim->opensm_log());
    REQUIRE(states.size() == 5);  // discovering, master, exiting, discovering, master
    CHECK(states[2] == "OpenSM state exiting: Exiting SM");
    wait_query(
        "events", w.config, {},
        [&](const json& l) {
          size_t n = 0;
          for (const auto& e : l) n += e.value("kind", "") == "sm_state";
          return n >= states.size();
        },
        10s);
    CHECK(sm_states(w.config) == states);
    CHECK(d.stop() == 0);
  }
  // A daemon restart: the log is not read twice (each state line stored once) and the
  // logged state is restored from what the last run stored.
  Daemon d2 = started(w.daemon("daemon2.log"), "\"counter sweep\"", 2, 30s);
  INFO(d2.log());
  json sm = w.wait_sm(has_master, 10s);
  CHECK(log_state(sm) == "master");
  CHECK(sm_states(w.config) == states);
  CHECK(logged_states(w.sim->opensm_log()) == states);
}
