// Remediation flow; see remedy.h for the policy.
#include "actions/remedy.h"

#include "actions/evidence.h"
#include "actions/execute_step.h"
#include "actions/link_view.h"
#include "actions/order_text.h"
#include "fabric/json_text.h"
#include "store/remedy_json.h"

namespace ibw::actions {
namespace remedy_detail {

constexpr int64_t kHourUs = int64_t{3600} * 1000 * 1000;

std::string severity_for(const core::WorkOrder& o, ingest::Severity s) {
  if (o.needs_human || o.offences >= 3) return "critical";
  return std::string(ingest::severity_name(s));
}

// The verdict's explanation without its "0xGUID/PORT: rule: " prefix (records name the port).
std::string verdict_text(const rules::Verdict& v) {
  std::string what = v.explanation;
  if (auto at = what.find(": " + v.rule + ": "); at != std::string::npos)
    what = what.substr(at + v.rule.size() + 4);
  return what;
}

// Writes an order read from the store, unless it changed since (an operator's edit wins:
// false, looked at again on the next call); queues its webhook delivery when `outbox`.
bool write_if_version(store::RemedyStore& store, bool outbox, core::WorkOrder o) {
  store::WriteBatch batch;
  batch.outbox = outbox;
  batch.workorders_if_version = true;
  batch.workorders.push_back(std::move(o));
  try {
    store.write(batch);
    return true;
  } catch (const store::StoreConflict&) {
    return false;
  }
}

}  // namespace remedy_detail

PlanIndex::PlanIndex(const fabric::Plan* plan) {
  if (!plan) return;
  by_cable_.reserve(plan->links.size());
  for (const auto& l : plan->links) by_cable_.emplace(l.cable_id, &l);
}

const fabric::PlannedLink* PlanIndex::find(const std::string& cable_id) const {
  if (cable_id.empty()) return nullptr;
  auto it = by_cable_.find(cable_id);
  return it == by_cable_.end() ? nullptr : it->second;
}

Remediator::Remediator(RemedyConfig config, store::RemedyStore& store, PortExecutor* executor)
    : config_(config), guard_(config.guard), store_(store), executor_(executor) {}

GuardState Remediator::load_guard_state(store::RemedyStore& store, int64_t now_us) {
  GuardState s;
  for (const auto& d : store.disabled_ports()) {
    PortKey k{d.node_guid, d.port};
    s.disabled.insert(k);
    if (auto ends = parse_link_key(d.link_key); ends && ends->second.guid)
      s.peer_of[k] = ends->first == k ? ends->second : ends->first;
  }
  s.disable_times = store.disable_times(now_us - remedy_detail::kHourUs);
  return s;
}

bool Remediator::disable_tried(const core::WorkOrder& order) {
  store::DecisionQuery q;
  q.link_key = order.link_key, q.since_us = order.opened_us, q.limit = 0;
  for (const auto& d : store_.decisions(q))
    if (d.action == "disable" && d.status != "held") return true;  // held: never tried
  return false;
}

std::optional<core::DecisionRecord> Remediator::on_finding(const Finding& f,
                                                           const RemedyContext& ctx, int64_t now) {
  namespace rd = remedy_detail;
  const rules::Verdict& v = f.verdict;
  if (!v.confirmed || v.action == rules::Action::none) return std::nullopt;
  if (rules::is_congestion_verdict(v)) return std::nullopt;  // a signal, never an order
  LinkView link = link_view(ctx, v.node_guid, v.port);
  auto old = store_.workorder_by_link(link.link_key);
  bool wants_disable = v.action == rules::Action::disable || v.action == rules::Action::isolate;
  // An active order is being handled, unless it only asked for a repair and this verdict is
  // the first to ask to take the link out (an error_bursts order, then the cursed_path rule's
  // disable): that escalation goes ahead on the same order, once.
  if (old && order_active(old->status) &&
      (old->port_disabled || !wants_disable || disable_tried(*old)))
    return std::nullopt;
  if (old && v.evidence.last_time_us && v.evidence.last_time_us <= old->resolved_us)
    return std::nullopt;  // evidence from before the repair

  store::WriteBatch batch;
  batch.outbox = config_.outbox;
  int64_t intent = 0;  // the pending decision stored before a port request
  core::WorkOrder order = next_order(old, link, now);
  order.rule = v.rule;
  order.evidence_json = fabric::json_text(evidence_json(f));
  order.advice = advice(v.type, order.offences, link);
  core::DecisionRecord d = decision_for(link, v.rule, now);
  nlohmann::json evidence = evidence_json(f);
  // Asked before the port action: the jobs the link carries while it is still up.
  std::optional<AffectedJobs> affected;
  if (ctx.affected) affected = ctx.affected(link.target.guid, link.target.port);
  order.affected_json = affected ? affected_text(*affected) : "";
  put_affected(evidence, affected);
  std::string what = rd::verdict_text(v);

  if (!wants_disable) {
    d.action = "work_order", d.status = "executed";
    d.reason = v.rule + ": " + what + "; work order for " + end_text(link.a);
    order.summary = v.rule + ": " + what;
  } else if (order.offences > config_.max_auto_offences) {
    d.action = "disable", d.status = "refused";
    d.reason = v.rule + ": " + what + "; escalated: offence " + std::to_string(order.offences) +
               " after repair, more than max_auto_offences (" +
               std::to_string(config_.max_auto_offences) + "); needs a human";
    order.needs_human = true;
    order.summary = "needs a human: repeat offender, " + v.rule + ": " + what;
  } else {
    Request req;
    req.node_guid = link.target.guid, req.port = link.target.port;
    req.action = PortAction::disable;
    req.sm_port = ctx.sm_port;
    d.action = "disable";
    if (req.node_guid != link.a.guid || req.port != link.a.port) {  // name the acted-on end
      d.node_guid = link.b.guid, d.node = link.b.node, d.port = link.b.port;
      d.peer_guid = link.a.guid, d.peer_node = link.a.node, d.peer_port = link.a.port;
    }
    core::DecisionRecord pending = d;
    pending.reason = v.rule + ": " + what + "; disable requested, outcome not yet recorded";
    GuardState state;
    Decision g = guard_and_intend(req, ctx, now, pending, link.link_key, &state, &intent);
    evidence["guard"] = guard_json(g, /*overridden=*/false);
    if (g.verdict == Verdict::refused) {
      d.status = "refused";
      d.reason = v.rule + ": " + what + "; guard refused: " + g.reason;
      order.needs_human = true;
      order.summary =
          "needs a human: " + v.rule + ": " + what + "; not disabled (" + g.reason + ")";
    } else if (g.verdict == Verdict::dry_run) {
      d.status = "dry_run";
      d.reason = v.rule + ": " + what + "; " + g.reason;
      order.summary = v.rule + ": " + what + "; dry-run, link left up";
    } else {
      PortStep step{
          PortAction::disable,
          {req.node_guid, req.port, d.node, v.rule, what, v.action == rules::Action::isolate},
          v.rule + ": " + what,
          g.reason,
          false};
      StepResult done = execute_step(executor_, ctx, state, step, d, evidence, batch);
      if (done.executed) {
        order.port_disabled = true;
        order.summary = v.rule + ": " + what +
                        (done.change.isolated ? "; link isolated at " : "; link disabled at ") +
                        end_text(core::LinkEnd{req.node_guid, d.node, req.port, ""});
      } else {
        order.needs_human = true;
        order.summary = "needs a human: " + v.rule + ": " + what +
                        (done.unknown ? "; disable outcome unknown (" : "; disable failed (") +
                        done.error + ")";
      }
    }
  }
  order.severity = rd::severity_for(order, v.severity);
  d.evidence_json = fabric::json_text(evidence);
  batch.workorders.push_back(order);
  return write_decision(batch, std::move(d), intent, old);
}

std::optional<Remediator::Repair> Remediator::repaired(const Finding& f, const RemedyContext& ctx) {
  LinkView link = link_view(ctx, f.verdict.node_guid, f.verdict.port);
  auto old = store_.workorder_by_link(link.link_key);
  if (!old || order_active(old->status) || !old->resolved_us) return std::nullopt;
  return Repair{
      {link.a.guid, link.a.port}, {link.b.guid, link.b.port}, old->resolved_us, end_text(link.a)};
}

std::optional<core::DecisionRecord> Remediator::hold(const Finding& f, const RemedyContext& ctx,
                                                     int64_t now, const std::string& reason,
                                                     const std::string& dedup_key) {
  const rules::Verdict& v = f.verdict;
  if (!v.confirmed || rules::is_congestion_verdict(v)) return std::nullopt;
  if (v.action != rules::Action::disable && v.action != rules::Action::isolate)
    return std::nullopt;  // a work order touches no port: it goes ahead
  LinkView link = link_view(ctx, v.node_guid, v.port);
  if (auto old = store_.workorder_by_link(link.link_key);
      old && order_active(old->status) && old->port_disabled)
    return std::nullopt;  // already out
  core::DecisionRecord d = decision_for(link, v.rule, now);
  if (link.target.guid != link.a.guid || link.target.port != link.a.port) {  // the acted-on end
    d.node_guid = link.b.guid, d.node = link.b.node, d.port = link.b.port;
    d.peer_guid = link.a.guid, d.peer_node = link.a.node, d.peer_port = link.a.port;
  }
  d.action = "disable";
  d.status = "held";
  d.reason = v.rule + ": " + remedy_detail::verdict_text(v) + "; held: " + reason +
             " (acted on through the guard once a master SM is back, if the verdict still holds)";
  nlohmann::json evidence = evidence_json(f);
  evidence["held"] = reason;
  d.evidence_json = fabric::json_text(evidence);
  d.dedup_key = dedup_key;
  store::WriteBatch batch;
  batch.decisions.push_back(d);
  store::WriteResult res = store_.write(batch);
  if (res.decision_ids.empty() || res.decision_ids[0] == 0)
    return std::nullopt;  // already held (dedup_key)
  d.id = res.decision_ids[0];
  return d;
}

core::DecisionRecord Remediator::write_decision(store::WriteBatch& batch, core::DecisionRecord d,
                                                int64_t intent,
                                                const std::optional<core::WorkOrder>& before) {
  d.id = intent;
  (intent ? batch.decisions_completed : batch.decisions).push_back(d);
  store::WriteResult res = write_after_action(batch, before);
  if (!intent) d.id = res.decision_ids.empty() ? 0 : res.decision_ids[0];
  return d;
}

Decision Remediator::guard_and_intend(const Request& req, const RemedyContext& ctx, int64_t now,
                                      core::DecisionRecord pending, const std::string& link_key,
                                      GuardState* state, int64_t* intent_id) {
  namespace rd = remedy_detail;
  Decision g;
  *intent_id = 0;
  store::WriteResult res = store_.write_guarded([&]() -> std::optional<store::WriteBatch> {
    *state = load_guard_state(store_, now);
    // A disable and an enable of one link never in flight together: the store cannot tell in
    // which order they reach the port, and the enable's record would drop the row of a port
    // the disable leaves down (no longer counted by the caps). The second is refused until the
    // first is recorded; an intent older than any port action is one a crash left (reconciled
    // at the next start) and blocks nothing.
    const PortKey target{req.node_guid, req.port};
    for (const auto& p : store_.pending_decisions())
      if (p.action != pending.action && p.time_us > now - kInFlightUs &&
          (p.link_key == link_key || PortKey{p.node_guid, p.port} == target ||
           PortKey{p.peer_guid, p.peer_port} == target)) {
        g = Decision{Verdict::refused,
                     "in_flight: a " + p.action + " of this link (decision " +
                         std::to_string(p.id) + ") is in flight; try again once it is recorded",
                     "in_flight",
                     {}};
        return std::nullopt;
      }
    g = guard_.decide(req, *ctx.fabric, *state, now);
    if (g.verdict != Verdict::allowed) return std::nullopt;
    store::WriteBatch b;
    pending.status = "pending";
    pending.evidence_json = fabric::json_text(nlohmann::json{{"guard", guard_json(g)}});
    b.decisions.push_back(pending);
    // A disable counts against the caps from now on, whatever happens to this process.
    if (req.action == PortAction::disable)
      b.disabled_add.push_back({req.node_guid, req.port, now, 0, link_key});
    return b;
  });
  if (!res.decision_ids.empty()) *intent_id = res.decision_ids[0];
  if (g.verdict == Verdict::allowed && !*intent_id)
    throw std::runtime_error("the intent for the port action was not stored");
  return g;
}

store::WriteResult Remediator::write_after_action(store::WriteBatch& batch,
                                                  const std::optional<core::WorkOrder>& before) {
  if (batch.workorders.size() != 1) return store_.write(batch);
  constexpr int kAttempts = 5;
  batch.workorders_if_version = true;
  for (int attempt = 1;; ++attempt) {
    try {
      return store_.write(batch);
    } catch (const store::StoreConflict&) {
      core::WorkOrder& o = batch.workorders[0];
      // Read first: the order of argument evaluation is unspecified, and `o` is moved from.
      auto fresh = store_.workorder_by_link(o.link_key);
      o = rebase_order(std::move(o), before, std::move(fresh));
      // The port action happened: after repeated conflicts its record goes in regardless.
      if (attempt + 1 == kAttempts) batch.workorders_if_version = false;
    }
  }
}

int Remediator::verify_due(int64_t now) {
  store::WorkOrderQuery q;
  q.status = "resolved";
  q.limit = 0;
  int verified = 0;
  for (auto o : store_.workorders(q)) {
    if (!o.resolved_us || o.resolved_us + config_.verify_after_us > now) continue;
    o.status = "verified";
    o.updated_us = now;
    o.summary = "verified: clean since the repair at " + store::iso_time(o.resolved_us);
    verified += remedy_detail::write_if_version(store_, config_.outbox, std::move(o)) ? 1 : 0;
  }
  return verified;
}

// The affected jobs of open orders kept current while they are open (actions/affected_jobs.h).
int Remediator::refresh_affected(
    const JobsOn& jobs_on,
    const std::function<std::optional<AffectedJobs>(uint64_t guid, int port)>& affected,
    int64_t now) {
  if (!jobs_on || !affected) return 0;
  store::WorkOrderQuery q;
  q.status = "active";
  q.limit = 0;
  int changed = 0;
  for (auto o : store_.workorders(q)) {
    std::optional<AffectedJobs> now_jobs = parse_affected(o.affected_json);
    if (now_jobs) {
      auto on = jobs_on(now_jobs->nodes);
      if (!on) continue;  // not known now: the stored list stays
      now_jobs->jobs = std::move(*on);
    } else if (now_jobs = affected(o.a.guid, o.a.port); !now_jobs) {
      continue;
    }
    std::string text = affected_text(*now_jobs);
    if (text == o.affected_json) continue;
    o.affected_json = std::move(text);
    o.updated_us = now;
    changed += remedy_detail::write_if_version(store_, config_.outbox, std::move(o)) ? 1 : 0;
  }
  return changed;
}

}  // namespace ibw::actions
