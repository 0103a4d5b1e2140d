// The runtime of one configuration generation of `ibwarden run`, shared by the daemon's
// start-up, reload and shutdown code (prepare.cpp, generation.cpp, web_start.cpp, daemon.cpp)
// and its workers (threads.cpp): the Runtime and its parts, what outlives a generation
// (DaemonProcess), and the stop/reload flags set by signals. The sources are in
// daemon/sources/. Internal to daemon/: nothing outside includes it.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "config/config.h"
#include "daemon/action_worker.h"
#include "daemon/batch_queue.h"
#include "daemon/fabric_state.h"
#include "daemon/lease.h"
#include "daemon/notify.h"
#include "daemon/slurm_worker.h"
#include "daemon/source.h"
#include "daemon/web_backend.h"
#include "fabric/smp_port.h"
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

// The store side: the connection, the HA lease, and the queue of batches the main thread
// writes.
struct StorePart {
  std::unique_ptr<store::Store> db;
  store::StoreSpec spec;  // the configuration's store; fenced (spec.fence) once the lease is held
  // HA (config ha:): the lease; null without ha:, and then this daemon always acts.
  std::unique_ptr<LeaseKeeper> keeper;
  // False while standing by: discovery then only refreshes the topology (for the web UI and a
  // quick takeover) and nothing is queued for the store. Set when the lease is taken.
  std::atomic<bool> acting{true};
  std::atomic<bool> lease_lost{false};  // the holder's lease ended: this generation steps down
  bool failed = false;  // a batch could not be stored at shutdown; later ones are dropped
  uint64_t checkpoint_failures = 0;  // of db's checkpoint thread, logged so far
  BatchQueue queue{64};
};

// The rules and what acts on their verdicts.
struct RulesPart {
  std::unique_ptr<rules::RuleRunner> runner;  // null without rules.file
  int loaded = -1;                            // enabled rules; -1 without rules.file
  std::unique_ptr<ActionWorker> worker;       // with rules
  std::unique_ptr<SlurmWorker> slurm;         // with slurm.enabled: drains and resumes nodes
  std::string webhook_secret;                 // never logged
};

// The web API, in destruction order: the server goes first, then the API, then the backend.
struct WebPart {
  std::optional<web::TokenSet> tokens;  // loaded by prepare(): a bad file fails the config
  std::optional<web::TlsConfig> tls;    // web.tls_*, loaded by prepare() like the tokens
  std::unique_ptr<WebBackend> backend;
  std::unique_ptr<web::Api> api;
  std::unique_ptr<web::Server> server;
};

// The sources (daemon/sources/), discovery first, their view of this runtime, and the
// threads they and the other workers (lease, outbox) run on.
struct SourcesPart {
  std::vector<std::unique_ptr<Source>> list;
  std::optional<SourceContext> context;
  std::atomic<bool> running{true};
  std::atomic<int> live_threads{0};
  std::vector<std::thread> threads;
};

// Everything one configuration generation runs with.
struct Runtime {
  explicit Runtime(fabric::MadLocks& m) : mad(m) {}
  fabric::MadLocks& mad;  // the process's (DaemonProcess::mad), shared by every generation
  config::Config cfg;
  FabricState fabric;  // plan, names, topology, routes, port table, health, probe state
  // The running jobs each link carries (slurm.enabled; null without): the action worker's
  // and the web API's (declared before them, so it outlives both).
  std::unique_ptr<LinkJobs> link_jobs;
  StorePart store;
  RulesPart rules;
  WebPart web;
  SourcesPart sources;
};

// What outlives a generation: owned by run_daemon and handed to each generation.
struct DaemonProcess {
  std::string config_path;
  ServiceNotifier& notifier;         // systemd: READY, RELOADING, STOPPING, WATCHDOG
  Clock::time_point last_compact{};  // across generations: reloads must not postpone it
  // The process's one set of MAD locks (fabric/smp_port.h): every generation's sources, action
  // worker and web API use this instance, so SMP agents and umad set-up never race.
  fabric::MadLocks mad{};
};

// Builds a runtime for a configuration (prepare.cpp): the prepare steps (plan, names, store,
// lease, rules, webhook, web settings, sources). Throws StepFailed (the step's own message)
// on any failure, so a reload that cannot work is rejected like a broken config. `mad` is the
// process's (DaemonProcess::mad) and must outlive the runtime.
std::unique_ptr<Runtime> prepare(const config::Config& cfg, fabric::MadLocks& mad);
// Runs one configuration generation until stop or a valid reload (generation.cpp); returns
// the next generation's runtime on reload, null on stop. Its workers are always stopped and
// joined, also when this throws.
std::unique_ptr<Runtime> run_generation(Runtime& rt, DaemonProcess& process);
// Starts the web API (web_start.cpp); a server that cannot start is logged and left out.
void start_web(Runtime& rt);
// The state after an executed port action (the automation's or an operator's from the web
// API): the acted-on switch's ports are read back at once (the link check a trap runs), so the
// port table, the API and the grid never show a disabled port up (generation.cpp).
void read_back(Runtime& rt, const core::DecisionRecord& d);
// The STATUS= line systemd shows next to READY=1.
std::string ready_status(const Runtime& rt);
// Runs a worker that is not a source (lease, outbox) on a thread of its own; its exception
// is logged ("worker failed").
void spawn(Runtime& rt, std::function<void()> fn);
// The holder's lease thread: renews every ha.renew with the sources' health; sets
// lease_lost when the lease is gone (taken over, or not renewed in time).
void lease_loop(Runtime& rt);
// The sources' health as the lease row carries it (web::sources_json: what /fabrics and
// /health?fabric= of any instance show for this fabric).
std::string sources_json(Runtime& rt);
// Writes one batch, retrying while the store fails. When shutting down it gives up after a
// few attempts; every later batch is then dropped too (store.failed), so no cursor can
// move past events that were not stored: the sources re-read them after a restart.
void write_batch(store::WriteBatch& batch, Runtime& rt);

}  // namespace ibw::daemon::daemon_detail
