// `ibwarden run` (daemon/daemon.h): start-up, reloads and shutdown. prepare() builds a
// generation's Runtime (daemon/runtime.h) or rejects the configuration; run_generation() starts
// its threads, workers and web API and joins them on stop or reload. Thread bodies: threads.cpp.
#include "daemon/daemon.h"

#include <algorithm>
#include <csignal>
#include <filesystem>

#include "config/store_spec.h"
#include "daemon/logger.h"
#include "daemon/notify.h"
#include "daemon/outbox_worker.h"
#include "daemon/remedy_setup.h"
#include "daemon/runtime.h"
#include "daemon/ufm_setup.h"
#include "fabric/diagnostics.h"

namespace ibw::daemon {
namespace daemon_detail {

std::atomic<bool> g_stop{false};
std::atomic<bool> g_reload{false};

extern "C" void on_signal(int sig) {
  if (sig == SIGHUP)
    g_reload = true;
  else
    g_stop = true;
}

// Builds a runtime for a configuration: loads the plan and node-name-map and opens the store.
// Throws on any failure, so a reload that cannot work is rejected like a broken config.
std::unique_ptr<Runtime> prepare(const config::Config& cfg) {
  auto rt = std::make_unique<Runtime>();
  rt->cfg = cfg;
  if (cfg.fabric.plan)
    rt->plan = std::make_unique<fabric::Plan>(fabric::load_plan(*cfg.fabric.plan));
  if (cfg.fabric.node_name_map) rt->names = fabric::load_node_name_map(*cfg.fabric.node_name_map);
  if (cfg.store.backend == "sqlite") {
    auto parent = std::filesystem::path(cfg.store.path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
  }
  rt->spec = config::store_spec(cfg);
  rt->db = store::Store::open(rt->spec);
  if (cfg.ha.enabled) {  // start as a standby: the lease decides who acts
    rt->keeper = std::make_unique<LeaseKeeper>(rt->spec, cfg.ha);
    rt->acting = false;
  }
  config::require_default_rules(cfg);
  if (cfg.rules.file) {
    rules::RuleSet set = rules::load_rules(*cfg.rules.file);
    rt->rules_loaded = static_cast<int>(
        std::count_if(set.rules.begin(), set.rules.end(), [](const auto& r) { return r.enabled; }));
    rt->rules = std::make_unique<RuleRunner>(std::move(set));
    rt->worker = std::make_unique<ActionWorker>(cfg, rt->plan.get());
  }
  if (cfg.workorders.webhook) rt->webhook_secret = webhook_secret(cfg);
  if (cfg.web.enabled) {
    web::parse_listen(cfg.web.listen);  // throws std::invalid_argument naming the problem
    if (cfg.web.tokens_file) {
      rt->web_tokens = web::TokenSet::load(*cfg.web.tokens_file);
      for (const auto& w : rt->web_tokens->warnings())
        log(LogLevel::warning, "web tokens file", {{"warning", w}});
    }
    if (cfg.web.tls_cert && cfg.web.tls_key)  // a reload (SIGHUP) reads renewed files
      rt->web_tls = web::TlsConfig::load({*cfg.web.tls_cert, *cfg.web.tls_key, cfg.file,
                                          cfg.web.tls_cert_line, cfg.web.tls_key_line});
  }
  if (cfg.ufm) rt->ufm = std::make_unique<UfmSource>(cfg);  // reads its credentials now
  return rt;
}

Clock::time_point g_last_compact{};  // across generations: reloads must not postpone it

void maybe_compact(Runtime& rt) {
  if (g_last_compact != Clock::time_point{} &&
      Clock::now() - g_last_compact < std::chrono::hours(1))
    return;
  g_last_compact = Clock::now();
  store::Retention ret{rt.cfg.store.raw_window_us, rt.cfg.store.aggregate_window_us,
                       rt.cfg.store.event_window_us};
  try {
    size_t removed = rt.db->compact(rt.clock.now_us(), ret);
    log(LogLevel::debug, "store compacted", {{"rows_removed", removed}});
  } catch (const std::exception& e) {
    log(LogLevel::warning, "store compaction failed", {{"error", e.what()}});
  }
}

// Starts the web API (web/) on web.listen, HTTPS with web.tls_* (checked by prepare()). A
// server that cannot start (address in use) is logged and the daemon goes on without it:
// ingest and actions matter more than the page.
void start_web(Runtime& rt) {
  WebBackendDeps deps;
  deps.cfg = rt.cfg;
  deps.plan = rt.plan.get();
  deps.topology = [&rt] { return rt.topology(); };
  deps.health = &rt.health;
  deps.probes = rt.cfg.probes.interval_us || rt.cfg.probes.spool_dir ? &rt.probe_state : nullptr;
  deps.started_us = rt.clock.now_us();
  deps.rules_loaded = rt.rules_loaded;
  if (rt.keeper)  // a standby serves the UI but refuses port actions (409 naming the leader)
    deps.is_leader = [k = rt.keeper.get(), &rt] { return rt.acting && k->held(); };
  rt.web_backend = std::make_unique<WebBackend>(std::move(deps));
  web::ApiOptions api_options;
  api_options.read_only = rt.cfg.web.read_only;
  rt.web_api = std::make_unique<web::Api>(*rt.web_backend, api_options, rt.web_tokens);
  web::ServerOptions options;
  options.listen = rt.cfg.web.listen;
  options.tls = rt.web_tls;
  if (rt.web_tls && rt.web_tls->expired())
    log(LogLevel::warning, "web TLS certificate expired: clients will refuse it",
        {{"tls_cert", *rt.cfg.web.tls_cert}, {"not_after", rt.web_tls->not_after()}});
  options.access_log = [](const web::AccessRecord& a) {
    log(LogLevel::debug, "http",
        {{"method", a.method},
         {"path", a.path},
         {"status", a.status},
         {"ms", a.duration_us / 1000.0},
         {"actor", a.actor},
         {"peer", a.peer}});
  };
  options.error_log = [](const std::string& e) { log(LogLevel::warning, "web", {{"error", e}}); };
  rt.web_server = std::make_unique<web::Server>(options, *rt.web_api);
  try {
    rt.web_server->start();
    log(LogLevel::info, "web API listening",
        {{"listen", rt.cfg.web.listen},
         {"port", rt.web_server->port()},
         {"scheme", rt.web_tls ? "https" : "http"},
         {"tls_subject", rt.web_tls ? rt.web_tls->subject() : ""},
         {"tls_not_after", rt.web_tls ? rt.web_tls->not_after() : ""},
         {"read_only", rt.cfg.web.read_only || !rt.web_tokens},
         {"tokens", rt.web_tokens ? rt.web_tokens->size() : 0}});
  } catch (const std::exception& e) {
    log(LogLevel::error, "web API not started", {{"error", e.what()}});
    rt.web_server.reset();
  }
}

// The STATUS= line systemd shows next to READY=1.
std::string ready_status(const Runtime& rt) {
  const config::Config& c = rt.cfg;
  std::string s = "watching fabric " + c.fabric.name + ": ";
  s += rt.rules_loaded < 0 ? "no rules file" : std::to_string(rt.rules_loaded) + " rules loaded";
  s += ", actions " + c.actions.mode;
  if (rt.keeper)
    s += rt.acting ? ", leader (lease epoch " + std::to_string(rt.keeper->fence().epoch) + ")"
                   : ", standby (lease held by " + rt.keeper->last().holder + ")";
  if (rt.web_server) s += ", web API on port " + std::to_string(rt.web_server->port());
  return s;
}

// SIGHUP: loads and prepares the new configuration. True with `next` set when it is valid (the
// caller ends this generation); false, logged and reported to systemd, when it is rejected.
bool try_reload(Runtime& rt, const std::string& config_path, std::unique_ptr<Runtime>& next) {
  ServiceNotifier& notifier = service_notifier();
  notifier.reloading();
  try {
    auto candidate = prepare(config::load_config(config_path));
    if (g_stop) return false;
    // The same instance on the same fabric and store keeps its lease across the reload.
    if (rt.keeper && candidate->keeper && candidate->cfg.ha.instance == rt.cfg.ha.instance &&
        candidate->spec.url == rt.spec.url && candidate->spec.fabric == rt.spec.fabric)
      candidate->keeper = std::move(rt.keeper);
    next = std::move(candidate);
    log(LogLevel::info, "configuration reloaded", {{"config", config_path}});
    return true;
  } catch (const std::exception& e) {
    log(LogLevel::error, "new configuration rejected; keeping the running one",
        {{"config", config_path}, {"error", e.what()}});
    notifier.ready(ready_status(rt) + "; last reload rejected: " + e.what());
    return false;
  }
}

// HA standby: serves the web UI (started by the caller) and tries to take the lease every
// ha.renew. True once this instance holds it; false on stop or a valid reload (`next`).
bool stand_by(Runtime& rt, const std::string& config_path, std::unique_ptr<Runtime>& next) {
  ServiceNotifier& notifier = service_notifier();
  notifier.ready(ready_status(rt));
  log(LogLevel::info, "standing by for the fabric's lease",
      {{"fabric", rt.cfg.fabric.name},
       {"instance", rt.keeper->instance()},
       {"lease_s", rt.cfg.ha.lease_us / 1e6},
       {"renew_s", rt.cfg.ha.renew_us / 1e6}});
  Clock::time_point next_try{};
  std::string holder = "\n";  // logs the first holder seen
  while (!g_stop) {
    notifier.watchdog_tick();
    if (g_reload.exchange(false) && try_reload(rt, config_path, next)) return false;
    if (Clock::now() >= next_try) {
      next_try = Clock::now() + std::chrono::microseconds(rt.cfg.ha.renew_us);
      if (rt.keeper->tick("[]")) return true;
      store::Lease l = rt.keeper->last();
      if (l.holder != holder) {
        holder = l.holder;
        log(LogLevel::info, "fabric's lease held by another instance",
            {{"holder", l.holder},
             {"epoch", l.epoch},
             {"expires_in_s", (l.expires_us - l.now_us) / 1e6}});
        notifier.ready(ready_status(rt));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// The lease is ours: every write from now on carries its fence, and the caller reconciles
// pending intents before the sources resume from their stored cursors.
void take_over(Runtime& rt) {
  rt.spec.fence = rt.keeper->fence();
  // Paused inside a transaction (SIGSTOP, a VM stall), this holder's session is ended by the
  // server after half a lease, so its row locks cannot hold a standby's takeover back.
  rt.spec.idle_tx_timeout_ms = std::max<int64_t>(500, rt.cfg.ha.lease_us / 2000);
  rt.db = store::Store::open(rt.spec);
  size_t warmed = 0;
  if (rt.rules) {  // the last hour as the previous holder stored it: flaps span a takeover
    store::EventQuery q;
    q.since_us = rt.clock.now_us() - 3600LL * 1'000'000;
    q.limit = 0;
    std::vector<ingest::Event> events;
    for (auto& e : rt.db->events(q)) events.push_back(std::move(e.event));
    warmed = rt.rules->add_events(events);
  }
  log(LogLevel::info,
      "taking over the fabric: reconciling pending intents, then resuming from "
      "the stored cursors",
      {{"fabric", rt.cfg.fabric.name},
       {"epoch", rt.spec.fence->epoch},
       {"rule_events_loaded", warmed}});
}

// The lease is gone (taken over, or not renewed in time): this generation ends and a fresh
// standby one starts. Null (exit 1, for systemd to restart us) when it cannot be prepared.
std::unique_ptr<Runtime> step_down(Runtime& rt) {
  log(LogLevel::error, "stepping down to standby: this instance no longer holds the lease",
      {{"fabric", rt.cfg.fabric.name}, {"instance", rt.cfg.ha.instance}});
  try {
    return prepare(rt.cfg);
  } catch (const std::exception& e) {
    log(LogLevel::error, "cannot stand by again; exiting", {{"error", e.what()}});
    rt.store_failed = true;
    return nullptr;
  }
}

// Runs one configuration generation until stop or a valid reload; returns the next
// generation's runtime on reload, null on stop. Workers are always stopped and joined, also
// when this throws.
std::unique_ptr<Runtime> run_generation(Runtime& rt, const std::string& config_path) {
  std::vector<std::thread> threads;
  auto spawn = [&](void (*fn)(Runtime&)) {
    rt.live_threads++;
    threads.emplace_back([&rt, fn] {
      try {
        fn(rt);
      } catch (const std::exception& e) {
        log(LogLevel::error, "worker failed", {{"error", e.what()}});
      }
      rt.live_threads--;
    });
  };
  auto stop_workers = [&] {
    rt.running = false;  // drain what the workers still produce, then join them
    if (rt.web_server) rt.web_server->stop();
    if (rt.worker) rt.worker->stop();
    while (rt.live_threads > 0 || rt.queue.size() > 0)
      if (auto batch = rt.queue.pop_for(std::chrono::milliseconds(50))) write_batch(*batch, rt);
    rt.queue.close();
    for (auto& t : threads) t.join();
  };
  std::unique_ptr<Runtime> next;
  if (rt.keeper) {  // HA: serve the web UI and keep the model warm until the lease is ours
    if (rt.cfg.web.enabled) start_web(rt);
    spawn(discovery_loop);
    bool leader = false;
    try {
      leader = stand_by(rt, config_path, next);
    } catch (...) {
      stop_workers();
      throw;
    }
    if (!leader) {
      stop_workers();
      return next;
    }
    take_over(rt);
  }
  // Before anything can act: port actions a crash left between request and record.
  try {
    reconcile_intents(rt.cfg, *rt.db, rt.plan.get(), &rt.names, rt.clock.now_us());
  } catch (const std::exception& e) {
    log(LogLevel::error, "pending port actions not reconciled: they stay pending",
        {{"error", e.what()}});
  }
  rt.opensm_cursor = rt.db->cursor("opensm");
  auto stored = rt.db->ports();
  for (const auto& r : stored)
    if (r.counters.valid) rt.last_samples.push_back(r.counters);
  rt.ports.seed(std::move(stored));
  if (rt.worker) {
    if (rt.keeper) rt.worker->set_store(rt.spec, [k = rt.keeper.get()] { return k->held(); });
    rt.worker->start();
  }
  if (rt.keeper) {
    rt.acting = true;
    request_discovery(rt, 1);  // record the fabric as this holder finds it
    spawn(lease_loop);
  } else {
    if (rt.cfg.web.enabled) start_web(rt);
    spawn(discovery_loop);
  }
  spawn(watcher_loop);
  if (!rt.ufm)
    if (size_t n = drop_ufm_port_view(*rt.db))
      log(LogLevel::info, "ufm port view dropped (no ufm: section)", {{"rows", n}});
  if (rt.ufm) {  // UFM Telemetry, when configured, replaces the MAD sweep
    rt.ufm->resume(rt.db->cursor("ufm"), rt.db->cursor("ufm_alarms"), rt.db->ufm_ports());
    spawn([](Runtime& r) { r.ufm->run_events(ufm_hooks(r)); });
    if (rt.ufm->has_telemetry()) spawn([](Runtime& r) { r.ufm->run_telemetry(ufm_hooks(r)); });
    if (rt.cfg.ufm->event_log) {
      rt.ufm_log_cursor = rt.db->cursor("ufm_event_log");
      spawn([](Runtime& r) { run_ufm_event_log(r.cfg, ufm_hooks(r), r.ufm_log_cursor); });
    }
  }
  if (rt.cfg.counters.enabled && !(rt.ufm && rt.ufm->has_telemetry())) spawn(counter_loop);
  if (rt.cfg.probes.interval_us || rt.cfg.probes.spool_dir) spawn(probe_loop);
  if (rt.cfg.workorders.webhook)
    spawn([](Runtime& r) { run_outbox(r.cfg, r.spec, r.webhook_secret, r.running); });
  ServiceNotifier& notifier = service_notifier();
  notifier.ready(ready_status(rt));  // systemd (Type=notify): this generation runs
  try {
    while (!g_stop) {
      if (rt.lease_lost) {  // fenced or not renewed: stop acting, stand by again
        next = step_down(rt);
        break;
      }
      notifier.watchdog_tick();  // only this loop pings: a wedged writer gets us restarted
      if (g_reload.exchange(false) && try_reload(rt, config_path, next)) break;
      if (auto batch = rt.queue.pop_for(std::chrono::milliseconds(100))) write_batch(*batch, rt);
      maybe_compact(rt);
    }
  } catch (...) {
    notifier.stopping();
    stop_workers();
    throw;
  }
  if (g_stop) notifier.stopping();  // before the workers drain: that can take a while
  stop_workers();
  if (rt.keeper && !next) rt.keeper->release();  // stopping: a standby takes over at once
  return next;
}

}  // namespace daemon_detail

int run_daemon(const std::string& config_path) {
  using namespace daemon_detail;
  config::Config cfg;
  try {
    cfg = config::load_config(config_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ibwarden run: invalid configuration:\n%s\n", e.what());
    service_notifier().status(std::string("invalid configuration: ") + e.what());
    return 2;
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<Runtime> rt;
  try {
    rt = prepare(cfg);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ibwarden run: cannot start:\n%s\n", e.what());
    service_notifier().status(std::string("cannot start: ") + e.what());
    return 2;
  }
  bool store_failed = false;
  while (rt && !g_stop) {
    const config::Config& c = rt->cfg;
    set_log_level(c.log.level);
    log(LogLevel::info, "ibwarden started",
        {{"config", config_path},
         {"fabric", c.fabric.name},
         {"store", c.store.path},
         {"discovery", c.fabric.discovery},
         {"opensm_log", c.opensm.log},
         {"rules", c.rules.file.value_or("")},
         {"rules_loaded", rt->rules_loaded},
         {"actions_mode", c.actions.mode},
         {"webhook", c.workorders.webhook.has_value()},
         // Parts whose documented default is off say so here: an omitted section is never
         // "off" in silence.
         {"plan", c.fabric.plan.value_or("none (no cable IDs)")},
         {"counters", c.counters.enabled ? "on" : "off"},
         {"probes", c.probes.interval_us ? "on" : "off (probes.interval null)"},
         {"ufm", c.ufm ? c.ufm->url : std::string("none")},
         {"web", c.web.enabled ? c.web.listen : std::string("off (no web: section)")}});
    if (c.actions.mode == "enforce" && rt->rules_loaded <= 0)
      log(LogLevel::error,
          "actions.mode is enforce but no rules are loaded: nothing is acted on automatically",
          {{"rules", c.rules.file.value_or("(no rules.file)")},
           {"rules_loaded", rt->rules_loaded}});
    auto next = run_generation(*rt, config_path);
    store_failed = rt->store_failed;
    rt = std::move(next);
  }
  service_notifier().stopping();  // when a reload was accepted just as a stop came
  log(LogLevel::info, "ibwarden stopped");
  return store_failed ? 1 : 0;
}

}  // namespace ibw::daemon
