// The daemon's view of the running Slurm jobs (issue 33 item 4). JobBoard holds the last
// `squeue` of every running job, read every slurm.jobs_refresh by the "slurm_jobs" source
// (daemon/sources/slurm_jobs.cpp) on its own thread, as an immutable actions::JobIndex the
// action worker and the web API share (they never wait for Slurm), capped at kMaxJobs jobs
// (the jobs past the cap are dropped and counted), with its counters for /metrics.
// LinkJobs answers "which running jobs does this link carry?" from the board, the current
// topology and routes (fabric::hosts_of_link: static over the LFTs when probes.routes is
// static and they are loaded, else every minimal route) and the Slurm node of each CA
// (fabric::HostMap, built once per topology): actions::affected_jobs, the same function
// `ibwarden jobs --link` uses. nullopt when the jobs are not known (Slurm off, not read yet).
// Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "actions/affected_jobs.h"
#include "config/config.h"
#include "daemon/topology.h"

namespace ibw::daemon {

class FabricState;

class JobBoard {
 public:
  static constexpr size_t kMaxJobs = 100'000;

  struct Stats {
    bool enabled = false;
    int64_t running = -1;      // jobs in the last read (after the cap); -1: none read yet
    uint64_t failures = 0;     // reads that failed since start
    uint64_t capped = 0;       // jobs dropped at the cap since start
    int64_t refreshed_us = 0;  // the last successful read
  };

  void configure(bool enabled);
  // A successful read: the first kMaxJobs jobs are kept, the rest counted as capped.
  void set(std::vector<actions::SlurmJob> jobs, int64_t now_us);
  // A read that failed: counted; the last good index stays (the jobs change slowly).
  void failed();
  // The last read; null before the first one (or with Slurm off).
  std::shared_ptr<const actions::JobIndex> index() const;
  Stats stats() const;

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const actions::JobIndex> index_;
  Stats stats_;
};

// A link end or a whole node (port 0: every linked port of it).
using PortRefs = std::vector<std::pair<uint64_t, int>>;

class LinkJobs {
 public:
  LinkJobs(const FabricState& fabric, const config::Config& cfg) : fabric_(fabric), cfg_(cfg) {}
  // The jobs on the hosts whose routes cross any of `ports`' links; nullopt when not known.
  std::optional<actions::AffectedJobs> of(const PortRefs& ports);
  std::optional<actions::AffectedJobs> of_link(uint64_t guid, int port) {
    return of({{guid, port}});
  }

 private:
  const FabricState& fabric_;
  const config::Config& cfg_;
  std::mutex mutex_;  // guards the host map cache
  std::shared_ptr<const Topology> mapped_;
  std::shared_ptr<const fabric::HostMap> hosts_;
};

}  // namespace ibw::daemon
