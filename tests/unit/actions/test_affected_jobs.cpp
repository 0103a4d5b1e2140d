// The affected jobs of a link (actions/affected_jobs.h) on a small fabric with static routes
// and a fake job list: the hosts a link carries -> their Slurm nodes (a CA with a default
// description is unmapped, two CAs of one host are one node) -> the running jobs on them,
// each once; the stored form round-trips and unknown jobs print as null.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "actions/affected_jobs.h"
#include "tests/unit/fabric/test_net.h"

using namespace ibw;

namespace affected_jobs_test {

// Leaves L0-L2 (hosts on ports 1-2, port 3 to spine S0, port 4 to S1); spine port l+1 to
// leaf l. L0 reaches L1 over S0; every other leaf-to-leaf route goes over S1, so the link
// L0/3 - S0/1 carries exactly the routes between L0's and L1's hosts.
struct Net : test_net::LftNet {
  std::vector<uint32_t> leaves, spines, hosts;
  Net() {
    for (int l = 0; l < 3; ++l) leaves.push_back(sw("L" + std::to_string(l), 4));
    for (int s = 0; s < 2; ++s) spines.push_back(sw("S" + std::to_string(s), 3));
    const char* descs[] = {"nodeA mlx5_0", "MT4123 ConnectX6 Mellanox Technologies",
                           "nodeC mlx5_0", "nodeC mlx5_1",
                           "nodeE mlx5_0", "nodeF mlx5_0"};
    for (int h = 0; h < 6; ++h) {
      hosts.push_back(ca(descs[h]));
      link(leaves[h / 2], h % 2 + 1, hosts.back(), 1);
    }
    for (int l = 0; l < 3; ++l)
      for (int s = 0; s < 2; ++s) link(leaves[l], 3 + s, spines[s], l + 1);
    for (int h = 0; h < 6; ++h) {
      int home = h / 2;
      uint16_t d = lid(hosts[h]);
      for (int l = 0; l < 3; ++l)
        route(leaves[l], d, l == home ? h % 2 + 1 : (l == 0 && home == 1 ? 3 : 4));
      for (int s = 0; s < 2; ++s) route(spines[s], d, home + 1);
    }
    done();
  }
};

actions::SlurmJob job(std::string id, std::string user, std::vector<std::string> nodes) {
  actions::SlurmJob j;
  j.id = std::move(id);
  j.user = std::move(user);
  j.node_count = static_cast<int>(nodes.size());
  j.nodes = std::move(nodes);
  return j;
}

std::vector<std::string> ids(const std::vector<actions::AffectedJob>& jobs) {
  std::vector<std::string> out;
  for (const auto& j : jobs) out.push_back(j.id);
  return out;
}

}  // namespace affected_jobs_test

using namespace affected_jobs_test;

TEST_CASE("affected jobs: hosts of a link to Slurm nodes to running jobs", "[actions][slurm]") {
  Net net;
  fabric::HostMap hosts(net.fab, nullptr);
  actions::JobIndex jobs({job("11", "alice", {"nodeA"}), job("12", "bob", {"nodeC", "nodeE"}),
                          job("13", "carol", {"nodeE", "nodeF"}), job("14", "dave", {"node9"})});
  REQUIRE(jobs.size() == 4);

  // L0/3 - S0: the routes between L0's hosts (nodeA, an unmapped CA) and L1's (nodeC twice).
  fabric::LinkHosts up = fabric::hosts_of_link(net.fab, &net.tables, net.leaves[0], 3);
  actions::LinkNodes nodes = actions::link_nodes(hosts, up);
  CHECK(nodes.nodes == std::vector<std::string>{"nodeA", "nodeC"});
  REQUIRE(nodes.unmapped.size() == 1);
  CHECK(nodes.unmapped[0] == net.hosts[1]);
  actions::AffectedJobs a = actions::affected_jobs(hosts, up, jobs);
  CHECK(a.hosts == 4);
  CHECK(a.unmapped == 1);
  CHECK(ids(a.jobs) == std::vector<std::string>{"11", "12"});
  CHECK(a.jobs[1] == actions::AffectedJob{"12", "bob", 2});

  // nodeF's own link carries every route from and to it: every mapped host's jobs, each once.
  fabric::LinkHosts host = fabric::hosts_of_link(net.fab, &net.tables, net.leaves[2], 2);
  actions::AffectedJobs b = actions::affected_jobs(hosts, host, jobs);
  CHECK(b.hosts == 6);
  CHECK(ids(b.jobs) == std::vector<std::string>{"11", "12", "13"});

  // L2/3 - S0 carries no route at all: no hosts, no jobs (not null).
  fabric::LinkHosts idle = fabric::hosts_of_link(net.fab, &net.tables, net.leaves[2], 3);
  actions::AffectedJobs c = actions::affected_jobs(hosts, idle, jobs);
  CHECK(c.hosts == 0);
  CHECK(c.jobs.empty());
}

TEST_CASE("affected jobs: no running jobs on the nodes gives none", "[actions][slurm]") {
  Net net;
  fabric::HostMap hosts(net.fab, nullptr);
  fabric::LinkHosts up = fabric::hosts_of_link(net.fab, &net.tables, net.leaves[0], 3);
  CHECK(actions::affected_jobs(hosts, up, actions::JobIndex()).jobs.empty());
  CHECK(actions::affected_jobs(hosts, up, actions::JobIndex({job("9", "x", {"nodeF"})}))
            .jobs.empty());
}

TEST_CASE("affected jobs: the stored form round-trips and unknown jobs are null",
          "[actions][slurm]") {
  actions::AffectedJobs a{5, 2, {"nodeC", "nodeE"}, {{"12", "bob", 2}, {"7_3", "eve", 1}}};
  auto back = actions::parse_affected(actions::affected_text(a));
  REQUIRE(back);
  CHECK(*back == a);
  CHECK_FALSE(actions::parse_affected(""));
  CHECK_FALSE(actions::parse_affected("[1,2]"));

  nlohmann::json known, unknown;
  actions::put_affected(known, a);
  actions::put_affected(unknown, std::nullopt);
  CHECK(known["affected_hosts"] == 5);
  CHECK(known["affected_jobs"][1]["id"] == "7_3");
  CHECK(known["affected_jobs"][1]["user"] == "eve");
  CHECK(known["affected_jobs"][1]["nodes"] == 1);
  CHECK(unknown["affected_hosts"].is_null());
  CHECK(unknown["affected_jobs"].is_null());
}
