// ActionWorker: the daemon's remediation thread. Verdicts found by the rule runner arrive as
// jobs on a small bounded queue; the worker runs each through actions::Remediator (guard,
// SMP port action with read-back, decision and work order in one store transaction) with its
// own store connection, off the ingest path. A full queue drops the new job (logged): the
// verdicts fire again on the next evaluation while their evidence is in the window, so
// nothing is lost, and ingest never waits for a slow switch. A failing action is recorded as
// failed and never stops the worker. While there is no master SM (set_hold) verdicts that
// would disable a port are recorded as held instead. Every minute it also verifies repaired orders
// and reads back the ports of intents still pending (set_topology).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "actions/remedy.h"
#include "config/config.h"
#include "daemon/remedy_setup.h"
#include "daemon/topology.h"

namespace ibw::daemon {

struct ActionJob {
  std::shared_ptr<const Topology> topo;
  std::vector<actions::Finding> findings;
};

class ActionWorker {
 public:
  // `mad`: the process's MAD locks (fabric/smp_port.h), shared with every other SMP user of
  // the process; it must outlive the worker.
  ActionWorker(fabric::MadLocks& mad, const config::Config& cfg, const fabric::Plan* plan);
  ~ActionWorker();
  ActionWorker(const ActionWorker&) = delete;
  ActionWorker& operator=(const ActionWorker&) = delete;

  // The store the worker records into (default: the configuration's). A lease holder gives
  // its fenced spec and may_act (LeaseKeeper::held): every port action is refused, and
  // nothing recorded, once may_act() is false. Call before start().
  void set_store(store::StoreSpec spec, std::function<bool()> may_act);
  // Called on the action thread after every executed port action (the decision as stored):
  // the daemon reads the port back into its port table, so the API shows it at once.
  void set_after_action(std::function<void(const core::DecisionRecord&)> after);
  // Asked before each job: a reason (SmBoard::hold_reason, e.g. "no master SM") holds every
  // verdict that would disable a port: it is recorded once per port and hold as a "held"
  // decision (actions::Remediator::hold) and run through the guard as usual when it fires
  // again once the reason is gone. Call before start().
  void set_hold(std::function<std::optional<std::string>()> hold);
  // The names of nodes the topology no longer holds (actions::RemedyContext::known_name; the
  // daemon's port table): a switch down when its order is made is still named. Call before
  // start().
  void set_known_names(std::function<std::string(uint64_t)> known_name);
  // The daemon's current topology (FabricState::topology), for reading back the ports of
  // intents whose outcome is still pending: once a minute (each second until a topology is
  // known), those no longer in flight (older than Remediator::kInFlightUs) and those left by
  // an earlier run that the start could not read (stored before start()). Without it (or
  // before the first discovery) they wait. Call before start().
  void set_topology(std::function<std::shared_ptr<const Topology>()> topology);
  // Called (on the action thread) for each end of a link whose verdict came after a repair
  // of it (actions::Remediator::repaired): the daemon floors the rules' history there
  // (rules::RuleRunner::set_floor); returns false when it was floored there already. Without
  // it, such verdicts go to on_finding as before. Call before start().
  void set_floor(std::function<bool(uint64_t, int, int64_t)> floor);
  // The running Slurm jobs a link carries (daemon/job_board.h LinkJobs), put on every order
  // and decision (actions::RemedyContext::affected) and refreshed on the active orders every
  // slurm.jobs_refresh (Remediator::refresh_affected). Without it the fields stay null.
  // Call before start().
  // `jobs_on`: the running jobs on a list of Slurm nodes (JobBoard), for the refresh.
  void set_affected(std::function<std::optional<actions::AffectedJobs>(uint64_t, int)> affected,
                    actions::Remediator::JobsOn jobs_on);
  void start();
  // Finishes the job in progress, drops queued ones (they are re-derived after a restart).
  void stop();
  // False when the queue is full and the job was dropped.
  bool submit(ActionJob job);

 private:
  void loop();
  void run_job(const ActionJob& job, actions::Remediator& remedy);
  // The remedy context of `topo`: the local LIDs (read once) and the port table's names.
  actions::RemedyContext context(const Topology& topo);
  // Intents no longer in flight whose outcome is still pending (a port action whose Set and
  // read-back went unanswered, another process's crash, or an earlier run's intent the start
  // could not read): read back and completed.
  // False when no topology is known yet (nothing read).
  bool reconcile_stale(actions::Remediator& remedy);

  fabric::MadLocks& mad_;
  config::Config cfg_;
  std::optional<store::StoreSpec> spec_;
  std::function<bool()> may_act_;
  std::function<void(const core::DecisionRecord&)> after_action_;
  std::function<std::optional<std::string>()> hold_;
  std::function<std::string(uint64_t)> known_name_;
  std::function<std::shared_ptr<const Topology>()> topology_;
  std::function<bool(uint64_t, int, int64_t)> floor_;
  std::function<std::optional<actions::AffectedJobs>(uint64_t, int)> affected_;
  actions::Remediator::JobsOn jobs_on_;
  int64_t hold_since_us_ = 0;                // when the current hold began; 0: none
  std::set<std::pair<uint64_t, int>> held_;  // ports with a held decision not yet acted on
  actions::PlanIndex plan_;
  LocalLids lids_;
  int64_t started_us_ = 0;  // start(): intents stored before it are no longer in flight here
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<ActionJob> queue_;
  size_t capacity_ = 8;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ibw::daemon
