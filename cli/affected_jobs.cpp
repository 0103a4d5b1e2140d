// running_jobs; see affected_jobs.h.
#include "cli/affected_jobs.h"

namespace ibw::cli {

std::optional<std::vector<RunningJob>> running_jobs(const config::Config& /*cfg*/,
                                                    const std::vector<std::string>& /*nodes*/) {
  // TODO(issue 33, Slurm client): plug the Slurm client in here: when cfg has a `slurm:`
  // section, return its running jobs on `nodes` (id, user, node count). Not on main yet.
  return std::nullopt;
}

}  // namespace ibw::cli
