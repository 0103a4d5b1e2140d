#include "actions/slurm_drain.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "actions/link_view.h"
#include "fabric/json_text.h"

namespace ibw::actions {

namespace {

constexpr int64_t kHourUs = 3600LL * 1'000'000;

bool active_order(const core::WorkOrder& o) {
  return o.status == "open" || o.status == "in_progress" || o.status == "reopened";
}

std::string words(std::string rule) {
  std::replace(rule.begin(), rule.end(), '_', ' ');
  return rule;
}

}  // namespace

void SlurmStats::count(const std::string& action, const std::string& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++(action == kSlurmDrain ? s_.drains : s_.resumes)[status];
}

void SlurmStats::error(const std::string& message, int64_t /*now_us*/) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++s_.errors;
  s_.failing = true;
  s_.last_error = message;
}

void SlurmStats::ok(int64_t now_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  s_.failing = false;
  s_.last_ok_us = now_us;
}

SlurmStats::Snapshot SlurmStats::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return s_;
}

SlurmDrainer::SlurmDrainer(SlurmDrainConfig cfg, SlurmClient& client, store::RemedyStore& store,
                           SlurmStats* stats)
    : cfg_(std::move(cfg)), client_(client), store_(&store), stats_(stats) {}

std::vector<std::string> SlurmDrainer::drained() const {
  std::vector<std::string> out;
  for (const auto& [node, s] : nodes_)
    if (s.ours) out.push_back(node);
  return out;
}

core::DecisionRecord SlurmDrainer::record(const SlurmHostView& v, const char* action,
                                          const std::string& status, const std::string& reason,
                                          int64_t now_us) const {
  core::DecisionRecord d;
  d.time_us = now_us;
  d.rule = core::kSlurmRule;
  d.node_guid = v.ca.guid;
  d.node = v.node;
  d.port = v.ca.port;
  d.peer_guid = v.peer.guid;
  d.peer_node = v.peer.node;
  d.peer_port = v.peer.port;
  d.action = action;
  d.status = status;
  d.reason = reason;
  d.link_key = v.link_key;
  nlohmann::json ev = {{"slurm_node", v.node}, {"why", v.why}};
  if (!v.incident.empty()) ev["incident"] = v.incident;
  d.evidence_json = fabric::json_text(ev);
  return d;
}

int64_t SlurmDrainer::write_intent(core::DecisionRecord& d) {
  store::WriteBatch batch;
  batch.decisions.push_back(d);
  auto r = store_->write(batch);
  d.id = r.decision_ids.empty() ? 0 : r.decision_ids.front();
  return d.id;
}

void SlurmDrainer::complete(core::DecisionRecord d, const std::string& status,
                            const std::string& reason, std::vector<core::DecisionRecord>& out) {
  d.status = status;
  if (!reason.empty()) d.reason = reason;
  store::WriteBatch batch;
  batch.decisions_completed.push_back(d);
  store_->write(batch);
  if (stats_) stats_->count(d.action, status);
  out.push_back(std::move(d));
}

void SlurmDrainer::failed(NodeState& s, const std::string& what, int64_t now_us) {
  if (stats_) stats_->error(what, now_us);
  int64_t delay = cfg_.retry_first_us << std::min(s.failures, 10);
  s.retry_at_us = now_us + std::min(delay, cfg_.retry_max_us);
  ++s.failures;
}

void SlurmDrainer::note(const SlurmHostView& v, NodeState& s, const char* action,
                        const std::string& status, const std::string& reason, int64_t now_us,
                        std::vector<core::DecisionRecord>& out) {
  std::string key = std::string(action) + ":" + status;
  if (std::find(s.noted.begin(), s.noted.end(), key) != s.noted.end()) return;
  core::DecisionRecord d = record(v, action, status, reason, now_us);
  store::WriteBatch batch;
  batch.decisions.push_back(d);
  auto r = store_->write(batch);
  s.noted.push_back(key);  // noted once written: a failed write is tried again next pass
  if (!r.decision_ids.empty()) d.id = r.decision_ids.front();
  if (stats_) stats_->count(action, status);
  out.push_back(std::move(d));
}

// Rows of earlier runs (by id, oldest first): which nodes ibwarden drained (a done drain
// without a later done resume) and with which reason (the last one: a drain row of a node
// drained already is a reason update, not a new drain for the cap), the drains of the last
// hour, and intents to finish.
void SlurmDrainer::load(int64_t now_us, std::vector<core::DecisionRecord>& out) {
  nodes_.clear();  // a load that failed half-way starts over
  drains_.clear();
  store::DecisionQuery q;
  q.limit = 0;
  std::vector<core::DecisionRecord> pending;
  for (const auto& d : store_->decisions(q)) {
    if (d.rule != core::kSlurmRule || (d.action != kSlurmDrain && d.action != kSlurmResume))
      continue;
    NodeState& s = nodes_[d.node];
    const bool drain = d.action == kSlurmDrain;
    if (d.status == "pending") pending.push_back(d);
    if (drain && !s.ours && (d.status == "done" || d.status == "pending") &&
        d.time_us > now_us - kHourUs)
      drains_.push_back(d.time_us);
    if (d.status != "done") continue;
    s.ours = drain;
    if (drain) {
      s.reason = d.reason;
      s.link_key = d.link_key;
      s.names_order = d.reason.find(": WO-") != std::string::npos;
    }
  }
  for (auto& d : pending) finish_intent(d, now_us, out);
}

// An intent of an earlier run without outcome: the node, read back, says whether the command
// happened; if not, it is sent again.
void SlurmDrainer::finish_intent(core::DecisionRecord d, int64_t now_us,
                                 std::vector<core::DecisionRecord>& out) {
  NodeState& s = nodes_[d.node];
  const bool drain = d.action == kSlurmDrain;
  try {
    SlurmNode n = client_.node(d.node);
    if (drain) {
      // Drained with another reason: the operator's -- unless it is ibwarden's own earlier
      // reason, and this intent the update that names the order.
      if (n.drain && n.reason != d.reason && !(s.ours && n.reason == s.reason)) {
        s.operator_owned = true;
        return complete(d, "skipped", "skipped: drained by operator (" + n.reason + ")", out);
      }
      if (!n.drain || n.reason != d.reason) client_.drain(d.node, d.reason);
      s.ours = true;
      s.reason = d.reason;
      s.link_key = d.link_key;
      return complete(d, "done", "", out);
    }
    if (n.drain && n.reason == s.reason) client_.resume(d.node);
    s.ours = false;
    complete(d, "done", "", out);
  } catch (const SlurmError& e) {
    failed(s, e.what(), now_us);  // stays pending; the next load (restart) tries again
  }
}

std::string SlurmDrainer::drain_reason(const SlurmHostView& v, int64_t* order_id) {
  const core::LinkEnd& at = v.peer.guid ? v.peer : v.ca;
  std::optional<core::WorkOrder> order;
  if (!v.link_key.empty()) order = store_->workorder_by_link(v.link_key);
  *order_id = 0;
  if (order && active_order(*order)) {
    *order_id = order->id;
    return cfg_.reason_prefix + ": WO-" + std::to_string(order->id) + " " + end_text(at) + " " +
           words(order->rule);
  }
  if (!v.incident.empty())
    return cfg_.reason_prefix + ": incident " + v.incident + " " + end_text(at) + " " + v.why;
  return cfg_.reason_prefix + ": " + end_text(at) + " " + v.why;
}

bool SlurmDrainer::order_closed(const NodeState& s) {
  if (s.link_key.empty()) return true;
  auto order = store_->workorder_by_link(s.link_key);
  return !order || !active_order(*order);
}

// A node ibwarden drained before the link's order opened: once the order is there, the reason
// names it (a drain row with the new reason). A node no longer drained, or whose reason
// someone changed, is theirs from now on this episode.
void SlurmDrainer::update_reason(const SlurmHostView& v, NodeState& s, int64_t now_us,
                                 std::vector<core::DecisionRecord>& out) {
  int64_t order_id = 0;
  const std::string reason = drain_reason(v, &order_id);
  if (!order_id || reason == s.reason) return;
  core::DecisionRecord d = record(v, kSlurmDrain, "pending", reason, now_us);
  try {
    SlurmNode n = client_.node(v.node);
    if (!n.drain || n.reason != s.reason) {
      s.ours = false;
      s.operator_owned = true;
      return note(v, s, kSlurmDrain, "skipped",
                  n.drain ? "skipped: drain reason changed by operator (" + n.reason + ")"
                          : "skipped: resumed by operator",
                  now_us, out);
    }
    write_intent(d);
    client_.drain(v.node, reason);
    s.reason = reason;
    s.names_order = true;
    s.link_key = v.link_key;
    complete(d, "done", "", out);
  } catch (const SlurmError& e) {
    failed(s, e.what(), now_us);
    if (d.id)
      complete(d, "failed", "failed: " + std::string(e.what()) + "; update: " + reason, out);
  }
}

void SlurmDrainer::on_bad(const SlurmHostView& v, NodeState& s, int64_t now_us,
                          std::vector<core::DecisionRecord>& out) {
  s.whole_since_us = 0;
  if (s.ours && !s.names_order && cfg_.drain && !cfg_.dry_run && now_us >= s.retry_at_us &&
      !v.link_key.empty())
    return update_reason(v, s, now_us, out);
  if (s.ours || s.operator_owned || !cfg_.drain || now_us < s.retry_at_us) return;
  int64_t order_id = 0;
  const std::string reason = drain_reason(v, &order_id);
  while (!drains_.empty() && drains_.front() <= now_us - kHourUs) drains_.pop_front();
  if (static_cast<int>(drains_.size()) >= cfg_.max_drains_per_hour)
    return note(v, s, kSlurmDrain, "held",
                "held: cap (" + std::to_string(drains_.size()) +
                    " drains in the last hour, slurm.max_drains_per_hour " +
                    std::to_string(cfg_.max_drains_per_hour) + "); would drain: " + reason,
                now_us, out);
  if (cfg_.dry_run)
    return note(v, s, kSlurmDrain, "dry_run", "would drain: " + reason, now_us, out);
  core::DecisionRecord d = record(v, kSlurmDrain, "pending", reason, now_us);
  try {
    SlurmNode n = client_.node(v.node);
    if (n.drain && n.reason != reason) {
      s.operator_owned = true;
      return note(v, s, kSlurmDrain, "skipped", "skipped: drained by operator (" + n.reason + ")",
                  now_us, out);
    }
    write_intent(d);
    drains_.push_back(now_us);
    if (!n.drain) client_.drain(v.node, reason);
    s = NodeState{true, reason, v.link_key, order_id != 0, 0, s.noted, false, 0, 0};
    if (stats_) stats_->ok(now_us);
    complete(d, "done", "", out);
  } catch (const SlurmError& e) {
    failed(s, e.what(), now_us);
    if (!d.id) return;
    drains_.pop_back();  // a failed drain does not count against the cap
    complete(d, "failed", "failed: " + std::string(e.what()) + "; drain: " + reason, out);
  }
}

void SlurmDrainer::on_whole(const SlurmHostView& v, NodeState& s, int64_t now_us,
                            std::vector<core::DecisionRecord>& out) {
  if (!s.whole_since_us) {  // a new episode begins when the host is whole again
    s.whole_since_us = now_us;
    s.noted.clear();
    s.operator_owned = false;
  }
  if (!s.ours || !cfg_.resume || now_us < s.retry_at_us) return;
  if (now_us - s.whole_since_us < cfg_.clean_window_us || !order_closed(s)) return;
  SlurmHostView at = v;
  at.link_key = s.link_key.empty() ? v.link_key : s.link_key;
  if (cfg_.dry_run) return note(at, s, kSlurmResume, "dry_run", "would resume", now_us, out);
  core::DecisionRecord d = record(at, kSlurmResume, "pending", "resume: " + s.reason, now_us);
  try {
    SlurmNode n = client_.node(v.node);
    if (!n.drain || n.reason != s.reason) {
      s.ours = false;  // someone else resumed it or changed the reason: theirs now
      return note(at, s, kSlurmResume, "skipped",
                  n.drain ? "skipped: drain reason changed by operator (" + n.reason + ")"
                          : "skipped: no longer drained",
                  now_us, out);
    }
    write_intent(d);
    client_.resume(v.node);
    s.ours = false;
    s.failures = 0;
    if (stats_) stats_->ok(now_us);
    complete(d, "done", "", out);
  } catch (const SlurmError& e) {
    failed(s, e.what(), now_us);
    if (d.id) complete(d, "failed", "failed: " + std::string(e.what()), out);
  }
}

std::vector<core::DecisionRecord> SlurmDrainer::tick(const std::vector<SlurmHostView>& hosts,
                                                     int64_t now_us) {
  std::vector<core::DecisionRecord> out;
  if (!loaded_) {
    load(now_us, out);
    loaded_ = true;
  }
  for (const auto& v : hosts) {
    NodeState& s = nodes_[v.node];
    if (v.health == SlurmHostView::Health::whole)
      on_whole(v, s, now_us, out);
    else
      on_bad(v, s, now_us, out);
  }
  return out;
}

}  // namespace ibw::actions
