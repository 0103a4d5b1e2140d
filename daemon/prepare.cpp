// prepare(): builds a generation's Runtime (daemon/runtime.h) from a configuration as a list of
// named steps, or rejects the configuration with the first step's failure.
#include <algorithm>
#include <filesystem>

#include "config/store_spec.h"
#include "daemon/logger.h"
#include "daemon/runtime.h"
#include "daemon/sources/sources.h"
#include "daemon/sources/ufm.h"
#include "daemon/steps.h"

namespace ibw::daemon::daemon_detail {

namespace {

void open_store(Runtime& rt) {
  const config::Config& cfg = rt.cfg;
  if (cfg.store.backend == "sqlite") {
    auto parent = std::filesystem::path(cfg.store.path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
  }
  rt.store.spec = config::store_spec(cfg);
  rt.store.db = store::Store::open(rt.store.spec);
  if (cfg.ha.enabled) {  // start as a standby: the lease decides who acts
    rt.store.keeper = std::make_unique<LeaseKeeper>(rt.store.spec, cfg.ha);
    rt.store.acting = false;
  }
}

void load_rules(Runtime& rt) {
  const config::Config& cfg = rt.cfg;
  config::require_default_rules(cfg);
  if (!cfg.rules.file) return;
  rules::RuleSet set = rules::load_rules(*cfg.rules.file);
  rt.rules.loaded = static_cast<int>(
      std::count_if(set.rules.begin(), set.rules.end(), [](const auto& r) { return r.enabled; }));
  rt.rules.runner = std::make_unique<rules::RuleRunner>(std::move(set));
  rt.rules.runner->set_incidents(&rt.fabric.incidents);
  rt.rules.worker = std::make_unique<ActionWorker>(rt.mad, cfg, rt.fabric.plan.get());
}

void check_web(Runtime& rt) {
  const config::Config& cfg = rt.cfg;
  // What check-config refuses (credentials in URLs, secrets over http://) or warns of: logged.
  for (const auto* list : {&cfg.insecure, &cfg.warnings})
    for (const auto& d : *list)
      log(LogLevel::warning, "insecure configuration", {{"warning", fabric::format_diagnostic(d)}});
  if (!cfg.web.enabled) return;
  web::parse_listen(cfg.web.listen);  // throws std::invalid_argument naming the problem
  if (cfg.web.tokens_file) {
    rt.web.tokens = web::TokenSet::load(*cfg.web.tokens_file);
    for (const auto& w : rt.web.tokens->warnings())
      log(LogLevel::warning, "web tokens file", {{"warning", w}});
  }
  if (cfg.web.tls_cert && cfg.web.tls_key)  // a reload (SIGHUP) reads renewed files
    rt.web.tls = web::TlsConfig::load({*cfg.web.tls_cert, *cfg.web.tls_key, cfg.file,
                                       cfg.web.tls_cert_line, cfg.web.tls_key_line});
}

// The configuration's sources, discovery first (an HA standby runs it alone), and their view
// of the runtime.
void add_sources(Runtime& rt) {
  const config::Config& cfg = rt.cfg;
  auto& list = rt.sources.list;
  list.push_back(make_discovery_source());
  list.push_back(make_opensm_watcher());
  if (cfg.ufm) {
    list.push_back(std::make_unique<UfmEventsSource>(cfg));  // reads its credentials now
    if (ufm_telemetry_configured(cfg)) list.push_back(make_ufm_telemetry(cfg));
    if (cfg.ufm->event_log) list.push_back(make_ufm_event_log());
  }
  // UFM Telemetry, when configured, replaces the MAD sweep
  if (cfg.counters.enabled && !ufm_telemetry_configured(cfg))
    list.push_back(make_counter_sweep(cfg));
  if (cfg.probes.interval_us || cfg.probes.spool_dir) list.push_back(make_probe_source());
  rt.fabric.jobs.configure(cfg.slurm.enabled);
  if (cfg.slurm.enabled) {
    list.push_back(make_slurm_jobs());
    rt.link_jobs = std::make_unique<LinkJobs>(rt.fabric, rt.cfg);
  }
  if (cfg.sm_watch.on(cfg.fabric.discovery)) {
    rt.fabric.sm.configure(true);
    list.push_back(make_sm_watch());
  } else {
    rt.fabric.sm.configure(false, cfg.sm_watch.enabled == "false"
                                      ? "sm_watch.enabled is false: actions are not held "
                                        "without a master SM"
                                      : "no MADs (fabric.discovery is a file): the SM is not "
                                        "watched and actions are not held");
  }
  rt.sources.context.emplace(SourceDeps{&rt.cfg, &rt.fabric, &rt.store.queue, rt.rules.runner.get(),
                                        rt.rules.worker.get(), &rt.sources.running,
                                        &rt.store.acting, &rt.store.db, &rt.mad});
}

}  // namespace

std::unique_ptr<Runtime> prepare(const config::Config& cfg, fabric::MadLocks& mad) {
  auto rt = std::make_unique<Runtime>(mad);
  rt->cfg = cfg;
  Runtime& r = *rt;
  const std::vector<Step> steps = {
      {"load the plan",
       [&] {
         if (cfg.fabric.plan)
           r.fabric.plan = std::make_unique<fabric::Plan>(fabric::load_plan(*cfg.fabric.plan));
         return true;
       }},
      {"load the node-name-map",
       [&] {
         if (cfg.fabric.node_name_map)
           r.fabric.names = fabric::load_node_name_map(*cfg.fabric.node_name_map);
         return true;
       }},
      {"load the Slurm node map",  // slurm.node_map: a typo fails here, not at the first drain
       [&] {
         r.fabric.slurm_map = config::load_slurm_node_map(cfg);
         if (cfg.slurm.enabled) r.rules.slurm = std::make_unique<SlurmWorker>(cfg, r.fabric);
         return true;
       }},
      {"open the store", [&] { return open_store(r), true; }},
      {"load the rules", [&] { return load_rules(r), true; }},
      {"read the webhook secret",
       [&] {
         if (cfg.workorders.webhook) r.rules.webhook_secret = webhook_secret(cfg);
         return true;
       }},
      {"check the web settings", [&] { return check_web(r), true; }},
      {"build the sources", [&] { return add_sources(r), true; }},
  };
  run_steps(steps);
  return rt;
}

}  // namespace ibw::daemon::daemon_detail
