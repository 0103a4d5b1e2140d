// The private Slurm of the tests (tests/lab/slurm_lab.h): it starts quickly, runs a real job
// on the node with the slurmd, drains a node without one, and leaves nothing behind.
#include <catch2/catch.hpp>

#include <signal.h>

#include <filesystem>
#include <string>

#include "tests/lab/slurm_lab.h"

TEST_CASE("slurm_lab: a job runs on the slurmd node and a node without one drains",
          "[slurm][slurm_lab]") {
  std::string dir;
  {
    ibw::lab::SlurmLab lab({"node0001", "node0002", "node0003"});
    dir = lab.dir();
    WARN("Slurm lab started in " << lab.start_time().count() << " ms");
    CHECK(lab.start_time().count() < 10000);
    CHECK(lab.show_node("node0001").find("State=IDLE") != std::string::npos);

    std::string id = lab.sbatch("node0001", "sleep 30");
    REQUIRE(lab.wait_running(id, std::chrono::seconds(10)));
    CHECK(lab.squeue().find(id + "|root|1|node0001|RUNNING") != std::string::npos);

    lab.drain("node0002", "operator: cable check");
    std::string line = lab.show_node("node0002");
    CHECK(line.find("DRAIN") != std::string::npos);
    CHECK(line.find("Reason=operator: cable check [root@") != std::string::npos);
    CHECK(lab.run({"scontrol", "show", "node", "-o", "node0099"}).status != 0);
  }
  CHECK_FALSE(std::filesystem::exists(dir));
}
