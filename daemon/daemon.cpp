// `ibwarden run` (daemon/daemon.h): start-up, reloads and shutdown. prepare() builds a
// generation's Runtime (daemon/runtime.h) or rejects the configuration; run_generation() starts
// its threads, workers and web API and joins them on stop or reload. Thread bodies: threads.cpp.
#include "daemon/daemon.h"

#include <algorithm>
#include <csignal>
#include <filesystem>

#include "daemon/logger.h"
#include "daemon/notify.h"
#include "daemon/outbox_worker.h"
#include "daemon/remedy_setup.h"
#include "daemon/runtime.h"
#include "daemon/ufm_setup.h"
#include "fabric/diagnostics.h"
#include "store/spec.h"

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
  rt->db = store::Store::open(store::store_spec(cfg));
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
  if (rt.web_server) s += ", web API on port " + std::to_string(rt.web_server->port());
  return s;
}

// Runs one configuration generation until stop or a valid reload; returns the next
// generation's runtime on reload, null on stop. Workers are always stopped and joined, also
// when this throws.
std::unique_ptr<Runtime> run_generation(Runtime& rt, const std::string& config_path) {
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
  if (rt.worker) rt.worker->start();
  if (rt.cfg.web.enabled) start_web(rt);
  spawn(watcher_loop);
  spawn(discovery_loop);
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
    spawn([](Runtime& r) { run_outbox(r.cfg, r.webhook_secret, r.running); });
  ServiceNotifier& notifier = service_notifier();
  notifier.ready(ready_status(rt));  // systemd (Type=notify): this generation runs
  std::unique_ptr<Runtime> next;
  try {
    while (!g_stop) {
      notifier.watchdog_tick();  // only this loop pings: a wedged writer gets us restarted
      if (g_reload.exchange(false)) {
        notifier.reloading();
        try {
          auto candidate = prepare(config::load_config(config_path));
          if (!g_stop) next = std::move(candidate);
          log(LogLevel::info, "configuration reloaded", {{"config", config_path}});
          break;
        } catch (const std::exception& e) {
          log(LogLevel::error, "new configuration rejected; keeping the running one",
              {{"config", config_path}, {"error", e.what()}});
          notifier.ready(ready_status(rt) + "; last reload rejected: " + e.what());
        }
      }
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
