// The Slurm client's parsers on output recorded from Slurm 22.05 (scontrol show node -o,
// squeue -h -o '%i|%u|%D|%N'), and the command runner under it: no shell, a timeout, bounded
// output, and errors that name the command.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "actions/command.h"
#include "actions/slurm_client.h"

using namespace ibw::actions;

namespace {

// Recorded from the test lab's slurmctld (tests/lab/slurm_lab.h), middles shortened.
const char* kNodes =
    "NodeName=node0001 Arch=x86_64 CoresPerSocket=1  CPUAlloc=1 CPUEfctv=1 CPUTot=1 "
    "NodeAddr=127.0.0.1 NodeHostName=node0001 Version=22.05.8 RealMemory=100 AllocMem=0 "
    "Sockets=1 Boards=1 State=ALLOCATED+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A "
    "Partitions=lab  BootTime=2026-11-27T13:58:31 ExtSensorsTemp=n/s Reason=op "
    "[root@2026-11-28T00:43:42]\n"
    "NodeName=node0002 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=1 CPUTot=1 CPULoad=N/A "
    "State=IDLE+DRAIN+NOT_RESPONDING ThreadsPerCore=1 ExtSensorsJoules=n/s ExtSensorsWatts=0 "
    "ExtSensorsTemp=n/s Reason=ibwarden: WO-1 leaf003/5 symbol errors "
    "[root@2026-11-28T00:43:42]\n"
    "NodeName=node0003 CoresPerSocket=1 State=IDLE ThreadsPerCore=1 ExtSensorsTemp=n/s\n"
    "NodeName=node0004 State=DOWN* ThreadsPerCore=1 Reason=Not responding "
    "[slurm@2026-11-28T01:00:00]\n";

}  // namespace

TEST_CASE("slurm: scontrol show node -o - state flags and the reason without its stamp",
          "[slurm][slurm_client]") {
  auto nodes = parse_scontrol_nodes(kNodes);
  REQUIRE(nodes.size() == 4);
  CHECK(nodes[0].name == "node0001");
  CHECK(nodes[0].state == "ALLOCATED+DRAIN");
  CHECK(nodes[0].drain);
  CHECK_FALSE(nodes[0].not_responding);
  CHECK(nodes[0].reason == "op");
  CHECK(nodes[0].reason_user == "root");
  CHECK(nodes[1].drain);
  CHECK(nodes[1].not_responding);
  CHECK(nodes[1].reason == "ibwarden: WO-1 leaf003/5 symbol errors");
  CHECK(nodes[2].state == "IDLE");
  CHECK_FALSE(nodes[2].drain);
  CHECK(nodes[2].reason.empty());
  CHECK(nodes[3].not_responding);
  CHECK_FALSE(nodes[3].drain);
  CHECK(nodes[3].reason == "Not responding");
  CHECK(nodes[3].reason_user == "slurm");
  // A reason with brackets of its own keeps them; junk lines are skipped.
  auto odd = parse_scontrol_nodes("junk\nNodeName=n1 State=MIXED+DRAIN Reason=rack [a] x\n");
  REQUIRE(odd.size() == 1);
  CHECK(odd[0].reason == "rack [a] x");
  CHECK(odd[0].reason_user.empty());
  CHECK(parse_scontrol_nodes("").empty());
}

TEST_CASE("slurm: squeue lines - jobs with expanded node lists and bad lines named",
          "[slurm][slurm_client]") {
  auto jobs = parse_squeue("17|alice|3|node[0001-0002],node0007\n18_2|bob|1|node0003\n\n");
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].id == "17");
  CHECK(jobs[0].user == "alice");
  CHECK(jobs[0].node_count == 3);
  CHECK(jobs[0].nodelist == "node[0001-0002],node0007");
  CHECK(jobs[0].nodes == std::vector<std::string>{"node0001", "node0002", "node0007"});
  CHECK(jobs[1].id == "18_2");
  CHECK(jobs[1].nodes == std::vector<std::string>{"node0003"});
  CHECK_THROWS_WITH(parse_squeue("17|alice|3|node0001\n18 bob 1 node3\n"),
                    Catch::Contains("line 2") && Catch::Contains("JOBID|USER|NODES|NODELIST"));
  CHECK_THROWS_WITH(parse_squeue("17|alice|x|node0001\n"), Catch::Contains("node count"));
  CHECK_THROWS_WITH(parse_squeue("17|alice|2|node[9-1]\n"), Catch::Contains("node list"));
  CHECK(parse_squeue("").empty());
}

TEST_CASE("slurm: commands run without a shell with a timeout and an output cap",
          "[slurm][command]") {
  auto r = run_command({"sh", "-c", "echo out; echo err >&2; exit 3"}, {});
  CHECK(r.started);
  CHECK(r.exit_code == 3);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK_FALSE(r.ok());
  CHECK(describe({"sh", "-c", "x"}, r) == "sh -c x: exit 3: err");
  // Arguments reach the command as they are: no shell expands them.
  r = run_command({"echo", "$HOME;", "*"}, {});
  CHECK(r.ok());
  CHECK(r.out == "$HOME; *\n");

  auto t0 = std::chrono::steady_clock::now();
  r = run_command({"sleep", "5"}, {std::chrono::milliseconds(200), 1024});
  CHECK(r.timed_out);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3));
  CHECK(describe({"sleep", "5"}, r).find("timed out") != std::string::npos);

  r = run_command({"head", "-c", "100000", "/dev/zero"}, {std::chrono::seconds(5), 1000});
  CHECK(r.truncated);
  CHECK(r.out.size() == 1000);
  CHECK_FALSE(r.ok());

  r = run_command({"/nonexistent/scontrol", "ping"}, {});
  CHECK_FALSE(r.started);
  CHECK(describe({"/nonexistent/scontrol", "ping"}, r).find("cannot run") != std::string::npos);
}

TEST_CASE("slurm: a client whose scontrol is missing fails loudly with the command named",
          "[slurm][slurm_client]") {
  CommandSlurmClient c({"/nonexistent/scontrol", "/nonexistent/squeue", std::chrono::seconds(1)});
  CHECK_THROWS_AS(c.drain("node0001", "x"), SlurmError);
  CHECK_THROWS_WITH(c.node("node0001"), Catch::Contains("/nonexistent/scontrol"));
  CHECK_THROWS_WITH(c.running_jobs({}), Catch::Contains("/nonexistent/squeue"));
}
