// Integration: auto-disable of bad links on real ibsim + OpenSM with `ibwarden run` in
// enforce mode (and dry-run), using the shipped config/rules.yaml. Faults are injected
// through the ibsim console (PerformanceSet, Unlink/ReLink); what ibwarden decided is read
// with `ibwarden decisions|workorders`, and the port state it changed is read back over MADs
// (PortInfo Get through ibw-bench-port_control under umad2sim), independently of ibwarden.
// Fabric: 2 leaves x 4 spines, 2 hosts per leaf; leafNNN ports 1-2 go to hosts, 3-6 to
// spine001-004. The SM runs on the host behind leaf001/1.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "store/store.h"
#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using nlohmann::json;
using namespace ibw::test;
using namespace std::chrono_literals;

namespace remedy_lab {

// Directed routes from the test's host (node0001 on leaf001/1): leaf001, and leaf002 through
// spine002 (leaf001/4 -> spine002/1, spine002/2 -> leaf002).
const std::string kLeaf001 = "0,1";
const std::string kLeaf002 = "0,1,4,2";

struct Options {
  std::string mode = "enforce";
  std::string webhook;  // URL or empty
  int max_disabled_per_switch = 2;
};

struct RemedyLab {
  ibw::lab::Lab lab;
  std::unique_ptr<ibw::lab::SimLab> sim;
  std::string config;

  explicit RemedyLab(const Options& o = {}) {
    lab = ibw::lab::two_tier_lab(2, 4, 2);
    sim = std::make_unique<ibw::lab::SimLab>(ibw::lab::SimLabOptions{ibw::lab::to_ibsim_net(lab)});
    std::string d = sim->dir();
    std::ofstream(d + "/plan.csv") << ibw::lab::plan_csv(lab);
    config = d + "/ibwarden.yaml";
    remedy_lab_config(o.mode)
        .set("opensm", "rediscover_delay", "200ms")
        .set("actions", "max_disabled_per_switch", std::to_string(o.max_disabled_per_switch))
        .set("workorders", "webhook", o.webhook.empty() ? "null" : o.webhook)
        .write(config);
  }
  Daemon daemon(const std::string& log_name = "daemon.log") {
    return Daemon({config, sim->dir(), sim->sockname(), sim->dir() + "/" + log_name});
  }
  // PhysLinkState of a port as the stock `smpquery -D portinfo PATH PORT` reads it over a
  // directed route (independent of ibwarden and of the SM's routes): "LinkUp", "Disabled"...
  std::string phys_state(const std::string& dr_path, int port) {
    auto r = sim->run({"smpquery", "-D", "portinfo", dr_path, std::to_string(port)}, "", 60s);
    INFO("smpquery -D portinfo " << dr_path << " " << port << ": " << r.out << r.err);
    REQUIRE(r.status == 0);
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("PhysLinkState:", 0) == 0) return line.substr(line.find_last_of('.') + 1);
    FAIL("no PhysLinkState in smpquery output");
    return "";
  }
  // `ibwarden CMD ...` under umad2sim (the manual path needs SMPs).
  ibw::lab::RunResult ibwarden(std::vector<std::string> args) {
    args.insert(args.begin(), IBW_BINARY);
    return sim->run(args, "", 60s);
  }
};

json decisions_for(const json& all, const std::string& rule) {
  json out = json::array();
  for (const auto& d : all)
    if (d["rule"] == rule) out.push_back(d);
  return out;
}

size_t count_status(const json& list, const std::string& status) {
  size_t n = 0;
  for (const auto& d : list) n += d["status"] == status;
  return n;
}

// Sweeps logged strictly between two log times (ISO strings compare in time order).
int sweeps_between(const std::string& log, const std::string& from, const std::string& to) {
  std::istringstream in(log);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("\"counter sweep\"") == std::string::npos) continue;
    auto j = json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    std::string ts = j.value("ts", "");
    n += ts > from && ts < to;
  }
  return n;
}

std::string now_iso() {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  std::time_t s = us / 1000000;
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char frac[16];
  std::snprintf(frac, sizeof frac, ".%06lldZ", static_cast<long long>(us % 1000000));
  return std::string(buf) + frac;
}

// The webhook receiver (tests/lab/webhook_receiver.py) in the background.
struct Receiver {
  pid_t pid = -1;
  std::string out, port_file;
  int port = 0;
  Receiver(const std::string& dir, int fail_first) {
    out = dir + "/webhook.jsonl", port_file = dir + "/webhook.port";
    std::string script = std::string(IBW_SOURCE_DIR) + "/tests/lab/webhook_receiver.py";
    std::string fails = std::to_string(fail_first);
    pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      execlp("python3", "python3", script.c_str(), "--port", "0", "--out", out.c_str(),
             "--port-file", port_file.c_str(), "--fail-first", fails.c_str(), nullptr);
      _exit(127);
    }
    for (int i = 0; i < 100 && !port; ++i) {
      std::ifstream in(port_file);
      in >> port;
      if (!port) std::this_thread::sleep_for(50ms);
    }
    REQUIRE(port != 0);
  }
  ~Receiver() {
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/orders"; }
  std::vector<json> posts() const {
    std::vector<json> v;
    std::ifstream in(out);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) v.push_back(json::parse(line));
    return v;
  }
};

}  // namespace remedy_lab

using namespace remedy_lab;

TEST_CASE("remedy lab: a symbol-error jump is disabled within two sweeps - a stray error is not",
          "[integration][remedy]") {
  RemedyLab w;
  Daemon d = started(w.daemon(), "\"counter sweep\"", 2, 30s);
  std::string injected = now_iso();
  w.sim->console("PerformanceSet \"leaf001\"[3] PortCounters.SymbolErrorCounter=5000");
  w.sim->console("PerformanceSet \"leaf002\"[4] PortCounters.SymbolErrorCounter=1");
  const json dec = only_decision(w.config, d);
  INFO(d.log());
  CHECK(verdict_of(dec) == "symbol_ber disable executed");
  CHECK(dec["node"] == "leaf001");
  CHECK(dec["port"] == 3);
  CHECK(dec["peer_node"] == "spine001");
  CHECK(dec["cable_id"] == "C-leaf001-3");
  CHECK(dec["evidence"]["counters"]["SymbolErrorCounter"] == 5000);
  CHECK(dec["evidence"]["readback"]["after"]["phys_state"] == "Disabled");
  CHECK(sweeps_between(d.log(), injected, dec["time"]) <= 2);

  // Confirmed over MADs by a reader independent of ibwarden.
  CHECK(w.phys_state(kLeaf001, 3) == "Disabled");
  CHECK(w.phys_state(kLeaf002, 4) == "LinkUp");  // the stray error: untouched

  auto orders = query_json("workorders", w.config);
  REQUIRE(orders.size() == 1);
  CHECK(orders[0]["cable_id"] == "C-leaf001-3");
  CHECK(orders[0]["status"] == "open");
  CHECK(orders[0]["a"] == "leaf001/3");
  CHECK(orders[0]["b"] == "spine001/1");
  CHECK(orders[0]["locations"].size() == 2);
  CHECK(orders[0]["offences"] == 1);
  CHECK(orders[0]["port_disabled"] == true);

  // Three more sweeps: still exactly one decision (the stray error and the known link stay
  // quiet).
  REQUIRE(d.wait_log("\"counter sweep\"", sweeps_between(d.log(), "", now_iso()) + 3, 20s));
  CHECK(query_json("decisions", w.config).size() == 1);

  // The technician's fix: `ibwarden enable` re-enables it and resolves the order.
  auto r = w.ibwarden({"enable", "--config", w.config, "--port", "leaf001/3", "--reason",
                       "cleaned and reseated", "--format", "json"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(json::parse(r.out)["status"] == "executed");
  CHECK(w.phys_state(kLeaf001, 3) != "Disabled");
  orders = query_json("workorders", w.config);
  INFO("orders: " << orders.dump() << "\ndaemon log after the enable:\n" << d.log());
  CHECK(orders[0]["status"] == "resolved");
  // Port actions must not keep SMP agents registered: re-discovery goes on working.
  CHECK(d.log().find("discovery failed") == std::string::npos);
  CHECK(d.stop() == 0);
}

TEST_CASE("remedy lab: a link flapped 5 times in a minute is disabled", "[integration][remedy]") {
  RemedyLab w;
  Daemon d = started(w.daemon(), "fabric discovered", 1, 30s);
  auto count = [&](const std::string& kind) {
    size_t n = 0;
    for (const auto& e : query_json("events", w.config, {"--port", "leaf002/3"}))
      n += e["kind"] == kind && e["node"] == "leaf002";
    return n;
  };
  for (size_t i = 1; i <= 5; ++i) {
    w.sim->console("Unlink \"leaf002\"[3]");
    wait_query(
        "events", w.config, {"--port", "leaf002/3"},
        [&](const json&) { return count("link_down") >= i; }, 10s);
    // The 5th down completes 5 cycles: the link check may have the disable done before the
    // cable comes back. Then it stays out (ibsim's ReLink would re-enable a Disabled port,
    // which a real port's PHY does not do when a cable is re-seated).
    if (i == 5) {
      auto early = wait_query(
          "decisions", w.config, {},
          [](const json& j) { return decided(j) && !decisions_for(j, "link_flap").empty(); }, 3s);
      if (!decisions_for(early, "link_flap").empty()) break;
    }
    w.sim->console("ReLink \"leaf002\"[3]");
    wait_query(
        "events", w.config, {"--port", "leaf002/3"},
        [&](const json&) { return count("link_up") >= i; }, 10s);
  }
  INFO(d.log());
  REQUIRE(count("link_down") == 5);
  auto decisions = wait_decided(w.config, 1, 15s);
  auto flaps = decisions_for(decisions, "link_flap");
  REQUIRE(flaps.size() == 1);
  CHECK(flaps[0]["status"] == "executed");
  CHECK(flaps[0]["evidence"]["flaps"].get<int>() >= 5);
  CHECK(flaps[0]["evidence"]["link_down_times"].size() >= 5);
  // Either end of the link may be the one disabled (both are switches); read it back.
  std::string node = flaps[0]["node"];
  int port = flaps[0]["port"];
  CHECK(((node == "leaf002" && port == 3) || (node == "spine001" && port == 2)));
  // The reason names the confirming peer as the fabric does (daemon::name_port_labels).
  const std::string reason = flaps[0]["reason"];
  CHECK(reason.find(std::string("confirmed on peer ") +
                    (node == "leaf002" ? "spine001/2" : "leaf002/3")) != std::string::npos);
  CHECK(w.phys_state(node == "leaf002" ? kLeaf002 : "0,1,3", port) == "Disabled");
  // Discovery goes on after the disable (SMP agents are released): a later, unrelated link
  // change is still seen. Counting discoveries instead would race with the disable, which
  // may land while the link is unlinked (no trap) or after the ReLink (one more trap).
  w.sim->console("Unlink \"leaf001\"[6]");
  auto down = [](const json& j) {
    for (const auto& e : j)
      if (e["kind"] == "link_down" && e["node"] == "leaf001") return true;
    return false;
  };
  REQUIRE(down(wait_query("events", w.config, {"--port", "leaf001/6"}, down, 15s)));
  CHECK(d.log().find("discovery failed") == std::string::npos);
  CHECK(d.stop() == 0);
}

TEST_CASE("remedy lab: faults on every uplink of a leaf - the guard limits the disables",
          "[integration][remedy]") {
  RemedyLab w;
  Daemon d = started(w.daemon(), "\"counter sweep\"", 2, 30s);
  for (int port = 3; port <= 6; ++port)
    w.sim->console("PerformanceSet \"leaf001\"[" + std::to_string(port) +
                   "] PortCounters.SymbolErrorCounter=5000");
  auto decisions = wait_decided(w.config, 4);
  INFO(d.log());
  REQUIRE(decisions.size() == 4);
  CHECK(count_status(decisions, "executed") == 2);
  CHECK(count_status(decisions, "refused") == 2);
  int disabled = 0;
  for (int port = 3; port <= 6; ++port) disabled += w.phys_state(kLeaf001, port) == "Disabled";
  CHECK(disabled == 2);
  auto orders = query_json("workorders", w.config);
  REQUIRE(orders.size() == 4);
  int human = 0;
  for (const auto& o : orders) {
    human += o["needs_human"] == true;
    if (o["needs_human"] == true) CHECK(o["summary"].get<std::string>().find("needs a human") == 0);
  }
  CHECK(human == 2);
  CHECK(d.stop() == 0);
}

TEST_CASE("remedy lab: dry-run changes nothing and a restart adds no duplicates",
          "[integration][remedy]") {
  Options o;
  o.mode = "dry-run";
  RemedyLab w(o);
  {
    Daemon d = started(w.daemon("daemon1.log"), "\"counter sweep\"", 2, 30s);
    w.sim->console("PerformanceSet \"leaf001\"[3] PortCounters.SymbolErrorCounter=5000");
    const json dec = only_decision(w.config, d);
    INFO(d.log());
    CHECK(dec["status"] == "dry_run");
    CHECK(w.phys_state(kLeaf001, 3) == "LinkUp");  // still LinkUp
    CHECK(d.stop() == 0);
  }
  {
    Daemon d = started(w.daemon("daemon2.log"), "\"counter sweep\"", 2, 30s);
    // More errors on the same link while its order is open: no new decision or order.
    w.sim->console("PerformanceSet \"leaf001\"[3] PortCounters.SymbolErrorCounter=9000");
    REQUIRE(d.wait_log("\"counter sweep\"", 5, 30s));
    INFO(d.log());
    CHECK(query_json("decisions", w.config).size() == 1);
    auto orders = query_json("workorders", w.config);
    CHECK(orders.size() == 1);
    CHECK(w.phys_state(kLeaf001, 3) == "LinkUp");
    CHECK(d.stop() == 0);
  }
}

TEST_CASE("remedy lab: the webhook gets each order change exactly once across a restart",
          "[integration][remedy]") {
  std::string tmpl = (std::filesystem::temp_directory_path() / "ibw-webhook-XXXXXX").string();
  REQUIRE(mkdtemp(tmpl.data()) != nullptr);
  struct Cleanup {
    std::string dir;
    ~Cleanup() { std::filesystem::remove_all(dir); }
  } cleanup{tmpl};
  auto rx = std::make_unique<Receiver>(tmpl, /*fail_first=*/1);
  Options o;
  o.webhook = rx->url();
  RemedyLab w(o);
  {
    Daemon d = started(w.daemon("daemon1.log"), "\"counter sweep\"", 2, 30s);
    w.sim->console("PerformanceSet \"leaf002\"[5] PortCounters.SymbolErrorCounter=5000");
    REQUIRE(d.wait_log("work orders delivered to the webhook", 1, 30s));  // after one 500
    CHECK(d.stop() == 0);
  }
  // While the daemon is down the technician re-enables the link (order v2 is queued).
  auto r =
      w.ibwarden({"enable", "--config", w.config, "--port", "leaf002/5", "--reason", "reseated"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  {
    Daemon d = started(w.daemon("daemon2.log"), "work orders delivered to the webhook", 1, 30s);
    CHECK(d.stop() == 0);
  }
  std::map<std::string, int> delivered;
  int failed = 0;
  for (const auto& p : rx->posts()) {
    if (p.contains("failed")) {
      ++failed;
      continue;
    }
    delivered[p["headers"]["idempotency-key"].get<std::string>()]++;
    CHECK(p["body"]["cable_id"] == "C-leaf002-5");
  }
  CHECK(failed == 1);
  REQUIRE(delivered.size() == 2);  // v1 (open) and v2 (resolved)
  for (const auto& [key, n] : delivered) CHECK(n == 1);
  CHECK(delivered.count("1-v1") == 1);
  CHECK(delivered.count("1-v2") == 1);
}

TEST_CASE("remedy lab: disables left pending by a crash are reconciled from the ports at start",
          "[integration][remedy]") {
  RemedyLab w;
  auto guid_of = [&](const std::string& name) {
    for (const auto& n : w.lab.nodes)
      if (n.name == name) return n.guid;
    FAIL("no node " << name);
    return uint64_t{0};
  };
  // What a kill -9 while the SMP was on the wire leaves: the intent stored, its outcome not.
  // leaf001/3 did go down (disabled with the stock ibportstate); leaf002/4 did not.
  auto store = ibw::store::Store::open(w.sim->dir() + "/ibwarden.db");
  auto intend = [&](const std::string& node, int port, const std::string& peer, int peer_port) {
    ibw::core::DecisionRecord d;
    d.time_us = 1'800'000'000'000'000;
    d.rule = "manual", d.action = "disable", d.status = "pending";
    d.node_guid = guid_of(node), d.node = node, d.port = port;
    d.peer_guid = guid_of(peer), d.peer_node = peer, d.peer_port = peer_port;
    d.reason = "operator: test; disable requested, outcome not yet recorded";
    d.link_key = ibw::core::link_key(d.node_guid, port, d.peer_guid, peer_port);
    store->write_guarded([&]() -> std::optional<ibw::store::WriteBatch> {
      ibw::store::WriteBatch b;
      b.decisions.push_back(d);
      b.disabled_add.push_back({d.node_guid, port, d.time_us, 0, d.link_key});
      return b;
    });
  };
  intend("leaf001", 3, "spine001", 1);
  intend("leaf002", 4, "spine002", 2);
  store.reset();
  auto r = w.sim->run({"ibportstate", "-D", kLeaf001, "3", "disable"}, "", 60s);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  REQUIRE(w.phys_state(kLeaf001, 3) == "Disabled");
  auto before = query_json("decisions", w.config);
  REQUIRE(count_status(before, "pending") == 2);  // `ibwarden decisions` shows them as such

  Daemon d = started(w.daemon(), "pending port action reconciled", 2, 60s);
  INFO(d.log());
  auto decisions = query_json("decisions", w.config);
  REQUIRE(decisions.size() == 2);  // completed in place: one decision per port
  CHECK(count_status(decisions, "pending") == 0);
  for (const auto& dec : decisions) {
    CHECK(dec["reason"].get<std::string>().find("reconciled at start") != std::string::npos);
    if (dec["node"] == "leaf001") {
      CHECK(dec["status"] == "executed");
      CHECK(dec["evidence"]["reconciled"]["readback"]["phys_state"] == "Disabled");
    } else {
      CHECK(dec["status"] == "failed");
      CHECK(dec["evidence"]["reconciled"]["readback"]["phys_state"] == "LinkUp");
    }
  }
  auto orders = query_json("workorders", w.config);
  REQUIRE(orders.size() == 1);  // the technician's order for the port that is down
  CHECK(orders[0]["cable_id"] == "C-leaf001-3");
  CHECK(orders[0]["port_disabled"] == true);
  // Reconciling read the fabric and changed nothing on it.
  CHECK(w.phys_state(kLeaf001, 3) == "Disabled");
  CHECK(w.phys_state(kLeaf002, 4) == "LinkUp");
}
