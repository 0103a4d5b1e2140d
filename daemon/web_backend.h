// WebBackend: the daemon's implementation of web::ApiBackend (web/backend.h). It reads the
// daemon's live state through the callbacks it is given (current topology, source health,
// last sweep), runs manual port actions through the same actions::Remediator and guard as
// `ibwarden disable|enable` (one store connection and one port executor per call, SMP or UFM
// as actions.via says; SMP users share the process's MadLocks, deps.mad), and runs cabling
// audits of the plan against the current topology. It opens any fabric's rows of the store
// (the web UI shows every fabric in it) but acts only on its own, and only while it is the
// leader. Thread-safe: the API calls it from several worker threads.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "actions/remedy.h"
#include "actions/slurm_drain.h"
#include "config/config.h"
#include "daemon/congestion_state.h"
#include "daemon/job_board.h"
#include "daemon/probe_state.h"
#include "daemon/route_check_state.h"
#include "daemon/sm_board.h"
#include "daemon/source_health.h"
#include "daemon/topology.h"
#include "rules/incidents.h"
#include "web/backend.h"

namespace ibw::daemon {

struct WebBackendDeps {
  config::Config cfg;
  const fabric::Plan* plan = nullptr;  // may be null (no audit then)
  // The process's MAD locks (fabric/smp_port.h), shared with the sources and the action
  // worker. Port actions need it (refused without); reads and audits do not.
  fabric::MadLocks* mad = nullptr;
  std::function<std::shared_ptr<const Topology>()> topology;
  SourceHealthBoard* health = nullptr;                // "opensm", "counters", "ufm", ...
  ProbeState* probes = nullptr;                       // null when probing is off
  const rules::IncidentTracker* incidents = nullptr;  // the publish sequence's (GET /incidents)
  const CongestionBoard* congestion = nullptr;        // null: no congestion findings to show
  const RouteCheckBoard* route_check = nullptr;       // null: no route check to show
  const SmBoard* sm = nullptr;                        // the subnet manager's state
  const actions::SlurmStats* slurm = nullptr;         // null without slurm.enabled
  const JobBoard* jobs = nullptr;                     // the running Slurm jobs (metrics)
  const store::AdminStore* writer = nullptr;          // the daemon's store connection (checkpoints)
  LinkJobs* link_jobs = nullptr;  // null without Slurm: affected jobs null on incidents
  int64_t started_us = 0;
  int rules_loaded = -1;  // enabled rules; -1 without a rules file
  // High availability: whether this instance holds its fabric's lease now. Null = no HA
  // (always the leader). On a standby, manual port actions answer 409 naming the leader.
  std::function<bool()> is_leader;
  // Called after an executed manual port action with its decision (the daemon reads the
  // port back into its port table); may be empty.
  std::function<void(const core::DecisionRecord&)> after_action;
};

class WebBackend : public web::ApiBackend, public web::ProbeBackend {
 public:
  explicit WebBackend(WebBackendDeps deps)
      : deps_(std::move(deps)),
        plan_index_(deps_.plan),
        intake_(
            {deps_.cfg.probes.post_records_per_minute, deps_.cfg.probes.post_bytes_per_minute}) {}

  // fabric "" or the own name: the daemon's store spec; another: the spec with its fabric
  // replaced, when the store holds it (404 otherwise).
  std::unique_ptr<store::Store> open_store(const std::string& fabric, bool writable) override;
  std::string fabric() override { return deps_.cfg.fabric.name; }
  std::vector<store::FabricEntry> fabrics() override;
  web::Health health() override;
  core::DecisionRecord port_action(const web::PortActionRequest& request) override;
  std::optional<nlohmann::json> last_audit() override;
  nlohmann::json run_audit() override;
  bool webhook_outbox() override { return deps_.cfg.workorders.webhook.has_value(); }
  nlohmann::json incidents(int64_t since_us) override;
  web::ProbeBackend* probes() override { return deps_.probes ? this : nullptr; }
  nlohmann::json suspects() override;
  nlohmann::json congestion() override;
  nlohmann::json route_check() override;
  nlohmann::json route_health() override;
  // Past the intake quota or with probes.max_posted observations waiting: web::RetryLater.
  nlohmann::json submit_probes(const std::string& text, const std::string& actor,
                               const std::string& peer) override;

  // The counter loop reports each sweep here (for /health and /metrics).
  void sweep_done(double seconds, int64_t end_us);

 private:
  WebBackendDeps deps_;
  const actions::PlanIndex plan_index_;  // built once: a large plan costs ms per request
  std::mutex mutex_;
  std::optional<nlohmann::json> last_audit_;
  std::mutex fabrics_mutex_;                     // guards fabrics_store_
  std::unique_ptr<store::Store> fabrics_store_;  // fabrics(): one read-only connection, reused
  double sweep_seconds_ = -1;
  int64_t sweep_time_us_ = 0;
  IntakeQuota intake_;                       // POST /probes per source
  std::atomic<int64_t> warned_quota_us_{0};  // the last quota warning (one a minute)
};

}  // namespace ibw::daemon
