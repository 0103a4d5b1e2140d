// Remediation wiring shared by the daemon's action worker and the manual commands
// (`ibwarden disable|enable`): guard settings from the configuration, the SM's port on the
// fabric (never disabled), and the webhook secret.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "actions/remedy.h"
#include "config/config.h"
#include "daemon/topology.h"
#include "store/store.h"

namespace ibw::daemon {

actions::RemedyConfig remedy_config(const config::Config& cfg);
// The local umad port's LID and the subnet manager's LID as it knows them; zeros when they
// cannot be read. `mad`: the process's MAD locks (fabric/smp_port.h), here and below.
struct LocalLids {
  uint16_t lid = 0;
  uint16_t sm_lid = 0;
};
LocalLids local_lids(fabric::MadLocks& mad, const config::Config& cfg);
// The port holding `lid` in the fabric model ({} when none does; port 0 for a switch).
actions::PortKey find_lid_port(const fabric::Fabric& fabric, uint16_t lid);
// ctx.sm_port and ctx.local_port for a fabric.
void set_local_ports(actions::RemedyContext& ctx, const LocalLids& lids);
// The context port actions run in: the topology's fabric and correlator, the plan index,
// and the SM's and local ports. topo and plan must outlive it.
actions::RemedyContext remedy_context(const Topology& topo, const actions::PlanIndex* plan,
                                      const LocalLids& lids);
// The PortExecutor for actions.via: smp -> SmpExecutor (PortInfo Set over the local umad
// port; each MAD bounded by actions.timeout / 4), ufm -> UfmExecutor (UFM jobs bounded by
// actions.timeout; credentials read now: throws naming the variable or file when missing).
std::unique_ptr<actions::PortExecutor> port_executor(fabric::MadLocks& mad,
                                                     const config::Config& cfg);
// Wraps an executor so that every disable and enable first asks may_act() (a lease holder:
// LeaseKeeper::held) and throws, sending nothing, when it is false: the SMP is the one write a
// store fence cannot stop. Reads pass through.
std::unique_ptr<actions::PortExecutor> fenced_executor(std::unique_ptr<actions::PortExecutor> inner,
                                                       std::function<bool()> may_act);
// Logs what Remediator::reconcile did: each decision completed (warning) and, when `left`,
// that many still pending (error).
void log_reconciled(const std::vector<core::DecisionRecord>& done, size_t left);
// Completes the port-action intents a previous run left pending (a crash between a request
// and its record; actions::Remediator::reconcile): when there are any, a discovery of its
// own, then each port read back over the configured executor. Each one is logged. Returns
// how many are still pending (their ports could not be read; they keep counting against the
// guard's caps). Throws when the fabric cannot be discovered.
size_t reconcile_intents(fabric::MadLocks& mad, const config::Config& cfg, store::Store& db,
                         const fabric::Plan* plan, const fabric::NodeNameMap* names,
                         int64_t now_us);
// The webhook's bearer secret from workorders.webhook_secret_env or _file ("" when neither is
// set). Throws std::runtime_error naming the variable or file when it is set but unusable.
std::string webhook_secret(const config::Config& cfg);

}  // namespace ibw::daemon
