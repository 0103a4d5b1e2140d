// The runtime of one configuration generation of `ibwarden run`, shared by the daemon's
// start-up and reload code (daemon.cpp) and its thread bodies (threads.cpp): the Runtime every
// thread reads, the stop/reload flags set by signals, and the threads' entry points.
// Internal to daemon/: nothing outside includes it.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "config/config.h"
#include "daemon/action_worker.h"
#include "daemon/batch_queue.h"
#include "daemon/lease.h"
#include "daemon/port_table.h"
#include "daemon/probe_runner.h"
#include "daemon/source_health.h"
#include "daemon/topology.h"
#include "daemon/ufm_source.h"
#include "daemon/web_backend.h"
#include "fabric/routing.h"
#include "ingest/clock.h"
#include "rules/runner.h"
#include "store/store.h"
#include "web/api.h"
#include "web/auth.h"
#include "web/server.h"

namespace ibw::daemon::daemon_detail {

// Set by SIGTERM/SIGINT (stop) and SIGHUP (reload).
extern std::atomic<bool> g_stop;
extern std::atomic<bool> g_reload;

using Clock = std::chrono::steady_clock;

// Everything one configuration generation runs with.
struct Runtime {
  config::Config cfg;
  std::unique_ptr<fabric::Plan> plan;
  fabric::NodeNameMap names;
  ingest::SystemClock clock;
  PortTable ports;
  BatchQueue queue{64};
  std::atomic<bool> running{true};
  std::atomic<int> live_threads{0};
  // When the discovery thread re-discovers next (steady_us() time; 0 = nothing due): set by
  // request_discovery. Starts due, so the fabric is discovered first thing.
  std::atomic<int64_t> discover_due_us{1};
  std::mutex topo_mutex;
  std::shared_ptr<const Topology> topo;
  std::optional<std::string> opensm_cursor;
  std::vector<ingest::CounterSample> last_samples;
  std::unique_ptr<store::Store> db;
  store::StoreSpec spec;  // the configuration's store; fenced (spec.fence) once the lease is held
  // HA (config ha:): the lease; null without ha:, and then this daemon always acts.
  std::unique_ptr<LeaseKeeper> keeper;
  // False while standing by: discovery then only refreshes the topology (for the web UI and a
  // quick takeover) and nothing is queued for the store. Set when the lease is taken.
  std::atomic<bool> acting{true};
  std::atomic<bool> lease_lost{false};  // the holder's lease ended: this generation steps down
  std::mutex routes_mutex;
  std::shared_ptr<const fabric::RoutingTables> routes;  // from opensm-lfts.dump, when present
  // Held from a PortTable update until its batch is queued, so full-row port writes reach
  // the store in the order they were made (the writer never takes it: no deadlock).
  std::mutex publish_mutex;
  bool store_failed = false;  // a batch could not be stored at shutdown; later ones are dropped
  std::unique_ptr<rules::RuleRunner> rules;  // null without rules.file
  int rules_loaded = -1;                     // enabled rules; -1 without rules.file
  std::unique_ptr<ActionWorker> worker;      // with rules
  std::string webhook_secret;                // never logged
  SourceHealthBoard health;  // sources' health (OpenSM, counters, UFM): logs, /health
  std::optional<std::string> ufm_log_cursor;  // where UFM's event.log was last read
  std::optional<web::TokenSet> web_tokens;    // loaded by prepare(): a bad file fails the config
  std::optional<web::TlsConfig> web_tls;      // web.tls_*, loaded by prepare() like the tokens
  // The web API, in destruction order: the server goes first, then the API, then the backend.
  std::unique_ptr<WebBackend> web_backend;
  std::unique_ptr<web::Api> web_api;
  std::unique_ptr<web::Server> web_server;
  std::unique_ptr<UfmSource> ufm;  // with a ufm: section
  ProbeState probe_state;  // cursed routes: published by the probe thread, read by the web API

  std::shared_ptr<const Topology> topology() {
    std::lock_guard<std::mutex> lock(topo_mutex);
    return topo;
  }
  // Sleeps up to d, waking early when stopping.
  void nap(std::chrono::microseconds d) {
    auto until = Clock::now() + d;
    while (running && Clock::now() < until)
      std::this_thread::sleep_for(std::min<std::chrono::microseconds>(
          std::chrono::milliseconds(50),
          std::chrono::duration_cast<std::chrono::microseconds>(until - Clock::now())));
  }
};

// Correlates events with the topology (names, peers, cables); a null topology leaves them.
void enrich_all(const Topology* topo, std::vector<ingest::Event>& events);
// Evaluates the rules after new data and hands acting verdicts to the action worker.
void evaluate_rules(Runtime& rt, const std::shared_ptr<const Topology>& topo);
// Microseconds on the steady clock (discovery scheduling).
inline int64_t steady_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch())
      .count();
}
// Schedules a re-discovery delay_us from now, unless one is already due (it keeps its time).
void request_discovery(Runtime& rt, int64_t delay_us);
// Thread bodies. The watcher tails the OpenSM log, runs the link check on link-state traps
// (daemon/link_check.h), requests re-discoveries and reloads the LFT dump; the discovery
// thread re-discovers when one is due (and every fabric.rediscover_interval), so a slow
// discovery never holds up the log; the counter thread sweeps the port counters every
// counters.interval.
void watcher_loop(Runtime& rt);
void discovery_loop(Runtime& rt);
void counter_loop(Runtime& rt);
// The holder's lease thread: renews every ha.renew with the sources' health; sets
// rt.lease_lost when the lease is gone (taken over, or not renewed in time).
void lease_loop(Runtime& rt);
// The sources' health as the lease row carries it (web::sources_json: what /fabrics and
// /health?fabric= of any instance show for this fabric).
std::string sources_json(Runtime& rt);
// The UFM source's view of this runtime (daemon/ufm_source.h).
UfmSourceHooks ufm_hooks(Runtime& rt);
// Writes one batch, retrying while the store fails. When shutting down it gives up after a
// few attempts; every later batch is then dropped too (rt.store_failed), so no cursor can
// move past events that were not stored: the sources re-read them after a restart.
void write_batch(store::WriteBatch& batch, Runtime& rt);

}  // namespace ibw::daemon::daemon_detail
