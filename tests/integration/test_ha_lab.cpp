// Integration: two `ibwarden run` daemons watching one ibsim + OpenSM fabric through one real
// PostgreSQL (tests/lab/pg_server.h), with leader leases (ha: lease 3s, renew 1s). Only the
// holder tails the OpenSM log, polls and acts; the other stands by. Proofs of issue 17:
//  - kill -9 of the leader during a fault storm: the standby takes over within the lease plus
//    a renewal, disables the flapping link, and every trap line of the storm is one event
//    (none lost, none twice), with one work order for the link;
//  - SIGSTOP/SIGCONT: the old leader, resumed after losing the lease, is fenced and writes
//    nothing (no event, decision or work order), and steps down to standby.
// Fabric as in the remedy lab: 2 leaves x 4 spines, 2 hosts per leaf; leaf002/3 -> spine001/2.
#include <catch2/catch.hpp>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/pg_server.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using nlohmann::json;
using namespace ibw::test;
using namespace std::chrono_literals;

namespace ha_lab {

constexpr unsigned kTid0 = 0x1000;  // TID of trap line 0 (see traps())

// The stored trap events of the injected lines, by their TID (OpenSM's own traps have others);
// each line must be there exactly once.
std::multiset<unsigned> trap_tids(const json& events) {
  std::multiset<unsigned> out;
  for (const auto& e : events) {
    if (e.value("kind", "") != "trap") continue;
    std::string m = e.value("message", "");
    auto at = m.find("TID:0x");
    if (at == std::string::npos) continue;
    unsigned tid = static_cast<unsigned>(std::stoull(m.substr(at + 6, 16), nullptr, 16));
    if (tid >= kTid0 && tid < kTid0 + 1000) out.insert(tid);
  }
  return out;
}

struct HaLab {
  ibw::lab::Lab lab;
  std::unique_ptr<ibw::lab::SimLab> sim;
  std::string url;
  std::string config_a, config_b;

  HaLab() {
    lab = ibw::lab::two_tier_lab(2, 4, 2);
    sim = std::make_unique<ibw::lab::SimLab>(ibw::lab::SimLabOptions{ibw::lab::to_ibsim_net(lab)});
    url = ibw::lab::pg_test_database("ha");
    std::string d = sim->dir();
    std::ofstream(d + "/plan.csv") << ibw::lab::plan_csv(lab);
    config_a = write_config("a");
    config_b = write_config("b");
  }
  std::string write_config(const std::string& name) {
    std::string path = sim->dir() + "/" + name + ".yaml";
    return remedy_lab_config()
        .set("opensm", {{"rediscover_delay", "200ms"}, {"read_existing", "true"}})
        .unset("store", "path")
        .set("store", {{"backend", "postgres"}, {"url", "\"" + url + "\""}})
        .set("ha", {{"lease", "3s"}, {"renew", "1s"}, {"instance", name}})
        .set("actions", "max_disabled_per_switch", "2")
        .set("workorders", "webhook", "null")
        .write(path);
  }
  Daemon daemon(const std::string& config, const std::string& log_name) {
    return Daemon({config, sim->dir(), sim->sockname(), sim->dir() + "/" + log_name});
  }
  // Appends trap-129 lines i in [from, to) to the OpenSM log, as OpenSM would.
  void traps(int from, int to) {
    std::ofstream log(sim->dir() + "/opensm.log", std::ios::app);
    for (int i = from; i < to; ++i) log << trap129_line(i, 10, kTid0 + i);
  }
  json status(const std::string& config) {
    auto r = run_cmd({IBW_BINARY, "status", "--config", config, "--format", "json"});
    INFO(r.out << r.err);
    REQUIRE(r.status == 0);
    return json::parse(r.out);
  }
  std::string phys_state(const std::string& dr_path, int port) {
    auto r = sim->run({"smpquery", "-D", "portinfo", dr_path, std::to_string(port)}, "", 60s);
    REQUIRE(r.status == 0);
    auto at = r.out.find("PhysLinkState:");
    REQUIRE(at != std::string::npos);
    auto eol = r.out.find('\n', at);
    auto line = r.out.substr(at, eol - at);
    return line.substr(line.find_last_of('.') + 1);
  }
};

size_t count_kind(const json& events, const std::string& kind, const std::string& node) {
  size_t n = 0;
  for (const auto& e : events) n += e["kind"] == kind && e["node"] == node;
  return n;
}

// Flaps leaf002/3 once (Unlink, then ReLink) and waits for both events in the store.
void flap(HaLab& w, const std::string& config, size_t i) {
  auto kinds = [&](const std::string& kind) {
    return count_kind(query_json("events", config, {"--port", "leaf002/3"}), kind, "leaf002");
  };
  w.sim->console("Unlink \"leaf002\"[3]");
  wait_query(
      "events", config, {"--port", "leaf002/3"},
      [&](const json&) { return kinds("link_down") >= i; }, 15s);
  w.sim->console("ReLink \"leaf002\"[3]");
  wait_query(
      "events", config, {"--port", "leaf002/3"}, [&](const json&) { return kinds("link_up") >= i; },
      15s);
}

bool flap_decided(const json& j) {
  for (const auto& d : j)
    if (d["rule"] == "link_flap" && d["status"] != "pending") return true;
  return false;
}

// Flaps leaf002/3 until its 5th down/up, as the remedy lab does: the 5th down completes five
// cycles, so the disable may come before the cable is back; then it stays out (ibsim's ReLink
// would re-enable a Disabled port, which a real port's PHY does not do).
void flap_to_five(HaLab& w, const std::string& config, size_t from) {
  auto kinds = [&](const std::string& kind) {
    return count_kind(query_json("events", config, {"--port", "leaf002/3"}), kind, "leaf002");
  };
  for (size_t i = from; i <= 5; ++i) {
    w.sim->console("Unlink \"leaf002\"[3]");
    wait_query(
        "events", config, {"--port", "leaf002/3"},
        [&](const json&) { return kinds("link_down") >= i; }, 15s);
    if (i == 5 && flap_decided(wait_query("decisions", config, {}, flap_decided, 3s))) return;
    w.sim->console("ReLink \"leaf002\"[3]");
    wait_query(
        "events", config, {"--port", "leaf002/3"},
        [&](const json&) { return kinds("link_up") >= i; }, 15s);
  }
}

// The decisions of `config` once the flap rule has executed a disable (30 s at most).
json wait_flap_executed(const std::string& config) {
  return wait_query(
      "decisions", config, {},
      [](const json& j) {
        for (const auto& d : j)
          if (d["rule"] == "link_flap" && d["status"] == "executed") return true;
        return false;
      },
      30s);
}

// Starts a and waits until it holds the lease and has discovered the fabric, then starts b and
// waits until it stands by.
// The lab's daemons a (config_a, a.log) and b (config_b, b.log): a started and leading, then b
// started and standing by.
std::pair<Daemon, Daemon> leader_and_standby(HaLab& w) {
  Daemon a = w.daemon(w.config_a, "a.log");
  Daemon b = w.daemon(w.config_b, "b.log");
  a.start();
  REQUIRE(a.wait_log("lease taken", 1, 30s));
  REQUIRE(a.wait_log("fabric discovered\"", 1, 30s));
  b.start();
  REQUIRE(b.wait_log("fabric's lease held by another instance", 1, 30s));
  return {std::move(a), std::move(b)};
}

}  // namespace ha_lab

using namespace ha_lab;

TEST_CASE("ha lab: kill -9 of the leader in a fault storm - the standby takes over and acts",
          "[integration][ha]") {
  HaLab w;
  auto [a, b] = leader_and_standby(w);
  CHECK(w.status(w.config_a)["role"] == "leader");
  CHECK(w.status(w.config_b)["role"] == "standby");
  CHECK(w.status(w.config_b)["holder"] == "a");

  // The storm: trap lines keep coming while the link flaps; the leader dies in the middle.
  w.traps(0, 40);
  for (size_t i = 1; i <= 3; ++i) flap(w, w.config_a, i);
  w.traps(40, 80);
  a.signal(SIGKILL);
  auto killed = std::chrono::steady_clock::now();
  w.traps(80, 120);
  INFO(b.log());
  REQUIRE(b.wait_log("lease taken", 1, 10s));
  double takeover_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  CHECK(takeover_s <= 3.0 + 1.0 + 1.0);  // lease + one renewal (+ 1 s for the log poll)
  CHECK(w.status(w.config_b)["role"] == "leader");
  w.traps(120, 160);
  // The 4th and 5th flap, seen by the new leader: 5 in the window, the link is disabled.
  flap_to_five(w, w.config_b, 4);
  auto decisions = wait_flap_executed(w.config_b);
  size_t executed = 0;
  std::string node;
  int port = 0;
  for (const auto& d : decisions)
    if (d["rule"] == "link_flap" && d["status"] == "executed") {
      ++executed;
      node = d["node"], port = d["port"];
    }
  INFO("decisions: " << decisions.dump());
  INFO("b: " << b.log());
  REQUIRE(executed == 1);
  CHECK(((node == "leaf002" && port == 3) || (node == "spine001" && port == 2)));
  CHECK(w.phys_state(node == "leaf002" ? "0,1,4,2" : "0,1,3", port) == "Disabled");

  // Every trap line of the storm is one event: none lost across the kill, none twice.
  auto events = wait_query(
      "events", w.config_b, {}, [](const json& j) { return trap_tids(j).size() >= 160; }, 20s);
  auto traps = trap_tids(events);
  CHECK(traps.size() == 160);
  CHECK(std::set<unsigned>(traps.begin(), traps.end()).size() == 160);
  CHECK(count_kind(events, "link_down", "leaf002") >= 5);
  // One work order for the link, never two.
  auto orders = query_json("workorders", w.config_b, {});
  size_t for_link = 0;
  for (const auto& o : orders) for_link += o["cable_id"] == "C-leaf002-3";
  CHECK(for_link == 1);
  CHECK(b.stop() == 0);
}

TEST_CASE("ha lab: a paused leader resumed after losing the lease is fenced and writes nothing",
          "[integration][ha]") {
  HaLab w;
  auto [a, b] = leader_and_standby(w);
  w.traps(0, 20);
  wait_query(
      "events", w.config_a, {}, [](const json& j) { return trap_tids(j).size() >= 20; }, 15s);

  a.signal(SIGSTOP);
  INFO(b.log());
  REQUIRE(b.wait_log("lease taken", 1, 10s));
  // While a sleeps: new trap lines (a's tailer is behind them) and 5 flaps, acted on by b.
  w.traps(20, 60);
  flap_to_five(w, w.config_b, 1);
  auto decided_by_b = wait_flap_executed(w.config_b);
  auto events_before = query_json("events", w.config_b, {});
  auto orders_before = query_json("workorders", w.config_b, {});
  REQUIRE(trap_tids(events_before).size() == 60);

  size_t asleep_at = a.log().size();
  a.signal(SIGCONT);  // a wakes with a stale lease, queued work and unread log lines
  INFO(a.log());
  REQUIRE(a.wait_log("stepping down to standby", 1, 15s));
  REQUIRE(a.wait_log("fabric's lease held by another instance", 1, 15s));
  std::this_thread::sleep_for(2s);
  // a stored nothing after waking: the daemon logs every stored event ("event" with its id),
  // every decision and every counter batch it writes; b goes on writing its own.
  std::string woke = a.log().substr(asleep_at);
  CHECK(woke.find("\"msg\":\"event\"") == std::string::npos);
  CHECK(woke.find("\"msg\":\"decision\"") == std::string::npos);
  CHECK(woke.find("\"msg\":\"counters stored\"") == std::string::npos);
  CHECK(woke.find("\"msg\":\"lease taken") == std::string::npos);
  auto events_after = query_json("events", w.config_b, {});
  auto traps = trap_tids(events_after);
  CHECK(traps.size() == 60);  // the lines a read again after waking are not stored twice
  CHECK(std::set<unsigned>(traps.begin(), traps.end()).size() == 60);
  CHECK(query_json("decisions", w.config_b, {}).size() == decided_by_b.size());
  CHECK(query_json("workorders", w.config_b, {}) == orders_before);
  CHECK(w.status(w.config_a)["role"] == "standby");
  CHECK(w.status(w.config_b)["role"] == "leader");
  // b still acts as the only leader: it stays the holder and a wrote nothing after waking.
  CHECK(a.log().find("port action not sent") == std::string::npos);
  CHECK(a.stop() == 0);
  CHECK(b.stop() == 0);
}
