// GET /api/v1/incidents of the daemon's web backend (daemon::WebBackend::incidents) with Slurm:
// each incident carries the running jobs on the hosts whose routes cross its links
// (affected_hosts, affected_jobs, the same fields as on orders), and null for both when the
// jobs are not known (Slurm off, or before the first squeue).
#include <catch2/catch.hpp>

#include <chrono>
#include <memory>

#include "daemon/fabric_state.h"
#include "daemon/job_board.h"
#include "daemon/web_backend.h"
#include "rules/incidents.h"
#include "tests/unit/fabric/test_net.h"
#include "tests/unit/test_web_helpers.h"

using namespace ibw;

namespace web_incidents_test {

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
};

actions::SlurmJob job(const std::string& id, const std::string& node, const std::string& user) {
  actions::SlurmJob j;
  j.id = id, j.user = user, j.node_count = 1, j.nodes = {node};
  return j;
}

}  // namespace web_incidents_test

using namespace web_incidents_test;

TEST_CASE("web backend: an incident lists the running jobs its links carry", "[web][slurm]") {
  daemon::FabricState state;
  OneSwitch net;
  auto topo = std::make_shared<daemon::Topology>();
  topo->fabric = net.fab;
  state.set_topology(topo);
  state.set_routes(std::make_shared<const fabric::RoutingTables>(net.tables));
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
  state.jobs.set(
      {job("41", "nodeA", "alice"), job("42", "nodeB", "bob"), job("43", "nodeZ", "carol")}, 5);
  list = backend.incidents(0);
  INFO(list.dump(2));
  CHECK(list[0]["affected_hosts"] == 2);  // nodeA's routes reach nodeA and nodeB
  REQUIRE(list[0]["affected_jobs"].size() == 2);
  CHECK(list[0]["affected_jobs"][0]["id"] == "41");
  CHECK(list[0]["affected_jobs"][0]["user"] == "alice");
  CHECK(list[0]["affected_jobs"][0]["nodes"] == 1);
  CHECK(list[0]["affected_jobs"][1]["id"] == "42");
}
