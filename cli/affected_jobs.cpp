// running_jobs; see affected_jobs.h.
#include "cli/affected_jobs.h"

#include "actions/slurm_client.h"

namespace ibw::cli {

std::optional<std::vector<RunningJob>> running_jobs(const config::Config& cfg,
                                                    const std::vector<std::string>& nodes) {
  if (!cfg.slurm.enabled) return std::nullopt;
  std::vector<RunningJob> out;
  if (nodes.empty()) return out;  // the client would list every running job
  actions::SlurmCommands commands;
  commands.scontrol = cfg.slurm.scontrol;
  commands.squeue = cfg.slurm.squeue;
  commands.timeout = std::chrono::milliseconds(cfg.slurm.timeout_us / 1000);
  actions::CommandSlurmClient client(commands);
  for (auto& j : client.running_jobs(nodes)) out.push_back({j.id, j.user, j.node_count});
  return out;
}

}  // namespace ibw::cli
