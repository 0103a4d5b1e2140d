// Integration: incidents on real ibsim + OpenSM with `ibwarden run` in enforce mode and the
// shipped rules. A spine made to reboot five times in a minute (ibsim `Unlink "spine002"` /
// `ReLink "spine002"`, every port down then up) while one leaf uplink elsewhere flaps five
// times: ibwarden must report one switch_reboot incident for the spine, neither disable nor
// order a repair of any of the spine's links, and still disable the flapping cable.
// Fabric: 2 leaves x 4 spines, 2 hosts per leaf; leafNNN ports 1-2 go to hosts, 3-6 to
// spine001-004. The SM runs on the host behind leaf001/1.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"

using nlohmann::json;
using namespace ibw::test;
using namespace std::chrono_literals;

namespace {

struct IncidentLab {
  ibw::lab::Lab lab = ibw::lab::two_tier_lab(2, 4, 2);
  std::unique_ptr<ibw::lab::SimLab> sim;
  std::string config;

  IncidentLab() {
    sim = std::make_unique<ibw::lab::SimLab>(ibw::lab::SimLabOptions{ibw::lab::to_ibsim_net(lab)});
    std::string d = sim->dir();
    std::ofstream(d + "/plan.csv") << ibw::lab::plan_csv(lab);
    config = d + "/ibwarden.yaml";
    remedy_lab_config("enforce")
        .set("opensm", "rediscover_delay", "200ms")
        .set("actions", "max_disabled_per_switch", "10")
        .set("web", "listen", "127.0.0.1:0")  // no tokens file: anonymous viewers, read-only
        .write(config);
  }
  Daemon daemon() {
    return Daemon({config, sim->dir(), sim->sockname(), sim->dir() + "/daemon.log"});
  }
};

size_t count_events(const std::string& config, const std::string& port, const std::string& kind,
                    const std::string& node) {
  size_t n = 0;
  for (const auto& e : query_json("events", config, {"--port", port}))
    n += e["kind"] == kind && e["node"] == node;
  return n;
}

}  // namespace

TEST_CASE("incident lab: a rebooting spine is one incident while a flapping cable is disabled",
          "[integration][incidents]") {
  IncidentLab w;
  Daemon d = w.daemon();
  d.start();
  REQUIRE(d.wait_log("fabric discovered", 1, 30s));
  // Five reboots of spine002 interleaved with five flaps of leaf002/3 (to spine001).
  for (size_t i = 1; i <= 5; ++i) {
    w.sim->console("Unlink \"spine002\"");
    w.sim->console("Unlink \"leaf002\"[3]");
    wait_query(
        "events", w.config, {"--port", "leaf002/3"},
        [&](const json&) {
          return count_events(w.config, "leaf002/3", "link_down", "leaf002") >= i;
        },
        10s);
    std::this_thread::sleep_for(1s);
    w.sim->console("ReLink \"spine002\"");
    w.sim->console("ReLink \"leaf002\"[3]");
    wait_query(
        "events", w.config, {"--port", "leaf002/3"},
        [&](const json&) { return count_events(w.config, "leaf002/3", "link_up", "leaf002") >= i; },
        10s);
    std::this_thread::sleep_for(1s);
  }
  INFO(d.log());
  auto decisions = wait_decided(w.config, 1, 20s);
  INFO(decisions.dump(1));
  json incidents = wait_query(
      "incidents", w.config, {},
      [](const json& j) {
        for (const auto& i : j)
          if (i["kind"] == "switch_reboot") return true;
        return false;
      },
      10s);
  INFO(incidents.dump(1));
  std::set<std::string> spine_ports;  // "node/port" of both ends of every spine002 link
  size_t reboots = 0;
  for (const auto& i : incidents) {
    if (i["kind"] != "switch_reboot") continue;
    ++reboots;
    CHECK(i["node"] == "spine002");
    CHECK(i["events"].get<int>() >= 5);
    for (const auto& p : i["ports"]) spine_ports.insert(p.get<std::string>());
  }
  CHECK(reboots == 1);
  CHECK(spine_ports.count("spine002/1"));
  CHECK(spine_ports.count("leaf002/4"));
  // The flapping cable is disabled; nothing on the spine's links is.
  size_t flap_disables = 0;
  for (const auto& dec : decisions) {
    std::string where =
        dec["node"].get<std::string>() + "/" + std::to_string(dec["port"].get<int>());
    INFO(where << " " << verdict_of(dec));
    CHECK(!spine_ports.count(where));
    bool flapping = where == "leaf002/3" || where == "spine001/2";
    if (flapping && dec["rule"] == "link_flap" && dec["status"] == "executed") ++flap_disables;
  }
  CHECK(flap_disables == 1);
  // One work order names the switch, none names a spine002 cable.
  size_t switch_orders = 0;
  for (const auto& o : wait_query(
           "workorders", w.config, {},
           [](const json& j) {
             for (const auto& o : j)
               if (o["a"] == "spine002") return true;
             return false;
           },
           10s)) {
    INFO("order " << o.dump());
    if (o["a"] == "spine002") {
      ++switch_orders;
      CHECK(o["rule"].get<std::string>().rfind("incident_switch_", 0) == 0);
      CHECK(o["b"] == "");
    } else {
      CHECK(!spine_ports.count(o["a"].get<std::string>()));
      CHECK(!spine_ports.count(o["b"].get<std::string>()));
    }
  }
  CHECK(switch_orders == 1);
  // The daemon's live tracker (GET /api/v1/incidents) saw the same incident as the command
  // replaying the store, and /metrics counts it.
  int port = web_port(d);
  REQUIRE(port != 0);
  HttpResult api = http_call(port, "GET", "/api/v1/incidents?since=1h", "");
  REQUIRE(api.status == 200);
  INFO(api.body.dump(1));
  size_t live = 0;
  for (const auto& i : api.body)
    if (i["kind"] == "switch_reboot") {
      ++live;
      CHECK(i["node"] == "spine002");
      CHECK(i["cycles"].get<int>() == 5);
      CHECK(i["state"] == "active");
    }
  CHECK(live == 1);
  // The scrape is text (http_call reads JSON): stock curl.
  auto scrape = run_cmd({"curl", "-s", "http://127.0.0.1:" + std::to_string(port) + "/metrics"});
  CHECK(
      scrape.out.find("ibwarden_incidents_opened_total{fabric=\"lab\",kind=\"switch_reboot\"} 1") !=
      std::string::npos);
  CHECK(d.stop() == 0);
}
