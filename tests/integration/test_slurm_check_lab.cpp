// Integration (issue 33): `ibwarden check --nodes` and `ibwarden jobs --link` against the
// state `ibwarden run` stores for a real ibsim + OpenSM fabric. Fabric: 2 leaves x 4 spines, 2
// hosts per leaf (node0001-0002 on leaf001/1-2, node0003-0004 on leaf002/1-2; leafNNN ports
// 3-6 to spine001-004); the SM runs on node0001. A link is disabled with `ibwarden disable`
// and a host link is cut with ibsim's console (Unlink), as a failing cable would.
#include <catch2/catch.hpp>

#include "tests/test_paths.h"

#include <filesystem>
#include <fstream>
#include <set>

#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"

using nlohmann::json;
using namespace ibw::test;
using namespace std::chrono_literals;

namespace slurm_check_lab {

struct CheckLab {
  ibw::lab::Lab lab = ibw::lab::two_tier_lab(2, 4, 2);
  std::unique_ptr<ibw::lab::SimLab> sim;
  std::string config;

  // routes static: OpenSM also writes opensm-lfts.dump (-D 0x43: its ROUTING log level), which
  // the commands read from opensm.dump_dir.
  explicit CheckLab(const std::string& routes = "adaptive") {
    ibw::lab::SimLabOptions o{ibw::lab::to_ibsim_net(lab)};
    if (routes == "static") o.opensm_args = {"-D", "0x43"};
    sim = std::make_unique<ibw::lab::SimLab>(o);
    std::string d = sim->dir();
    for (int i = 0;
         i < 100 && routes == "static" && !std::filesystem::exists(d + "/opensm-lfts.dump"); ++i)
      std::this_thread::sleep_for(100ms);
    std::ofstream(d + "/plan.csv") << ibw::lab::plan_csv(lab);
    config = d + "/ibwarden.yaml";
    remedy_lab_config("enforce").set("probes", "routes", routes).write(config);
  }
  Daemon daemon() { return Daemon({config, sim->dir(), sim->sockname(), sim->dir() + "/d.log"}); }
  // `ibwarden ARGS... --config C` under umad2sim, in the lab's directory.
  ibw::lab::RunResult ibwarden(std::vector<std::string> args) {
    args.insert(args.begin(), IBW_BINARY);
    args.push_back("--config");
    args.push_back(config);
    return sim->run(args, "", 60s);
  }
  // `check --nodes LIST` until its exit status is `want` (the daemon stores what it sees
  // within a sweep or two), or the last run after `timeout`.
  ibw::lab::RunResult check_until(const std::string& list, int want,
                                  std::chrono::seconds timeout = 20s) {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (true) {
      auto r = ibwarden({"check", "--nodes", list});
      if (r.status == want || std::chrono::steady_clock::now() > until) return r;
      std::this_thread::sleep_for(300ms);
    }
  }
};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace slurm_check_lab

using namespace slurm_check_lab;

TEST_CASE("slurm check lab: check --nodes - healthy - a disabled spine link - a host cut off",
          "[integration][check]") {
  CheckLab w;
  Daemon d = started(w.daemon(), "\"counter sweep\"", 2, 30s);

  auto r = w.check_until("node[0001-0004]", 0);
  INFO(r.out << r.err << d.log());
  REQUIRE(r.status == 0);
  CHECK(has(r.out, "ok: 4 nodes (4 CAs) up at full width and speed"));
  r = w.ibwarden({"check", "--nodes", "node[0001-0004]", "--format", "json"});
  REQUIRE(r.status == 0);
  json ok = json::parse(r.out);
  CHECK(ok["ok"] == true);
  CHECK(ok["hosts"] == 4);
  CHECK(ok["routes"] == "adaptive");

  // Errors: unknown names are listed, a bad hostlist names its offset.
  r = w.ibwarden({"check", "--nodes", "node[0003-0006],login1"});
  CHECK(r.status == 2);
  CHECK(has(r.err, "3 node name(s) not in the daemon's fabric"));
  CHECK(has(r.err, "node[0005-0006],login1"));
  r = w.ibwarden({"check", "--nodes", "node[0001-"});
  CHECK(r.status == 2);
  CHECK(has(r.err, "--nodes: at offset"));

  // leaf001/3 - spine001/1 disabled: routes between the leaves could take it, routes inside
  // leaf001 cannot.
  r = w.ibwarden({"disable", "--port", "leaf001/3", "--reason", "check lab"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  r = w.check_until("node[0001-0004]", 1);
  INFO(r.out << r.err);
  REQUIRE(r.status == 1);
  CHECK(has(r.out, "problem: node[0001-0004]: leaf001/3 - spine001/1: disabled by ibwarden"));
  CHECK(has(r.out, "8 routes between the listed hosts cross it"));
  r = w.ibwarden({"check", "--nodes", "node[0001-0002]"});
  CHECK(r.status == 0);

  // node0004's link cut at the leaf: node0004 is named, with its port and why (the daemon's
  // discovery no longer sees a peer there).
  w.sim->console("Unlink \"leaf002\"[2]");
  r = w.check_until("node[0003-0004]", 1);
  INFO(r.out << r.err);
  REQUIRE(r.status == 1);
  CHECK(has(r.out, "problem: node0004: node0004 mlx5_0/1: link Down"));
  CHECK(!has(r.out, "problem: node0003"));
  r = w.ibwarden({"check", "--nodes", "node0004", "--format", "json"});
  CHECK(r.status == 1);
  json bad = json::parse(r.out);
  REQUIRE(bad["problems"].size() == 1);
  CHECK(bad["problems"][0]["host"] == "node0004");
  CHECK(bad["problems"][0]["link"] == "node0004 mlx5_0/1");
  CHECK(has(bad["problems"][0]["why"].get<std::string>(), "no peer"));
  CHECK(d.stop() == 0);
}

TEST_CASE("slurm check lab: jobs --link lists the hosts of a spine link", "[integration][jobs]") {
  CheckLab w;
  Daemon d = started(w.daemon(), "\"counter sweep\"", 2, 30s);
  auto r = w.ibwarden({"jobs", "--link", "spine001/2", "--format", "json"});
  INFO(r.out << r.err << d.log());
  REQUIRE(r.status == 0);
  json j = json::parse(r.out);
  CHECK(j["link"] == "spine001/2 - leaf002/3");
  CHECK(j["routes"] == "adaptive");
  // Adaptive routing may take any spine between the two leaves: every host, 2 x 2 each way.
  CHECK(j["pairs"] == 8);
  REQUIRE(j["hosts"].size() == 4);
  for (int i = 0; i < 4; ++i) {
    std::string n = "node000" + std::to_string(i + 1);
    CHECK(j["hosts"][i]["host"] == n + " mlx5_0");
    CHECK(j["hosts"][i]["node"] == n);
  }
  CHECK(j["unmapped"].empty());
  CHECK(j["jobs"].is_null());
  r = w.ibwarden({"jobs", "--link", "spine001/2"});
  CHECK(r.status == 0);
  CHECK(has(r.out, "nodes: node[0001-0004]"));
  CHECK(has(r.out, "jobs: not available (slurm section not configured)"));
  r = w.ibwarden({"jobs", "--link", "nosuch/1"});
  CHECK(r.status == 2);
  CHECK(has(r.err, "no node \"nosuch\""));
  CHECK(d.stop() == 0);
}

TEST_CASE("slurm check lab: jobs --link with static routes agrees with route --crossing",
          "[integration][jobs]") {
  CheckLab w("static");
  Daemon d = started(w.daemon(), "\"counter sweep\"", 2, 30s);
  for (std::string link : {"spine001/2", "spine002/1", "leaf001/2"}) {
    auto jobs = w.ibwarden({"jobs", "--link", link, "--format", "json"});
    auto route = w.ibwarden({"route", "--crossing", link, "--format", "json"});
    INFO(link << "\n" << jobs.out << jobs.err << route.out << route.err);
    REQUIRE(jobs.status == 0);
    REQUIRE(route.status == 0);
    json j = json::parse(jobs.out), p = json::parse(route.out);
    CHECK(j["routes"] == "static");
    CHECK(j["pairs"] == p["pairs"]);
    // Hosts: the CAs at either end of route's pairs.
    std::set<int> lids;
    for (const auto& pr : p["crossing"])
      lids.insert(pr["src_lid"].get<int>()), lids.insert(pr["dst_lid"].get<int>());
    CHECK(j["hosts"].size() == lids.size());
  }
  // A host link carries its host's routes: 3 other hosts, each way.
  auto r = w.ibwarden({"jobs", "--link", "leaf001/2", "--format", "json"});
  CHECK(json::parse(r.out)["pairs"] == 6);
  CHECK(d.stop() == 0);
}
