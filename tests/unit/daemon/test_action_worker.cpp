// ActionWorker (daemon/action_worker.h), the daemon's remediation thread, with actions.via ufm
// against the UFM emulator and a real SQLite store: a full queue drops the new job at once, a
// stopped worker takes none, jobs run in order through the guard into the store, a failed
// port action is recorded as failed and the next job still runs, a worker that may no
// longer act sends no port action, without a master SM a disable is held, and an intent an
// earlier run left pending is read back by the running worker.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "config/store_spec.h"
#include "daemon/action_worker.h"
#include "daemon/sm_board.h"
#include "ingest/clock.h"
#include "store/store.h"
#include "tests/unit/test_remedy_helpers.h"
#include "tests/unit/test_ufm_fabric.h"

namespace action_worker_test {

using namespace std::chrono_literals;
using daemon::ActionJob;
using daemon::ActionWorker;

// Two leaves with four uplinks each: one uplink may go (actions.min_up_links 2).
struct Rig : ibw::test::UfmFabric {
  store_test::TempDir dir;
  config::Config cfg;
  fabric::MadLocks mad;  // the worker's (actions.via ufm sends no SMP)
  Rig() : UfmFabric(2, 4, 2) {
    std::ofstream(dir.file("ufm.token")) << ibw::test::kUfmToken << "\n";
    cfg.store.path = dir.file("s.db");
    cfg.actions.mode = "enforce";
    cfg.actions.via = "ufm";
    cfg.ufm.emplace();
    cfg.ufm->url = emu->base();
    cfg.ufm->api = "v3";
    cfg.ufm->token_file = dir.file("ufm.token");
  }
  ActionJob job(const std::string& node, int port) const {
    return {topo, {remedy_flow_test::symbol_errors(guid(node), port, kNow)}};
  }
  // The decisions stored once `n` of them are no longer pending (or after 30 s).
  std::vector<core::DecisionRecord> decisions(size_t n) const {
    auto until = std::chrono::steady_clock::now() + 30s;
    std::vector<core::DecisionRecord> done;
    while (std::chrono::steady_clock::now() < until) {
      done.clear();
      try {  // the worker creates the store with its first job
        auto db = store::Store::open(cfg.store.path, /*read_only=*/true);
        store::DecisionQuery q;
        q.limit = 0;
        for (auto& d : db->decisions(q))
          if (d.status != "pending") done.push_back(d);
      } catch (const std::exception&) {
      }
      if (done.size() >= n) break;
      std::this_thread::sleep_for(100ms);
    }
    return done;
  }
  size_t port_jobs() {
    size_t n = 0;
    for (const auto& a : emu->actions())  // POST /actions: UFM's port jobs
      n += a["path"].get<std::string>().find("/actions") != std::string::npos;
    return n;
  }
};

TEST_CASE("action worker: a full queue drops the new job - a stopped one takes none",
          "[daemon][actions]") {
  Rig rig;
  ActionWorker worker(rig.mad, rig.cfg, &rig.plan);  // not started: nothing leaves the queue
  for (int i = 0; i < 8; ++i) CHECK(worker.submit(rig.job("leaf001", 3)));
  CHECK_FALSE(worker.submit(rig.job("leaf001", 3)));  // dropped at once, not waited for
  worker.stop();
  CHECK_FALSE(worker.submit(rig.job("leaf001", 3)));
  CHECK(rig.port_jobs() == 0);
}

TEST_CASE("action worker: a failed port action is recorded - the next job still runs",
          "[daemon][actions]") {
  Rig rig;
  rig.emu->post("control", {{"job_status", "Completed With Errors"}, {"count", 1}});
  ActionWorker worker(rig.mad, rig.cfg, &rig.plan);
  worker.start();
  REQUIRE(worker.submit(rig.job("leaf001", 3)));  // UFM's job fails
  REQUIRE(worker.submit(rig.job("leaf002", 4)));  // UFM's job completes
  auto d = rig.decisions(2);
  worker.stop();
  REQUIRE(d.size() == 2);
  std::sort(d.begin(), d.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  CHECK(d[0].action == "disable");
  CHECK(d[0].status == "failed");
  CHECK(d[0].reason.find("Completed With Errors") != std::string::npos);
  CHECK(d[1].action == "disable");
  CHECK(d[1].status == "executed");
  CHECK(d[1].rule == "symbol-errors");
  CHECK(rig.port_jobs() == 2);
}

TEST_CASE("action worker: once it may no longer act no port action is sent", "[daemon][actions]") {
  Rig rig;
  ActionWorker worker(rig.mad, rig.cfg, &rig.plan);
  worker.set_store(config::store_spec(rig.cfg), [] { return false; });
  worker.start();
  REQUIRE(worker.submit(rig.job("leaf001", 3)));
  auto d = rig.decisions(1);
  worker.stop();
  REQUIRE(d.size() == 1);
  CHECK(d[0].status != "executed");
  CHECK(d[0].reason.find("lease") != std::string::npos);
  CHECK(rig.port_jobs() == 0);
}

TEST_CASE("action worker: without a master SM a disable is held once - acted on when one is back",
          "[daemon][actions][sm_watch]") {
  Rig rig;
  std::atomic<bool> master{false};
  ActionWorker worker(rig.mad, rig.cfg, &rig.plan);
  worker.set_hold([&master]() -> std::optional<std::string> {
    if (master) return std::nullopt;
    return std::string(daemon::kNoMasterSm);
  });
  worker.start();
  REQUIRE(worker.submit(rig.job("leaf001", 3)));
  REQUIRE(worker.submit(rig.job("leaf001", 3)));  // the verdict again: no second held decision
  auto d = rig.decisions(1);
  std::this_thread::sleep_for(300ms);
  d = rig.decisions(1);
  REQUIRE(d.size() == 1);
  CHECK(d[0].status == "held");
  CHECK(d[0].action == "disable");
  CHECK(d[0].reason.find("no master SM") != std::string::npos);
  CHECK(rig.port_jobs() == 0);  // nothing sent to the fabric
  master = true;
  REQUIRE(worker.submit(rig.job("leaf001", 3)));  // the verdict still holds
  d = rig.decisions(2);
  worker.stop();
  REQUIRE(d.size() == 2);
  std::sort(d.begin(), d.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  CHECK(d[0].status == "held");
  CHECK(d[1].status == "executed");
  CHECK(d[1].action == "disable");
  CHECK(rig.port_jobs() == 1);
}

TEST_CASE(
    "action worker: an intent an earlier run left pending is read back once a topology is known",
    "[daemon][actions]") {
  Rig rig;
  const uint64_t leaf = rig.guid("leaf001");
  {  // an earlier run's disable of leaf001/3, killed before its outcome was stored; the start
     // could not read the port (daemon/reconcile.cpp), so the intent and its row remain
    auto db = store::Store::open(rig.cfg.store.path);
    store::WriteBatch b;
    core::DecisionRecord d;
    d.time_us = ingest::SystemClock().now_us() - 5'000'000;  // not 10 minutes old
    d.rule = "symbol-errors", d.node_guid = leaf, d.node = "leaf001", d.port = 3;
    d.action = "disable", d.status = "pending", d.reason = "symbol-errors: a burst";
    b.decisions.push_back(d);
    b.disabled_add.push_back({leaf, 3, d.time_us, 0, ""});
    db->write(b);
  }
  std::atomic<bool> discovered{false};
  ActionWorker worker(rig.mad, rig.cfg, &rig.plan);
  worker.set_topology(
      [&]() -> std::shared_ptr<const daemon::Topology> { return discovered ? rig.topo : nullptr; });
  worker.start();
  std::this_thread::sleep_for(1500ms);  // no topology yet: the intent waits
  CHECK(rig.decisions(0).empty());
  discovered = true;  // the next pass (once a minute) reads the port back over UFM: still up
  auto d = rig.decisions(1);
  worker.stop();
  REQUIRE(d.size() == 1);
  CHECK(d[0].status == "failed");
  CHECK(d[0].reason.find("disable not done") != std::string::npos);
  auto db = store::Store::open(rig.cfg.store.path, /*read_only=*/true);
  CHECK(db->disabled_ports().empty());  // the row no longer counts against the caps
  CHECK(rig.port_jobs() == 0);          // read, never set
}

}  // namespace action_worker_test
