// Reconciling pending port-action intents (daemon/remedy_setup.h): at start, and the log of it.
#include <algorithm>

#include "daemon/logger.h"
#include "daemon/remedy_setup.h"

namespace ibw::daemon {

void log_reconciled(const std::vector<core::DecisionRecord>& done, size_t left) {
  for (const auto& d : done)
    log(LogLevel::warning, "pending port action reconciled",
        {{"decision", d.id},
         {"action", d.action},
         {"node", d.node},
         {"port", d.port},
         {"status", d.status},
         {"reason", d.reason}});
  if (left)
    log(LogLevel::error,
        "pending port actions whose ports cannot be read: left pending, counted against the "
        "guard's caps",
        {{"pending", left}});
}

size_t reconcile_intents(fabric::MadLocks& mad, const config::Config& cfg, store::Store& db,
                         const fabric::Plan* plan, const fabric::NodeNameMap* names,
                         int64_t now_us) {
  const auto intents = db.pending_decisions();  // Slurm's finish on their own (slurm_drain.h)
  const size_t pending =
      static_cast<size_t>(std::count_if(intents.begin(), intents.end(), core::is_port_action));
  if (pending == 0) return 0;
  log(LogLevel::warning, "port actions left pending by the last run: reading their ports back",
      {{"pending", pending}});
  auto topo = discover_topology(mad, cfg, plan, names, now_us);
  actions::PlanIndex index(plan);
  actions::RemedyContext ctx = remedy_context(*topo, &index, local_lids(mad, cfg));
  std::unique_ptr<actions::PortExecutor> executor = port_executor(mad, cfg);
  actions::Remediator remedy(remedy_config(cfg), db, executor.get());
  size_t left = 0;
  auto done = remedy.reconcile(ctx, now_us, &left);
  log_reconciled(done, left);
  return left;
}

}  // namespace ibw::daemon
