// The runtime of one configuration generation of `ibwarden run`, shared by the daemon's
// start-up and reload code (daemon.cpp) and its workers (threads.cpp): the Runtime, the
// stop/reload flags set by signals, and the workers that are not sources (the lease, the
// store writes). The sources are in daemon/sources/.
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
#include "daemon/fabric_state.h"
#include "daemon/lease.h"
#include "daemon/rule_runner.h"
#include "daemon/source.h"
#include "daemon/web_backend.h"
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
  FabricState fabric;  // plan, names, topology, routes, port table, health, probe state
  BatchQueue queue{64};
  std::atomic<bool> running{true};
  std::atomic<int> live_threads{0};
  std::unique_ptr<store::Store> db;
  store::StoreSpec spec;  // the configuration's store; fenced (spec.fence) once the lease is held
  // HA (config ha:): the lease; null without ha:, and then this daemon always acts.
  std::unique_ptr<LeaseKeeper> keeper;
  // False while standing by: discovery then only refreshes the topology (for the web UI and a
  // quick takeover) and nothing is queued for the store. Set when the lease is taken.
  std::atomic<bool> acting{true};
  std::atomic<bool> lease_lost{false};  // the holder's lease ended: this generation steps down
  bool store_failed = false;  // a batch could not be stored at shutdown; later ones are dropped
  std::unique_ptr<RuleRunner> rules;        // null without rules.file
  int rules_loaded = -1;                    // enabled rules; -1 without rules.file
  std::unique_ptr<ActionWorker> worker;     // with rules
  std::string webhook_secret;               // never logged
  std::optional<web::TokenSet> web_tokens;  // loaded by prepare(): a bad file fails the config
  std::optional<web::TlsConfig> web_tls;    // web.tls_*, loaded by prepare() like the tokens
  // The web API, in destruction order: the server goes first, then the API, then the backend.
  std::unique_ptr<WebBackend> web_backend;
  std::unique_ptr<web::Api> web_api;
  std::unique_ptr<web::Server> web_server;
  // The sources (daemon/sources/), discovery first, and their view of this runtime.
  std::vector<std::unique_ptr<Source>> sources;
  std::optional<SourceContext> context;
};

// The holder's lease thread: renews every ha.renew with the sources' health; sets
// rt.lease_lost when the lease is gone (taken over, or not renewed in time).
void lease_loop(Runtime& rt);
// The sources' health as the lease row carries it (web::sources_json: what /fabrics and
// /health?fabric= of any instance show for this fabric).
std::string sources_json(Runtime& rt);
// Writes one batch, retrying while the store fails. When shutting down it gives up after a
// few attempts; every later batch is then dropped too (rt.store_failed), so no cursor can
// move past events that were not stored: the sources re-read them after a restart.
void write_batch(store::WriteBatch& batch, Runtime& rt);

}  // namespace ibw::daemon::daemon_detail
