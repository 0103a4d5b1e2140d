// The Slurm client (actions/slurm_client.h) against a real Slurm (tests/lab/slurm_lab.h):
// drain with a reason, read the state and reason back, resume, list running jobs by node,
// and a loud error for a node Slurm does not know.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "actions/slurm_client.h"
#include "tests/lab/slurm_lab.h"

using namespace ibw::actions;

TEST_CASE("slurm client: drain - read back - resume - jobs on a real Slurm", "[slurm]") {
  ibw::lab::SlurmLab lab({"node0001", "node0002", "node0003"});
  setenv("SLURM_CONF", lab.conf().c_str(), 1);
  struct Unset {
    ~Unset() { unsetenv("SLURM_CONF"); }
  } unset;
  CommandSlurmClient slurm({"scontrol", "squeue", std::chrono::seconds(10)});

  std::string id = lab.sbatch("node0001", "sleep 60", "trainer");
  REQUIRE(lab.wait_running(id, std::chrono::seconds(10)));
  auto jobs = slurm.running_jobs({"node0002", "node0001"});
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].id == id);
  CHECK(jobs[0].user == "root");
  CHECK(jobs[0].node_count == 1);
  CHECK(jobs[0].nodes == std::vector<std::string>{"node0001"});
  CHECK(slurm.running_jobs({"node0003"}).empty());
  CHECK(slurm.running_jobs({}).size() == 1);

  slurm.drain("node0002", "ibwarden: WO-7 leaf003/5 link down");
  SlurmNode n = slurm.node("node0002");
  CHECK(n.drain);
  CHECK(n.reason == "ibwarden: WO-7 leaf003/5 link down");
  CHECK(lab.show_node("node0002").find("Reason=ibwarden: WO-7 leaf003/5 link down") !=
        std::string::npos);
  slurm.resume("node0002");
  n = slurm.node("node0002");
  CHECK_FALSE(n.drain);
  CHECK(n.reason.empty());

  // A draining node with a job: DRAIN while the job runs, and back to running jobs after.
  slurm.drain("node0001", "ibwarden: WO-8 leaf001/1 width 1x");
  CHECK(slurm.node("node0001").state == "ALLOCATED+DRAIN");
  slurm.resume("node0001");
  n = slurm.node("node0001");
  CHECK_FALSE(n.drain);
  CHECK(n.state.rfind("ALLOCATED", 0) == 0);

  CHECK_THROWS_WITH(slurm.node("node0099"), Catch::Contains("scontrol show node"));
  CHECK_THROWS_AS(slurm.drain("node0099", "x"), SlurmError);
}
