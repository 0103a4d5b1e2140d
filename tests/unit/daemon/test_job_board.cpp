// JobBoard and LinkJobs (daemon/job_board.h): the affected jobs of a link are null without
// Slurm and before the first read of the running jobs, then the jobs on the link's hosts;
// a read past the cap keeps kMaxJobs jobs and counts the rest; a failed read keeps the last
// answer and is counted. And GET /api/v1/incidents (daemon::WebBackend::incidents): each
// incident carries the jobs its links carry (affected_hosts, affected_jobs), null when not known.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "daemon/fabric_state.h"
#include "daemon/job_board.h"
#include "daemon/web_backend.h"
#include "rules/incidents.h"
#include "tests/unit/fabric/test_net.h"
#include "tests/unit/test_web_helpers.h"

using namespace ibw;

namespace job_board_test {

actions::SlurmJob job(const std::string& id, const std::string& node) {
  actions::SlurmJob j;
  j.id = id, j.user = "u" + id, j.node_count = 1, j.nodes = {node};
  return j;
}

// One switch with static routes, hosts nodeA and nodeB on ports 1 and 2.
struct OneSwitch : test_net::LftNet {
  OneSwitch() {
    uint32_t s = sw("sw", 4);
    for (int h = 0; h < 2; ++h) {
      uint32_t c = ca(std::string("node") + static_cast<char>('A' + h) + " mlx5_0");
      link(s, h + 1, c, 1);
      route(s, lid(c), h + 1);
    }
    done();
  }
  // The daemon's state holds this fabric and its routes.
  void load(daemon::FabricState& state) const {
    auto topo = std::make_shared<daemon::Topology>();
    topo->fabric = fab;
    state.set_topology(topo);
    state.set_routes(std::make_shared<const fabric::RoutingTables>(tables));
  }
};

}  // namespace job_board_test

using namespace job_board_test;

TEST_CASE("link jobs: null without Slurm or before the first read then the link's jobs",
          "[daemon][slurm]") {
  daemon::FabricState state;
  OneSwitch net;
  net.load(state);
  config::Config cfg;
  cfg.probes.routes = "static";
  const uint64_t sw_guid = state.topology()->fabric.node(0).guid;
  daemon::LinkJobs jobs(state, cfg);
  CHECK_FALSE(jobs.of_link(sw_guid, 1));  // slurm.enabled false

  cfg.slurm.enabled = true;
  CHECK_FALSE(jobs.of_link(sw_guid, 1));  // no squeue answer yet

  state.jobs.set({job("1", "nodeA"), job("2", "nodeB"), job("3", "nodeZ")}, 5);
  auto a = jobs.of_link(sw_guid, 1);  // nodeA's link: routes from and to nodeA
  REQUIRE(a);
  CHECK(a->hosts == 2);
  std::vector<std::string> ids;
  for (const auto& j : a->jobs) ids.push_back(j.id);
  CHECK(ids == std::vector<std::string>{"1", "2"});
  auto whole = jobs.of({{sw_guid, 0}});  // port 0: every linked port of the switch
  REQUIRE(whole);
  CHECK(whole->jobs.size() == 2);
  CHECK_FALSE(jobs.of_link(0xdead, 1).value().hosts);  // unknown node: no hosts

  state.jobs.failed();
  CHECK(state.jobs.stats().failures == 1);
  CHECK(jobs.of_link(sw_guid, 1)->jobs.size() == 2);  // the last answer stays
}

TEST_CASE("job board: a read past the cap keeps the cap and counts the rest", "[daemon][slurm]") {
  daemon::JobBoard board;
  board.configure(true);
  CHECK(board.stats().running == -1);
  std::vector<actions::SlurmJob> many(daemon::JobBoard::kMaxJobs + 3, job("1", "n"));
  board.set(std::move(many), 7);
  auto s = board.stats();
  CHECK(s.enabled);
  CHECK(s.running == static_cast<int64_t>(daemon::JobBoard::kMaxJobs));
  CHECK(s.capped == 3);
  CHECK(s.refreshed_us == 7);
  CHECK(board.index()->size() == daemon::JobBoard::kMaxJobs);
}

TEST_CASE("web backend: an incident lists the running jobs its links carry", "[web][slurm]") {
  daemon::FabricState state;
  OneSwitch net;
  net.load(state);
  const fabric::Fabric& f = state.topology()->fabric;
  const uint64_t sw = f.node(0).guid;
  uint64_t node_a = 0;
  for (uint32_t i = 0; i < f.size(); ++i)
    if (f.node(i).description == "nodeA mlx5_0") node_a = f.node(i).guid;
  REQUIRE(node_a);

  // nodeA's only link goes down: a host_down incident.
  rules::IncidentTracker tracker;
  rules::LinkInfo l;
  l.node_guid = sw, l.port = 1, l.peer_guid = node_a, l.peer_port = 1;
  l.switch_node = true, l.peer_switch = false;
  rules::LinkInfo back = l;
  std::swap(back.node_guid, back.peer_guid), std::swap(back.port, back.peer_port);
  std::swap(back.switch_node, back.peer_switch);
  tracker.learn({l, back});
  ingest::Event down;
  down.time_us = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
  down.kind = std::string(ingest::kind::link_down);
  down.node_guid = sw, down.port = 1, down.peer_guid = node_a, down.peer_port = 1;
  tracker.add({down});

  config::Config cfg;
  cfg.probes.routes = "static";
  daemon::LinkJobs jobs(state, cfg);
  web_test::WebBench bench;
  daemon::WebBackendDeps deps;
  deps.cfg.store.path = bench.path;
  deps.incidents = &tracker;
  deps.link_jobs = &jobs;
  daemon::WebBackend backend(std::move(deps));

  auto list = backend.incidents(0);
  REQUIRE(list.size() == 1);
  CHECK(list[0]["kind"] == "host_down");
  CHECK(list[0]["affected_jobs"].is_null());  // Slurm off: not known, not "none"
  CHECK(list[0]["affected_hosts"].is_null());

  cfg.slurm.enabled = true;
  CHECK(backend.incidents(0)[0]["affected_jobs"].is_null());  // no squeue answer yet
  state.jobs.set({job("41", "nodeA"), job("42", "nodeB"), job("43", "nodeZ")}, 5);
  list = backend.incidents(0);
  INFO(list.dump(2));
  CHECK(list[0]["affected_hosts"] == 2);  // nodeA's routes reach nodeA and nodeB
  REQUIRE(list[0]["affected_jobs"].size() == 2);
  CHECK(list[0]["affected_jobs"][0]["id"] == "41");
  CHECK(list[0]["affected_jobs"][0]["user"] == "u41");
  CHECK(list[0]["affected_jobs"][0]["nodes"] == 1);
  CHECK(list[0]["affected_jobs"][1]["id"] == "42");
}
