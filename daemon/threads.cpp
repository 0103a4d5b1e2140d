// The daemon's workers besides the sources (daemon/runtime.h): the lease thread and the
// store writes. Start-up, reload and shutdown: daemon.cpp; the sources: daemon/sources/.
#include "daemon/logger.h"
#include "daemon/memory_stats.h"
#include "daemon/runtime.h"

namespace ibw::daemon::daemon_detail {

void lease_loop(Runtime& rt) {
  LeaseKeeper* keeper = rt.store.keeper.get();  // a reload hands it on to the next generation
  while (rt.sources.running && !rt.store.lease_lost) {
    rt.sources.context->nap(std::chrono::microseconds(rt.cfg.ha.renew_us));
    if (!rt.sources.running) break;
    if (!keeper->tick(sources_json(rt))) rt.store.lease_lost = true;
  }
}

std::string sources_json(Runtime& rt) {
  if (rt.web.backend) return web::sources_json(rt.web.backend->health().sources);
  std::vector<web::SourceHealth> list;
  for (const auto& e : rt.fabric.health.snapshot())
    list.push_back({e.name,
                    e.state == ingest::HealthState::ok         ? web::SourceStatus::ok
                    : e.state == ingest::HealthState::degraded ? web::SourceStatus::degraded
                                                               : web::SourceStatus::down,
                    e.detail, e.last_ok_us});
  return web::sources_json(list);
}

// A checkpoint thread that failed since the last write is logged (with why), so that slower
// store writes (each commit that fills the WAL then checkpoints in place) are never silent;
// /metrics counts the failures and /health says so while the last one failed.
void log_checkpoint_failures(StorePart& s) {
  const store::CheckpointStats c = s.db->checkpoints();
  if (c.failed <= s.checkpoint_failures) return;
  log(LogLevel::error, "store checkpoint failed; commits checkpoint in place until one succeeds",
      {{"error", c.last_error}, {"failures", c.failed}});
  s.checkpoint_failures = c.failed;
}

// Batches with at least this many counter samples log their write time ("counters stored").
constexpr size_t kLoggedSamples = 1000;

// Writes one batch, retrying while the store fails. When shutting down it gives up after a
// few attempts; every later batch is then dropped too (store.failed), so no cursor can
// move past events that were not stored: the sources re-read them after a restart.
void write_batch(store::WriteBatch& batch, Runtime& rt) {
  if (rt.store.failed || rt.store.lease_lost) return;
  for (int attempt = 0;; ++attempt) {
    try {
      auto started = std::chrono::steady_clock::now();
      store::WriteResult res = rt.store.db->write(batch);
      const size_t samples = store::stored_sample_count(batch);
      if (samples >= kLoggedSamples) {  // a counter sweep or telemetry scrape
        const auto took = std::chrono::steady_clock::now() - started;
        rt.fabric.scrapes.stored(
            std::chrono::duration_cast<std::chrono::microseconds>(took).count());
        log(LogLevel::info, "counters stored",
            {{"samples", samples},
             {"ports", batch.ports.size() + batch.port_counters.size()},
             {"events", batch.events.size()},
             {"write_ms", std::chrono::duration<double, std::milli>(took).count()}});
        log_memory("counters stored");
      }
      for (size_t i = 0; i < batch.events.size(); ++i)
        if (res.event_ids[i]) log_event(batch.events[i], res.event_ids[i]);
      log_checkpoint_failures(rt.store);
      return;
    } catch (const store::StoreFenced& e) {  // another instance holds the lease: step down
      log(LogLevel::error, "store write fenced: this instance lost the fabric's lease",
          {{"error", e.what()}});
      rt.store.lease_lost = true;
      return;  // the holder re-reads from the stored cursors
    } catch (const store::StoreError& e) {
      log(LogLevel::error, "store write failed; retrying",
          {{"error", e.what()}, {"attempt", attempt}});
      if (rt.store.lease_lost) return;  // stepping down: the next holder re-reads
      if (g_stop && attempt >= 2) {
        rt.store.failed = true;
        log(LogLevel::error, "shutting down with unstored batches; sources will re-read them");
        return;
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
}

}  // namespace ibw::daemon::daemon_detail
