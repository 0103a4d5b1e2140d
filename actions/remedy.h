// Remediation: turns confirmed rule verdicts and operator requests into guarded port actions,
// recorded decisions and repair work orders (core/remedy_records.h), through the store's
// RemedyStore role. The daemon's action worker and
// the manual `ibwarden disable|enable` commands both go through it, so the guard, the records
// and the order lifecycle are the same on every path.
//
// For a confirmed verdict on a link (the store is read first, so this holds across restarts
// and across processes):
//  - an active order (open, in_progress, reopened) for the link: nothing new (one open order
//    per cable, and no decision per sweep);
//  - a resolved/verified order and evidence no newer than the repair: stale, nothing;
//  - otherwise a new offence: the order is opened (or reopened, offences + 1) and, for rules
//    whose action is disable/isolate, the guard decides on the switch end of the link:
//    dry_run is recorded as such, refused makes the order "needs a human", allowed runs the
//    disable through the PortExecutor and reads the state back (Disabled = executed).
//    A link past max_auto_offences is escalated instead: no more automatic disables, the
//    order is critical and needs a human (it came back bad after repeated repairs).
// Manual enable re-enables the end ibwarden disabled and marks the link's order resolved;
// verify_due() turns resolved orders that stayed clean for verify_after into verified.
// Not thread-safe: one Remediator per thread (it uses the caller's Store connection).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "actions/affected_jobs.h"
#include "actions/guard.h"
#include "actions/port_control.h"
#include "core/remedy_records.h"
#include "fabric/model.h"
#include "fabric/plan.h"
#include "ingest/correlator.h"
#include "rules/evaluate.h"
#include "store/roles.h"

namespace ibw::actions {

// What the next port action is for. The Remediator sets it right before each disable/enable;
// executors that act through a manager (UfmExecutor: port name, audit event with the reason)
// need it, SMP ignores it.
struct ActionContext {
  uint64_t node_guid = 0;  // the port acted on
  int port = 0;
  std::string node;      // display name
  std::string rule;      // "manual" for the operator path
  std::string reason;    // why, as recorded on the decision
  bool isolate = false;  // the rule asked for isolation (action: isolate) rather than disable
};

// Runs port actions on the fabric (SmpExecutor or UfmExecutor in the daemon, a fake in
// tests). Throws std::runtime_error on failure.
class PortExecutor {
 public:
  virtual ~PortExecutor() = default;
  virtual PortChange disable(const PortAddress& node, int port) = 0;
  virtual PortChange enable(const PortAddress& node, int port) = 0;
  virtual void set_context(const ActionContext& /*context*/) {}
  // The port's state now, for reconciling an intent whose outcome was never recorded (a
  // crash between the request and its record). Throws when it cannot be read.
  virtual PortReading read(const PortAddress& node, int port) = 0;
  // False when the executor finds the port by its GUID (ActionContext) and needs no LID or
  // directed route.
  virtual bool needs_address() const { return true; }
};

// Cable ID -> planned link, for locations on work orders.
class PlanIndex {
 public:
  explicit PlanIndex(const fabric::Plan* plan);
  const fabric::PlannedLink* find(const std::string& cable_id) const;

 private:
  std::unordered_map<std::string, const fabric::PlannedLink*> by_cable_;
};

struct RemedyConfig {
  GuardConfig guard;
  int64_t verify_after_us = 24LL * 3600 * 1'000'000;
  int max_auto_offences = 2;  // offences after which automation stops disabling the link
  bool outbox = false;        // queue webhook deliveries for order changes
};

// The fabric as the caller sees it now.
struct RemedyContext {
  const fabric::Fabric* fabric = nullptr;
  const ingest::Correlator* correlator = nullptr;  // may be null (no names/cables)
  const PlanIndex* plan = nullptr;                 // may be null
  PortKey sm_port;                                 // never disabled (guard)
  // The local CA port SMPs leave from: port actions use a directed route from it over the
  // model's active links (the SM's routes may lead through a just-disabled link). Unset:
  // LID routing.
  PortKey local_port;
  // The running Slurm jobs the link at (guid, port) carries, or nullopt when not known (no
  // Slurm, its jobs not read yet). Unset (the manual CLI): not asked, the fields stay null.
  // Asked before the port action, put on the order (affected_json) and the decision's
  // evidence (affected_hosts, affected_jobs).
  std::function<std::optional<AffectedJobs>(uint64_t guid, int port)> affected;
  // The name of a node the model does not hold now (a switch down or rebooting when its
  // order is made), from what was seen before (the daemon's port table); empty when never
  // seen. Unset: such a node is named by its GUID.
  std::function<std::string(uint64_t guid)> known_name;
};

// A verdict and the port's last counter reading (evidence).
struct Finding {
  rules::Verdict verdict;
  ingest::CounterSample counters;
};

class Remediator {
 public:
  Remediator(RemedyConfig config, store::RemedyStore& store, PortExecutor* executor);

  // Handles one verdict (unconfirmed ones, action none and congestion verdicts, which are a
  // signal and not a fault, are ignored). Returns the stored
  // decision, or nullopt when nothing new was decided.
  std::optional<core::DecisionRecord> on_finding(const Finding& finding, const RemedyContext& ctx,
                                                 int64_t now_us);
  // When the verdict's link has a repaired (resolved or verified) work order: its two ends
  // and the repair time. The caller drops the verdict and floors the rules' history of both
  // ends at that time (rules::History::set_floor): a window that reaches back before the
  // repair mixes the old cable's errors (and those counted while the port was disabled) into
  // the judgement of the repaired one.
  struct Repair {
    std::pair<uint64_t, int> a, b;  // b.first 0 when the peer is unknown
    int64_t resolved_us = 0;
    std::string where;  // "leaf001/3"
  };
  std::optional<Repair> repaired(const Finding& finding, const RemedyContext& ctx);
  // While there is no master SM: a verdict that would disable (or isolate) a port is recorded
  // as a decision with status "held" and `reason` (no guard, no port action, no work order);
  // the caller runs it through on_finding() once a master is back. A dedup_key already stored
  // (the same hold again) stores nothing. Work-order verdicts are not held (nullopt).
  std::optional<core::DecisionRecord> hold(const Finding& finding, const RemedyContext& ctx,
                                           int64_t now_us, const std::string& reason,
                                           const std::string& dedup_key);
  // Operator path: rule "manual", the operator's reason, force for the guard's soft rules.
  core::DecisionRecord manual(PortAction action, uint64_t guid, int port, const std::string& reason,
                              bool force, const RemedyContext& ctx, int64_t now_us);
  // Resolved orders clean since resolved_us + verify_after become verified. Returns how many.
  int verify_due(int64_t now_us);
  // Active orders whose affected jobs changed get the new list (updated_us = now; an
  // operator's edit meanwhile wins, the next refresh tries again): the running jobs
  // (`jobs_on`) on the Slurm nodes stored when the order was opened (its link, disabled,
  // carries no route now), or for an order stored without them the link's (`affected`, asked
  // for its a end). Orders whose jobs are not known now keep theirs. Returns how many changed.
  using JobsOn =
      std::function<std::optional<std::vector<AffectedJob>>(const std::vector<std::string>&)>;
  int refresh_affected(
      const JobsOn& jobs_on,
      const std::function<std::optional<AffectedJobs>(uint64_t guid, int port)>& affected,
      int64_t now_us);
  // Completes every intent left pending (a crash between a port request and its record) from
  // the port's real state, read through the executor: executed when it shows what the intent
  // asked for, else failed; a disable's disabled_ports row is kept or removed to match. A port
  // that cannot be read stays pending (and counts against the guard's caps). Returns the
  // decisions completed; *left, when given, the ones still pending. Only intents stored
  // before `before_us` are read: a running process passes now_us - kInFlightUs, so an action
  // still in flight (its own or another process's) is never completed under it.
  std::vector<core::DecisionRecord> reconcile(const RemedyContext& ctx, int64_t now_us,
                                              size_t* left = nullptr,
                                              int64_t before_us = INT64_MAX);
  // Longer than any port action takes (UFM: job and read-back): an intent older than this is
  // no longer in flight, but left by a crash or an action whose outcome was unknown.
  static constexpr int64_t kInFlightUs = int64_t{600} * 1000 * 1000;

  // The guard's state as stored (disabled ports, executed disables in the last hour).
  static GuardState load_guard_state(store::RemedyStore& store, int64_t now_us);

 private:
  // The guard's check and, when it allows the request, the intent (a "pending" decision, for
  // a disable with its disabled_ports row) in one store transaction (Store::write_guarded):
  // concurrent callers in any process never both pass a cap. *state gets the guard's inputs
  // as read; *intent_id the pending decision's id (0 when not allowed). A request is refused
  // (rule "in_flight") while the opposite action on the same link is pending and younger than
  // 10 minutes: an enable recorded before the disable it overtook would drop the disabled
  // port's row. Older pending intents are a crash's leftovers (reconciled at the next start).
  Decision guard_and_intend(const Request& req, const RemedyContext& ctx, int64_t now_us,
                            core::DecisionRecord pending, const std::string& link_key,
                            GuardState* state, int64_t* intent_id);
  // Whether a disable was already decided (any status) for the order's link since it opened.
  bool disable_tried(const core::WorkOrder& order);
  // Writes a batch whose one work order was built from `before` (read before the port action,
  // which can take seconds), conditionally on the order's version: when an operator changed
  // the order meanwhile (PATCH), the order is rebased on the fresh row (rebase_order) and the
  // batch written again, so neither the action's record nor the operator's edit is lost.
  store::WriteResult write_after_action(store::WriteBatch& batch,
                                        const std::optional<core::WorkOrder>& before);
  // The decision into the batch, written with write_after_action: the completion of its
  // intent (intent: the pending decision's id) or, with none, a new record. Returns it with
  // its id.
  core::DecisionRecord write_decision(store::WriteBatch& batch, core::DecisionRecord d,
                                      int64_t intent, const std::optional<core::WorkOrder>& before);

  RemedyConfig config_;
  Guard guard_;
  store::RemedyStore& store_;
  PortExecutor* executor_;
};

}  // namespace ibw::actions
