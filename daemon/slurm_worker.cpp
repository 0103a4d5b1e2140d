#include "daemon/slurm_worker.h"

#include <chrono>

#include "actions/affected_jobs.h"
#include "config/store_spec.h"
#include "daemon/logger.h"

namespace ibw::daemon {

namespace {

actions::SlurmDrainConfig drain_config(const config::Config& cfg) {
  actions::SlurmDrainConfig c;
  c.reason_prefix = cfg.slurm.reason_prefix;
  c.drain = cfg.slurm.drain;
  c.resume = cfg.slurm.resume;
  c.dry_run = cfg.actions.mode != "enforce";
  c.max_drains_per_hour = cfg.slurm.max_drains_per_hour;
  c.clean_window_us = cfg.slurm.clean_window_us;
  return c;
}

void log_record(const core::DecisionRecord& d) {
  LogLevel level = d.status == "failed" ? LogLevel::error
                   : d.status == "held" ? LogLevel::warning
                                        : LogLevel::info;
  log(level, d.action == actions::kSlurmDrain ? "slurm drain" : "slurm resume",
      {{"id", d.id},
       {"node", d.node},
       {"status", d.status},
       {"reason", d.reason},
       {"link_key", d.link_key}});
}

}  // namespace

SlurmWorker::SlurmWorker(const config::Config& cfg, FabricState& fabric,
                         std::unique_ptr<actions::SlurmClient> client)
    : cfg_(cfg), fabric_(fabric), client_(std::move(client)) {
  if (!client_)
    client_ = std::make_unique<actions::CommandSlurmClient>(actions::slurm_commands(cfg.slurm));
}

SlurmWorker::~SlurmWorker() {
  stop();
}

void SlurmWorker::set_store(store::StoreSpec spec) {
  spec_ = std::move(spec);
}

void SlurmWorker::start() {
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void SlurmWorker::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SlurmWorker::pass(store::Store& db, actions::SlurmDrainer& drainer) {
  auto topo = fabric_.topology();
  if (topo && topo.get() != learned_) {
    hosts_.learn(topo->fabric, fabric_.slurm_map);
    learned_ = topo.get();
  }
  if (!hosts_.size()) return;
  std::set<std::pair<uint64_t, int>> disabled;
  for (const auto& p : db.disabled_ports()) disabled.insert({p.node_guid, p.port});
  const int64_t now = fabric_.clock.now_us();
  auto views = hosts_.views(fabric_.ports, disabled, fabric_.incidents.list(now, now));
  for (const auto& d : drainer.tick(views, now)) log_record(d);
  auto s = stats_.snapshot();
  SourceHealthEntry h{"slurm", s.failing ? ingest::HealthState::degraded : ingest::HealthState::ok,
                      s.failing ? s.last_error : "", s.last_ok_us, now};
  if (fabric_.health.set(h))
    log(s.failing ? LogLevel::error : LogLevel::info,
        s.failing ? "slurm failing: drains and resumes are retried with backoff" : "slurm ok",
        {{"error", s.last_error}});
}

void SlurmWorker::loop() {
  std::unique_ptr<store::Store> db;
  std::unique_ptr<actions::SlurmDrainer> drainer;
  fabric_.health.set({"slurm", ingest::HealthState::ok, "", 0, fabric_.clock.now_us()});
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (wake_.wait_for(lock, std::chrono::seconds(1), [&] { return stopping_; })) return;
    }
    try {
      if (!db) {
        db = store::Store::open(spec_ ? *spec_ : config::store_spec(cfg_));
        if (drainer)  // what the drainer knows survives the reconnect
          drainer->rebind(*db);
        else
          drainer =
              std::make_unique<actions::SlurmDrainer>(drain_config(cfg_), *client_, *db, &stats_);
      }
      pass(*db, *drainer);
      if (errors_) log(LogLevel::info, "slurm worker store back", {{"errors", errors_}});
      errors_ = 0;
    } catch (const std::exception& e) {  // the store failed: a fresh connection next pass
      // Logged when it starts, when the error changes and once a minute while it lasts.
      const int64_t now = fabric_.clock.now_us();
      if (!errors_ || e.what() != last_error_ || now - last_log_us_ >= 60'000'000) {
        log(LogLevel::error, "slurm worker error; retrying every second",
            {{"error", e.what()}, {"errors", errors_ + 1}});
        last_error_ = e.what();
        last_log_us_ = now;
      }
      ++errors_;
      fabric_.health.set({"slurm", ingest::HealthState::degraded, std::string("store: ") + e.what(),
                          stats_.snapshot().last_ok_us, now});
      db.reset();
    }
  }
}

}  // namespace ibw::daemon
