// Integration (issue 33 item 4): the affected jobs on the work orders and disable decisions
// of `ibwarden run` (enforce) with a real Slurm (tests/lab/slurm_lab.h: slurmd on node0001)
// and a real ibsim + OpenSM fabric with static routes (OpenSM's LFT dump): 2 leaves x 4
// spines, node0001-0002 on leaf001/1-2, node0003-0004 on leaf002/1-2, leafNNN/3-6 to
// spine001-004. A real `sleep 60` job runs on node0001; symbol errors are injected (ibsim's
// PerformanceSet) on a spine link whose LFT routes carry node0001 and on one whose routes
// carry no node0001 route; the daemon disables both, and each order's JSON (and the
// decision's evidence) lists that job, or none.
#include <catch2/catch.hpp>

#include "tests/test_paths.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/lab/slurm_lab.h"

using nlohmann::json;
using namespace ibw::test;
using namespace std::chrono_literals;

namespace affected_lab {

bool carries(const json& jobs_out, const std::string& host) {
  for (const auto& h : jobs_out["hosts"])
    if (h["node"] == host) return true;
  return false;
}

}  // namespace affected_lab

using namespace affected_lab;

TEST_CASE("affected jobs lab: a disabled link's order lists the real job it carries",
          "[integration][slurm]") {
  ibw::lab::SlurmLab slurm({"node0001", "node0002", "node0003", "node0004"});
  std::string job = slurm.sbatch("node0001", "sleep 60", "trainer");
  REQUIRE(slurm.wait_running(job, 10s));
  setenv("SLURM_CONF", slurm.conf().c_str(), 1);  // for `ibwarden jobs` and the daemon
  struct Unset {
    ~Unset() { unsetenv("SLURM_CONF"); }
  } unset;

  ibw::lab::Lab lab = ibw::lab::two_tier_lab(2, 4, 2);
  ibw::lab::SimLabOptions o{ibw::lab::to_ibsim_net(lab)};
  o.opensm_args = {"-D", "0x43"};  // opensm-lfts.dump: static routes
  ibw::lab::SimLab sim(o);
  std::string dir = sim.dir();
  for (int i = 0; i < 100 && !std::filesystem::exists(dir + "/opensm-lfts.dump"); ++i)
    std::this_thread::sleep_for(100ms);
  std::ofstream(dir + "/plan.csv") << ibw::lab::plan_csv(lab);
  std::string config = dir + "/ibwarden.yaml";
  remedy_lab_config("enforce")
      .set("probes", "routes", "static")
      .set("slurm", {{"enabled", "true"}, {"jobs_refresh", "1s"}})
      .write(config);
  auto env = slurm.env();
  Daemon d =
      started(Daemon({config, dir, sim.sockname(), dir + "/d.log", {env.begin(), env.end()}}),
              "\"counter sweep\"", 2, 30s);

  // The spine links of leaf002 by what their routes carry (`ibwarden jobs`, the same function).
  auto jobs_of = [&](const std::string& link) {
    auto r = sim.run({IBW_BINARY, "jobs", "--link", link, "--format", "json", "--config", config},
                     "", 60s);
    INFO(link << r.out << r.err);
    REQUIRE(r.status == 0);
    return json::parse(r.out);
  };
  std::string busy, idle;
  for (int p = 3; p <= 6; ++p) {
    std::string link = "leaf002/" + std::to_string(p);
    json j = jobs_of(link);
    if (carries(j, "node0001") && busy.empty()) busy = link;
    if (!carries(j, "node0001") && idle.empty()) idle = link;
  }
  INFO("busy " << busy << " idle " << idle);
  REQUIRE(!busy.empty());
  REQUIRE(!idle.empty());
  json listed = jobs_of(busy);  // with Slurm configured, the CLI lists the job too
  REQUIRE(listed["jobs"].size() == 1);
  CHECK(listed["jobs"][0]["id"] == job);

  for (const std::string& link : {busy, idle})
    sim.console("PerformanceSet \"leaf002\"[" + link.substr(link.find('/') + 1) +
                "] PortCounters.SymbolErrorCounter=5000");
  json orders = wait_query(
      "workorders", config, {},
      [](const json& l) {
        int disabled = 0;
        for (const auto& w : l) disabled += w.value("port_disabled", false) ? 1 : 0;
        return disabled == 2;
      },
      30s);
  INFO(orders.dump(2) << d.log());
  REQUIRE(orders.size() == 2);
  for (const auto& w : orders) {
    REQUIRE(w["affected_jobs"].is_array());
    CHECK(w["affected_hosts"].is_number());  // the idle link may carry no route at all
    if (w["a"] == busy || w["b"] == busy) {
      REQUIRE(w["affected_jobs"].size() == 1);
      CHECK(w["affected_jobs"][0]["id"] == job);
      CHECK(w["affected_jobs"][0]["user"] == "root");
      CHECK(w["affected_jobs"][0]["nodes"] == 1);
    } else {
      CHECK((w["a"] == idle || w["b"] == idle));
      CHECK(w["affected_jobs"].empty());
    }
  }
  // The disable decision's evidence carries the same list.
  bool seen = false;
  for (const auto& dec : query_json("decisions", config))
    if (dec["action"] == "disable" && dec["status"] == "executed" &&
        dec["evidence"]["affected_jobs"].size() == 1) {
      seen = true;
      REQUIRE(dec["evidence"]["affected_jobs"].size() == 1);
      CHECK(dec["evidence"]["affected_jobs"][0]["id"] == job);
    }
  CHECK(seen);
  CHECK(d.stop() == 0);
}
