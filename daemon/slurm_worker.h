// SlurmWorker: the daemon's Slurm drain thread (issue 33 item 3, docs/slurm.md). Once a second
// it judges every mapped host (daemon/slurm_hosts.h: the port table, the ports ibwarden
// disabled, host_down incidents) and hands the views to actions::SlurmDrainer, which drains
// and resumes Slurm nodes through scontrol and records each as a decision (intent first). It
// runs on a thread of its own with its own store connection, so a slow or failing Slurm never
// blocks the action worker or ingest: its only queue is the list of hosts of one pass, bounded
// by the fabric. Failures are logged once per node and backoff step, counted for /metrics, and
// shown on /api/v1/health as the source "slurm" (degraded with the last error). A store that
// fails is reopened every second, the drainer's state kept; it is logged when it starts, when
// its error changes and once a minute, and shown on the health as "store: <error>".
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "actions/slurm_drain.h"
#include "config/config.h"
#include "daemon/fabric_state.h"
#include "daemon/slurm_hosts.h"
#include "store/store.h"

namespace ibw::daemon {

class SlurmWorker {
 public:
  // `client`: null = scontrol per the configuration (tests may give a fake). `fabric` must
  // outlive the worker.
  SlurmWorker(const config::Config& cfg, FabricState& fabric,
              std::unique_ptr<actions::SlurmClient> client = nullptr);
  ~SlurmWorker();
  SlurmWorker(const SlurmWorker&) = delete;
  SlurmWorker& operator=(const SlurmWorker&) = delete;
  // The store it records into (a lease holder's fenced spec); default: the configuration's.
  void set_store(store::StoreSpec spec);
  void start();
  void stop();
  const actions::SlurmStats& stats() const { return stats_; }

 private:
  void loop();
  void pass(store::Store& db, actions::SlurmDrainer& drainer);

  config::Config cfg_;
  FabricState& fabric_;
  std::unique_ptr<actions::SlurmClient> client_;
  std::optional<store::StoreSpec> spec_;
  actions::SlurmStats stats_;
  SlurmHosts hosts_;
  const void* learned_ = nullptr;  // the topology last learned
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
  int64_t errors_ = 0;  // store failures in a row (the worker thread's)
  std::string last_error_;
  int64_t last_log_us_ = 0;
};

}  // namespace ibw::daemon
