#include "daemon/action_worker.h"

#include <algorithm>
#include <chrono>

#include "config/store_spec.h"
#include "core/time_text.h"
#include "daemon/logger.h"
#include "daemon/remedy_setup.h"
#include "daemon/ufm_setup.h"
#include "ingest/clock.h"

namespace ibw::daemon {

ActionWorker::ActionWorker(fabric::MadLocks& mad, const config::Config& cfg,
                           const fabric::Plan* plan)
    : mad_(mad), cfg_(cfg), plan_(plan) {
  if (cfg_.actions.via == "ufm" && cfg_.ufm) ufm_credentials(*cfg_.ufm);  // fail at startup
}

ActionWorker::~ActionWorker() {
  stop();
}

void ActionWorker::set_store(store::StoreSpec spec, std::function<bool()> may_act) {
  spec_ = std::move(spec);
  may_act_ = std::move(may_act);
}

void ActionWorker::start() {
  stopping_ = false;
  started_us_ = ingest::SystemClock().now_us();
  thread_ = std::thread([this] { loop(); });
}

void ActionWorker::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool ActionWorker::submit(ActionJob job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ || queue_.size() >= capacity_) return false;
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void ActionWorker::set_after_action(std::function<void(const core::DecisionRecord&)> after) {
  after_action_ = std::move(after);
}

void ActionWorker::set_topology(std::function<std::shared_ptr<const Topology>()> topology) {
  topology_ = std::move(topology);
}

void ActionWorker::set_floor(std::function<bool(uint64_t, int, int64_t)> floor) {
  floor_ = std::move(floor);
}

void ActionWorker::set_affected(
    std::function<std::optional<actions::AffectedJobs>(uint64_t, int)> affected,
    actions::Remediator::JobsOn jobs_on) {
  affected_ = std::move(affected);
  jobs_on_ = std::move(jobs_on);
}

void ActionWorker::set_hold(std::function<std::optional<std::string>()> hold) {
  hold_ = std::move(hold);
}

void ActionWorker::set_known_names(std::function<std::string(uint64_t)> known_name) {
  known_name_ = std::move(known_name);
}

actions::RemedyContext ActionWorker::context(const Topology& topo) {
  if (!lids_.lid) lids_ = local_lids(mad_, cfg_);
  actions::RemedyContext ctx = remedy_context(topo, &plan_, lids_);
  ctx.known_name = known_name_;
  return ctx;
}

bool ActionWorker::reconcile_stale(actions::Remediator& remedy) {
  std::shared_ptr<const Topology> topo = topology_ ? topology_() : nullptr;
  if (!topo) return false;
  const int64_t now = ingest::SystemClock().now_us();
  actions::RemedyContext ctx = context(*topo);
  size_t left = 0;
  const int64_t before = std::max(now - actions::Remediator::kInFlightUs, started_us_);
  auto done = remedy.reconcile(ctx, now, &left, before);
  log_reconciled(done, left);
  return true;
}

void ActionWorker::run_job(const ActionJob& job, actions::Remediator& remedy) {
  ingest::SystemClock clock;
  actions::RemedyContext ctx = context(*job.topo);
  ctx.affected = affected_;
  std::optional<std::string> hold = hold_ ? hold_() : std::nullopt;
  if (hold && !hold_since_us_) hold_since_us_ = clock.now_us();
  if (!hold) hold_since_us_ = 0;
  for (const auto& f : job.findings) {
    try {
      std::pair<uint64_t, int> key{f.verdict.node_guid, f.verdict.port};
      if (floor_) {  // the first verdict after a repair: judged again on post-repair data only
        if (auto r = remedy.repaired(f, ctx)) {
          bool fresh = floor_(r->a.first, r->a.second, r->resolved_us);
          if (r->b.first) fresh = floor_(r->b.first, r->b.second, r->resolved_us) || fresh;
          if (fresh) {
            log(LogLevel::info, "verdict after a repair judged again on post-repair data",
                {{"rule", f.verdict.rule},
                 {"port", r->where},
                 {"repaired_at", core::iso_time_us(r->resolved_us)}});
            continue;
          }
        }
      }
      if (hold) {  // one held decision per port and hold
        std::string dedup = "held:" + std::to_string(key.first) + "/" + std::to_string(key.second) +
                            ":" + std::to_string(hold_since_us_);
        if (auto h = remedy.hold(f, ctx, clock.now_us(), *hold, dedup)) {
          held_.insert(key);
          log(LogLevel::warning, "decision held",
              {{"id", h->id},
               {"rule", h->rule},
               {"port", h->node + "/" + std::to_string(h->port)},
               {"reason", *hold}});
        }
        continue;
      }
      auto d = remedy.on_finding(f, ctx, clock.now_us());
      if (!d) continue;
      if (held_.erase(key))
        log(LogLevel::info, "held decision acted on", {{"id", d->id}, {"status", d->status}});
      log(d->status == "failed" ? LogLevel::error : LogLevel::warning, "decision",
          {{"id", d->id},
           {"rule", d->rule},
           {"port", d->node + "/" + std::to_string(d->port)},
           {"cable_id", d->cable_id},
           {"action", d->action},
           {"status", d->status},
           {"reason", d->reason}});
      if (d->status == "executed" && after_action_) after_action_(*d);
    } catch (const std::exception& e) {  // one finding's failure never stops the others
      log(LogLevel::error, "remediation failed", {{"rule", f.verdict.rule}, {"error", e.what()}});
    }
  }
}

void ActionWorker::loop() {
  std::unique_ptr<store::Store> db;
  std::unique_ptr<actions::PortExecutor> exec;
  std::unique_ptr<actions::Remediator> remedy;
  ingest::SystemClock clock;
  auto last_verify = std::chrono::steady_clock::time_point{};
  auto next_reconcile = std::chrono::steady_clock::time_point{};
  auto last_jobs = std::chrono::steady_clock::now();  // the orders just opened are current
  const auto jobs_every = std::chrono::microseconds(cfg_.slurm.jobs_refresh_us);
  while (true) {
    std::optional<ActionJob> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait_for(lock, std::chrono::seconds(1), [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      if (!queue_.empty()) {
        job = std::move(queue_.front());
        queue_.pop_front();
      }
    }
    try {
      if (!remedy) {
        db = store::Store::open(spec_ ? *spec_ : config::store_spec(cfg_));
        exec = port_executor(mad_, cfg_);
        if (may_act_) exec = fenced_executor(std::move(exec), may_act_);
        remedy = std::make_unique<actions::Remediator>(remedy_config(cfg_), *db, exec.get());
      }
      if (job) run_job(*job, *remedy);
      if (std::chrono::steady_clock::now() - last_verify > std::chrono::minutes(1)) {
        last_verify = std::chrono::steady_clock::now();
        if (int n = remedy->verify_due(clock.now_us()))
          log(LogLevel::info, "work orders verified", {{"count", n}});
      }
      if (std::chrono::steady_clock::now() >= next_reconcile) {  // each second until discovered
        next_reconcile = std::chrono::steady_clock::now() + std::chrono::minutes(1);
        if (!reconcile_stale(*remedy))
          next_reconcile = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      }
      if (affected_ && std::chrono::steady_clock::now() - last_jobs >= jobs_every) {
        last_jobs = std::chrono::steady_clock::now();
        if (int n = remedy->refresh_affected(jobs_on_, affected_, clock.now_us()))
          log(LogLevel::info, "affected jobs of work orders refreshed", {{"count", n}});
      }
    } catch (const std::exception& e) {
      log(LogLevel::error, "action worker error; retrying", {{"error", e.what()}});
      remedy.reset();
      exec.reset();
      db.reset();
    }
  }
}

}  // namespace ibw::daemon
