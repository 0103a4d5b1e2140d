// SlurmLab: a real, private Slurm 22.05 (Debian's slurmctld, slurmd, munge) for one test, the
// scheduler side of issue 33's drain and resume. From a fresh temp dir: munged with its own
// key and socket, slurmctld and one slurmd from a generated slurm.conf (SlurmctldHost=
// localhost, free TCP ports picked at start, SlurmUser=root, proctrack/linuxproc, task/none,
// no cgroups, no accounting), every node in one default partition `lab`.
//
// Nodes are named as the ibsim lab's hosts (node0001 ...). Only the FIRST node runs a slurmd
// (slurmd -N NAME, so jobs run there); the others are defined but not responding (their
// NodeAddr points at a closed port): `scontrol update ... state=drain` works on them, jobs do
// not. Slurm commands of the test (and of an ibwarden it starts: pass env()) reach this
// cluster through SLURM_CONF. Start-up takes about half a second.
//
// The destructor cancels the jobs, stops slurmd, slurmctld and munged, kills any job step
// still running with this lab's SLURM_CONF (slurmstepd leaves slurmd's process group) and
// removes the dir (IBW_KEEP_LAB=1 keeps it). Daemons also get SIGTERM if the test dies.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "tests/lab/sim_lab.h"

namespace ibw::lab {

class SlurmLab {
 public:
  // nodes: at least one; nodes[0] gets the slurmd. Throws std::runtime_error (what is missing
  // and "run scripts/install-deps.sh", or the tail of a daemon's log).
  explicit SlurmLab(std::vector<std::string> nodes);
  ~SlurmLab();
  SlurmLab(const SlurmLab&) = delete;
  SlurmLab& operator=(const SlurmLab&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& conf() const { return conf_; }  // slurm.conf
  const std::vector<std::string>& nodes() const { return nodes_; }
  const std::string& slurmd_node() const { return nodes_.front(); }
  std::chrono::milliseconds start_time() const { return start_time_; }
  // The environment a Slurm client of this cluster needs: {{"SLURM_CONF", conf()}}.
  std::map<std::string, std::string> env() const { return {{"SLURM_CONF", conf_}}; }

  // Runs a Slurm command (scontrol, squeue, sbatch, ...) against this cluster.
  RunResult run(const std::vector<std::string>& argv,
                std::chrono::seconds timeout = std::chrono::seconds(20)) const;
  // Submits `command` as a batch job on `node` (sbatch -w); returns the job id. Throws.
  std::string sbatch(const std::string& node, const std::string& command,
                     const std::string& name = "ibwtest") const;
  // `scontrol show node -o NODE` (one line), and `squeue -h -o '%i|%u|%D|%N|%T'`. Throw.
  std::string show_node(const std::string& node) const;
  std::string squeue() const;
  // Drains `node` with `reason` as an operator would (scontrol update). Throws.
  void drain(const std::string& node, const std::string& reason) const;
  // Waits until squeue shows job `id` RUNNING; false after the timeout.
  bool wait_running(const std::string& id, std::chrono::seconds timeout) const;

 private:
  void teardown();

  std::string dir_;
  std::string conf_;
  std::vector<std::string> nodes_;
  pid_t munged_ = -1;
  pid_t slurmctld_ = -1;
  pid_t slurmd_ = -1;
  std::chrono::milliseconds start_time_{0};
};

}  // namespace ibw::lab
