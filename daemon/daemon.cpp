#include "daemon/daemon.h"

#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <thread>

#include "config/config.h"
#include "daemon/action_worker.h"
#include "daemon/batch_queue.h"
#include "daemon/logger.h"
#include "daemon/outbox_worker.h"
#include "daemon/port_table.h"
#include "daemon/remedy_setup.h"
#include "daemon/rule_runner.h"
#include "daemon/topology.h"
#include "daemon/ufm_setup.h"
#include "daemon/ufm_source.h"
#include "daemon/web_backend.h"
#include "fabric/diagnostics.h"
#include "fabric/routing.h"
#include "ingest/clock.h"
#include "ingest/counter_poller.h"
#include "ingest/counter_tracker.h"
#include "ingest/file_tailer.h"
#include "ingest/opensm_log.h"
#include "store/store.h"
#include "web/api.h"
#include "web/auth.h"
#include "web/server.h"

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
  std::atomic<bool> rediscover{true};  // the watcher discovers first thing
  std::mutex topo_mutex;
  std::shared_ptr<const Topology> topo;
  std::optional<std::string> opensm_cursor;
  std::vector<ingest::CounterSample> last_samples;
  std::unique_ptr<store::Store> db;
  std::mutex routes_mutex;
  std::shared_ptr<const fabric::RoutingTables> routes;  // from opensm-lfts.dump, when present
  // Held from a PortTable update until its batch is queued, so full-row port writes reach
  // the store in the order they were made (the writer never takes it: no deadlock).
  std::mutex publish_mutex;
  bool store_failed = false;  // a batch could not be stored at shutdown; later ones are dropped
  std::unique_ptr<RuleRunner> rules;     // null without rules.file
  std::unique_ptr<ActionWorker> worker;  // with rules
  std::string webhook_secret;            // never logged
  SourceHealthBoard health;              // sources' health (OpenSM, counters, UFM): logs, /health
  std::optional<std::string> ufm_log_cursor;  // where UFM's event.log was last read
  std::optional<web::TokenSet> web_tokens;    // loaded by prepare(): a bad file fails the config
  std::optional<web::TlsConfig> web_tls;      // web.tls_*, loaded by prepare() like the tokens
  // The web API, in destruction order: the server goes first, then the API, then the backend.
  std::unique_ptr<WebBackend> web_backend;
  std::unique_ptr<web::Api> web_api;
  std::unique_ptr<web::Server> web_server;
  std::unique_ptr<UfmSource> ufm;  // with a ufm: section

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

void enrich_all(const Topology* topo, std::vector<ingest::Event>& events) {
  if (!topo) return;
  for (auto& e : events) topo->correlator->enrich(e);
}

// Evaluates the rules after new data and hands acting verdicts to the action worker.
void evaluate_rules(Runtime& rt, const std::shared_ptr<const Topology>& topo) {
  if (!rt.rules || !topo) return;
  ActionJob job;
  job.topo = topo;
  for (auto& v : rt.rules->evaluate(*topo, rt.clock.now_us())) {
    actions::Finding f;
    if (auto rec = rt.ports.get(v.node_guid, v.port)) f.counters = rec->counters;
    f.verdict = std::move(v);
    job.findings.push_back(std::move(f));
  }
  if (job.findings.empty()) return;
  size_t n = job.findings.size();
  if (!rt.worker->submit(std::move(job)))
    log(LogLevel::warning, "action queue full; verdicts deferred to the next evaluation",
        {{"verdicts", n}});
}

// Returns false when discovery failed (the caller retries).
bool discover(Runtime& rt) {
  int64_t now = rt.clock.now_us();
  std::shared_ptr<const Topology> topo;
  try {
    topo = discover_topology(rt.cfg, rt.plan.get(), &rt.names, now, /*isolated=*/true);
  } catch (const std::exception& e) {
    log(LogLevel::error, "discovery failed", {{"error", e.what()}});
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(rt.topo_mutex);
    rt.topo = topo;
  }
  std::lock_guard<std::mutex> publish(rt.publish_mutex);
  store::WriteBatch batch;
  batch.ports = rt.ports.apply_topology(*topo, now, &batch.events);
  enrich_all(topo.get(), batch.events);
  log(LogLevel::info, "fabric discovered",
      {{"nodes", topo->fabric.size()},
       {"links", topo->fabric.link_count()},
       {"ports_polled", topo->targets.size()},
       {"link_changes", batch.events.size()}});
  if (rt.rules) rt.rules->add_events(batch.events);
  if (!batch.events.empty() || !batch.ports.empty()) rt.queue.push(std::move(batch));
  evaluate_rules(rt, topo);
  return true;
}

// Reloads OpenSM's LFT dump when its size or mtime changed since the last look.
class RouteWatcher {
 public:
  explicit RouteWatcher(std::string path) : path_(std::move(path)) {}
  void check(Runtime& rt) {
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) return;
    std::pair<int64_t, int64_t> stamp{st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
                                      st.st_size};
    if (stamp == stamp_) return;
    stamp_ = stamp;
    try {
      auto tables = std::make_shared<const fabric::RoutingTables>(fabric::load_lft_dump(path_));
      log(LogLevel::info, "routing tables loaded",
          {{"path", path_}, {"switches", tables->by_switch.size()}});
      std::lock_guard<std::mutex> lock(rt.routes_mutex);
      rt.routes = std::move(tables);
    } catch (const std::exception& e) {  // OpenSM may be rewriting it: retry on the next change
      log(LogLevel::warning, "routing tables not loaded", {{"path", path_}, {"error", e.what()}});
      stamp_ = {};
    }
  }

 private:
  std::string path_;
  std::pair<int64_t, int64_t> stamp_{};
};

void watcher_loop(Runtime& rt) {
  RouteWatcher routes(rt.cfg.opensm.dump_dir + "/opensm-lfts.dump");
  std::optional<ingest::TailCursor> cursor;
  if (rt.opensm_cursor) cursor = ingest::TailCursor::parse(*rt.opensm_cursor);
  ingest::FileTailer tailer(rt.cfg.opensm.log, cursor,
                            /*start_at_end=*/!cursor && !rt.cfg.opensm.read_existing);
  if (!cursor) {  // store where reading starts, so a restart resumes there, not at the end
    if (auto pos = tailer.position()) {
      store::WriteBatch start;
      start.cursors.emplace_back("opensm", pos->serialize());
      rt.queue.push(std::move(start));
    }
  }
  auto next_discovery = Clock::now();
  auto last_full = Clock::now();
  std::string last_error;
  while (rt.running) {
    store::WriteBatch batch;
    auto lines = tailer.poll();
    rt.health.set(
        {"opensm", tailer.error().empty() ? ingest::HealthState::ok : ingest::HealthState::down,
         tailer.error(), tailer.error().empty() ? rt.clock.now_us() : 0, rt.clock.now_us()});
    if (tailer.error() != last_error) {
      last_error = tailer.error();
      if (!last_error.empty())
        log(LogLevel::warning, "opensm log unavailable",
            {{"path", rt.cfg.opensm.log}, {"error", last_error}});
    }
    ingest::OsmLogContext ctx{rt.clock.now_us(), rt.cfg.opensm.utc_offset_s};
    for (const auto& line : lines) {
      auto rec = ingest::parse_opensm_line(line.text, ctx);
      if (!rec) continue;
      if ((rec->kind == ingest::OsmRecordKind::trap && rec->trap_number == 128) ||
          (rec->kind == ingest::OsmRecordKind::notice &&
           rec->text.find("Link state change") != std::string::npos) ||
          rec->kind == ingest::OsmRecordKind::subnet_up) {
        if (!rt.rediscover.exchange(true))
          next_discovery =
              Clock::now() + std::chrono::microseconds(rt.cfg.opensm.rediscover_delay_us);
      }
      auto ev = ingest::to_event(*rec);
      if (!ev) continue;
      ev->dedup_key = "opensm:" + line.after.serialize();
      batch.events.push_back(std::move(*ev));
    }
    if (!lines.empty()) {
      auto topo = rt.topology();
      enrich_all(topo.get(), batch.events);
      batch.cursors.emplace_back("opensm", lines.back().after.serialize());
      if (!rt.queue.push(std::move(batch))) return;
    }
    if (Clock::now() - last_full >
            std::chrono::microseconds(rt.cfg.fabric.rediscover_interval_us) &&
        !rt.rediscover.exchange(true))
      next_discovery = Clock::now();
    if (rt.rediscover && Clock::now() >= next_discovery) {
      rt.rediscover = false;
      last_full = Clock::now();
      if (!discover(rt)) {  // retry soon: a link change must not wait for the next trap
        rt.rediscover = true;
        next_discovery = Clock::now() + std::chrono::seconds(1);
      }
    }
    routes.check(rt);
    rt.nap(std::chrono::microseconds(rt.cfg.opensm.poll_us));
  }
}

void counter_loop(Runtime& rt) {
  ingest::TrackerOptions topts;
  topts.jump_threshold = rt.cfg.counters.jump_threshold;
  ingest::CounterTracker tracker(topts);
  for (const auto& s : rt.last_samples) tracker.seed(s);
  std::unique_ptr<ingest::CounterPoller> poller;
  while (rt.running) {
    auto topo = rt.topology();
    if (!topo) {
      rt.nap(std::chrono::milliseconds(200));
      continue;
    }
    auto started = Clock::now();
    try {
      if (!poller) {
        ingest::PollerOptions po;
        po.ca = rt.cfg.fabric.ca;
        po.ca_port = rt.cfg.fabric.ca_port;
        po.window = rt.cfg.counters.window;
        po.timeout_ms = rt.cfg.counters.timeout_ms;
        po.retries = rt.cfg.counters.retries;
        poller = ingest::CounterPoller::open(po, rt.clock);
      }
      ingest::SweepResult res = poller->sweep(topo->targets);
      std::unique_lock<std::mutex> publish(rt.publish_mutex);
      store::WriteBatch batch;
      std::vector<ingest::CounterDelta> deltas;
      deltas.reserve(res.samples.size());
      for (const auto& s : res.samples) deltas.push_back(tracker.update(s, &batch.events));
      for (const auto& t : res.unresponsive)
        tracker.unresponsive(t.node_guid, t.port, res.started_us, &batch.events);
      for (auto& e : batch.events) {
        if (e.kind == ingest::kind::port_unresponsive) {
          // Keyed on the last answer, not the sweep: a restart re-detecting the same dead port
          // must not report it again.
          auto rec = rt.ports.get(e.node_guid, e.port);
          e.dedup_key = "counters:port_unresponsive:" + std::to_string(e.node_guid) + ":" +
                        std::to_string(e.port) +
                        ":since:" + std::to_string(rec ? rec->counters.time_us : 0);
        }
        if (e.dedup_key.empty())
          e.dedup_key = "counters:" + e.kind + ":" + std::to_string(e.node_guid) + ":" +
                        std::to_string(e.port) + ":" + std::to_string(e.time_us);
      }
      enrich_all(topo.get(), batch.events);
      batch.ports = rt.ports.apply_counters(deltas);
      if (rt.rules) rt.rules->add_deltas(deltas);
      batch.samples = std::move(res.samples);
      log(LogLevel::debug, "counter sweep",
          {{"ports", topo->targets.size()},
           {"answered", batch.samples.size()},
           {"unresponsive", res.unresponsive.size()},
           {"duration_ms", res.duration_us / 1000.0}});
      if (!rt.queue.push(std::move(batch))) return;
      publish.unlock();
      rt.health.set(
          {"counters", ingest::HealthState::ok, "", rt.clock.now_us(), rt.clock.now_us()});
      if (rt.web_backend) rt.web_backend->sweep_done(res.duration_us / 1e6, rt.clock.now_us());
      evaluate_rules(rt, topo);
    } catch (const std::exception& e) {
      rt.health.set({"counters", ingest::HealthState::down, e.what(), 0, rt.clock.now_us()});
      log(LogLevel::error, "counter sweep failed", {{"error", e.what()}});
      poller.reset();
    }
    auto elapsed = Clock::now() - started;
    auto interval = std::chrono::microseconds(rt.cfg.counters.interval_us);
    if (elapsed < interval)
      rt.nap(std::chrono::duration_cast<std::chrono::microseconds>(interval - elapsed));
  }
}

// The UFM source's view of this runtime (daemon/ufm_source.h).
UfmSourceHooks ufm_hooks(Runtime& rt) {
  UfmSourceHooks h;
  h.topology = [&rt] { return rt.topology(); };
  h.push = [&rt](store::WriteBatch b) { return rt.queue.push(std::move(b)); };
  h.evaluate = [&rt](const std::shared_ptr<const Topology>& t) { evaluate_rules(rt, t); };
  h.publish_mutex = &rt.publish_mutex;
  h.ports = &rt.ports;
  h.rules = rt.rules.get();
  h.health = &rt.health;
  h.running = &rt.running;
  return h;
}

// Writes one batch, retrying while the store fails. When shutting down it gives up after a
// few attempts; every later batch is then dropped too (rt.store_failed), so no cursor can
// move past events that were not stored: the sources re-read them after a restart.
void write_batch(store::WriteBatch& batch, Runtime& rt) {
  if (rt.store_failed) return;
  for (int attempt = 0;; ++attempt) {
    try {
      store::WriteResult res = rt.db->write(batch);
      for (size_t i = 0; i < batch.events.size(); ++i)
        if (res.event_ids[i]) log_event(batch.events[i], res.event_ids[i]);
      return;
    } catch (const store::StoreError& e) {
      log(LogLevel::error, "store write failed; retrying",
          {{"error", e.what()}, {"attempt", attempt}});
      if (g_stop && attempt >= 2) {
        rt.store_failed = true;
        log(LogLevel::error, "shutting down with unstored batches; sources will re-read them");
        return;
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
}

// Builds a runtime for a configuration: loads the plan and node-name-map and opens the store.
// Throws on any failure, so a reload that cannot work is rejected like a broken config.
std::unique_ptr<Runtime> prepare(const config::Config& cfg) {
  auto rt = std::make_unique<Runtime>();
  rt->cfg = cfg;
  if (cfg.fabric.plan)
    rt->plan = std::make_unique<fabric::Plan>(fabric::load_plan(*cfg.fabric.plan));
  if (cfg.fabric.node_name_map) rt->names = fabric::load_node_name_map(*cfg.fabric.node_name_map);
  auto parent = std::filesystem::path(cfg.store.path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  rt->db = store::Store::open(cfg.store.path);
  if (cfg.rules.file) {
    rt->rules = std::make_unique<RuleRunner>(rules::load_rules(*cfg.rules.file));
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
  deps.started_us = rt.clock.now_us();
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

// Runs one configuration generation until stop or a valid reload; returns the next
// generation's runtime on reload, null on stop. Workers are always stopped and joined, also
// when this throws.
std::unique_ptr<Runtime> run_generation(Runtime& rt, const std::string& config_path) {
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
  if (rt.cfg.workorders.webhook)
    spawn([](Runtime& r) { run_outbox(r.cfg, r.webhook_secret, r.running); });
  std::unique_ptr<Runtime> next;
  try {
    while (!g_stop) {
      if (g_reload.exchange(false)) {
        try {
          auto candidate = prepare(config::load_config(config_path));
          if (!g_stop) next = std::move(candidate);
          log(LogLevel::info, "configuration reloaded", {{"config", config_path}});
          break;
        } catch (const std::exception& e) {
          log(LogLevel::error, "new configuration rejected; keeping the running one",
              {{"config", config_path}, {"error", e.what()}});
        }
      }
      if (auto batch = rt.queue.pop_for(std::chrono::milliseconds(100))) write_batch(*batch, rt);
      maybe_compact(rt);
    }
  } catch (...) {
    stop_workers();
    throw;
  }
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
         {"actions_mode", c.actions.mode},
         {"webhook", c.workorders.webhook.has_value()}});
    auto next = run_generation(*rt, config_path);
    store_failed = rt->store_failed;
    rt = std::move(next);
  }
  log(LogLevel::info, "ibwarden stopped");
  return store_failed ? 1 : 0;
}

}  // namespace ibw::daemon
