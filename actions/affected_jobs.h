// Affected jobs of a link (issue 33 item 4): the running Slurm jobs on the Slurm nodes of the
// hosts whose routes cross the link (fabric::hosts_of_link), each with job id, user and node
// count. The one computation behind `ibwarden jobs --link`, the work orders, incidents and
// disable decisions of the daemon:
//   LinkHosts (CAs) -> HostMap (Slurm node names; unmapped CAs counted, never guessed)
//   -> JobIndex (running jobs by node, built once per squeue) -> the jobs, each once.
// The stored and printed form (affected_text / put_affected): {"hosts", "unmapped", "jobs":
// [{"id", "user", "nodes"}], "nodes"} on a work order, and the fields "affected_hosts" and
// "affected_jobs" of order, incident and decision-evidence JSON; both null when the jobs are
// not known (Slurm not configured, or its running jobs not read yet).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "actions/slurm_client.h"
#include "config/config.h"
#include "fabric/host_map.h"
#include "fabric/link_hosts.h"

namespace ibw::actions {

struct AffectedJob {
  std::string id;    // Slurm job id ("1234", "1234_7" for an array task)
  std::string user;  // the job's user name
  int nodes = 0;     // nodes the job runs on (all of them, not only the link's)
  bool operator==(const AffectedJob&) const = default;
};

// The running jobs by Slurm node. Built once from one squeue (all running jobs in the
// daemon's job cache; those on the link's nodes for `ibwarden jobs`), then asked per link.
class JobIndex {
 public:
  JobIndex() = default;
  explicit JobIndex(const std::vector<SlurmJob>& jobs);
  size_t size() const { return jobs_.size(); }
  // The jobs running on any of `nodes`, each once, in squeue's order.
  std::vector<AffectedJob> on_nodes(const std::vector<std::string>& nodes) const;

 private:
  std::vector<AffectedJob> jobs_;
  std::unordered_map<std::string, std::vector<uint32_t>> by_node_;  // node -> indices in jobs_
};

// The Slurm nodes of a link's hosts.
struct LinkNodes {
  std::vector<std::pair<uint32_t, std::string>> mapped;  // (CA node index, Slurm node), CA order
  std::vector<uint32_t> unmapped;                        // CAs with no Slurm node
  std::vector<std::string> nodes;                        // distinct Slurm nodes, CA order
};
LinkNodes link_nodes(const fabric::HostMap& hosts, const fabric::LinkHosts& crossing);

struct AffectedJobs {
  size_t hosts = 0;                // CAs whose routes cross the link (mapped or not)
  size_t unmapped = 0;             // of those, CAs with no Slurm node (their jobs cannot be known)
  std::vector<std::string> nodes;  // their distinct Slurm nodes (an open order's jobs are
                                   // refreshed on these: its disabled link carries no route)
  std::vector<AffectedJob> jobs;
  bool operator==(const AffectedJobs&) const = default;
};
// The running jobs on the Slurm nodes of the hosts `crossing` names.
AffectedJobs affected_jobs(const fabric::HostMap& hosts, const fabric::LinkHosts& crossing,
                           const JobIndex& jobs);

// The stored form ({"hosts", "unmapped", "nodes", "jobs"}); parse_affected reads it back (nullopt
// for
// "" or text that is not that object).
std::string affected_text(const AffectedJobs& a);
std::optional<AffectedJobs> parse_affected(const std::string& text);
nlohmann::ordered_json jobs_json(const std::vector<AffectedJob>& jobs);  // id, user, nodes
// Sets out["affected_hosts"] and out["affected_jobs"] (null, null when `a` is nullopt).
void put_affected(nlohmann::json& out, const std::optional<AffectedJobs>& a);

// How to reach Slurm's commands, from the slurm: section.
SlurmCommands slurm_commands(const config::SlurmSection& s);

}  // namespace ibw::actions
