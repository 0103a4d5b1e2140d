// The running Slurm jobs on a set of Slurm nodes, for `ibwarden jobs --link` (issue 33 item
// 4): one call from the node names to the jobs (id, user, node count).
// With `slurm.enabled` it asks Slurm (actions/slurm_client.h: one squeue, filtered by node);
// otherwise it returns nullopt, which `ibwarden jobs` prints as
// "jobs: not available (slurm section not configured)" (JSON "jobs": null). A Slurm command
// that fails throws actions::SlurmError naming it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"

namespace ibw::cli {

struct RunningJob {
  std::string id;    // Slurm job id ("1234", "1234_7" for an array task)
  std::string user;  // the job's user name
  int nodes = 0;     // nodes the job runs on (all of them, not only those given)
};

// The jobs running on any of `nodes`, each once (none for no nodes); nullopt when Slurm is
// not configured.
std::optional<std::vector<RunningJob>> running_jobs(const config::Config& cfg,
                                                    const std::vector<std::string>& nodes);

}  // namespace ibw::cli
