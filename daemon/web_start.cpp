// The web API of a generation (start_web) and the status line systemd shows (ready_status);
// daemon/runtime.h.
#include "daemon/logger.h"
#include "daemon/runtime.h"

namespace ibw::daemon::daemon_detail {

// Starts the web API (web/) on web.listen, HTTPS with web.tls_* (checked by prepare()). A
// server that cannot start (address in use) is logged and the daemon goes on without it:
// ingest and actions matter more than the page.
void start_web(Runtime& rt) {
  WebPart& w = rt.web;
  WebBackendDeps deps;
  deps.cfg = rt.cfg;
  deps.plan = rt.fabric.plan.get();
  deps.topology = [&rt] { return rt.fabric.topology(); };
  deps.health = &rt.fabric.health;
  deps.probes =
      rt.cfg.probes.interval_us || rt.cfg.probes.spool_dir ? &rt.fabric.probe_state : nullptr;
  deps.congestion = &rt.fabric.congestion;
  deps.route_check = &rt.fabric.route_check;
  deps.sm = &rt.fabric.sm;
  if (rt.rules.slurm) deps.slurm = &rt.rules.slurm->stats();
  deps.jobs = &rt.fabric.jobs;
  deps.writer = rt.store.db.get();  // declared before the web part: outlives the backend
  deps.link_jobs = rt.link_jobs.get();
  deps.started_us = rt.fabric.clock.now_us();
  deps.incidents = &rt.fabric.incidents;
  deps.after_action = [&rt](const core::DecisionRecord& d) { read_back(rt, d); };
  deps.rules_loaded = rt.rules.loaded;
  deps.mad = &rt.mad;
  if (LeaseKeeper* k = rt.store.keeper.get())  // a standby serves the UI but refuses port
    deps.is_leader = [k, &rt] { return rt.store.acting && k->held(); };  // actions (409)
  w.backend = std::make_unique<WebBackend>(std::move(deps));
  rt.sources.context->on_sweep = [b = w.backend.get()](double s, int64_t end_us) {
    b->sweep_done(s, end_us);
  };
  web::ApiOptions api_options;
  api_options.read_only = rt.cfg.web.read_only;
  api_options.error_log = [](const std::string& e) { log(LogLevel::error, "web", {{"error", e}}); };
  w.api = std::make_unique<web::Api>(*w.backend, api_options, w.tokens);
  web::ServerOptions options;
  options.listen = rt.cfg.web.listen;
  options.tls = w.tls;
  if (w.tls && w.tls->expired())
    log(LogLevel::warning, "web TLS certificate expired: clients will refuse it",
        {{"tls_cert", *rt.cfg.web.tls_cert}, {"not_after", w.tls->not_after()}});
  const config::WebSection& c = rt.cfg.web;
  options.max_connections = static_cast<size_t>(c.max_connections);
  options.max_connections_per_address = static_cast<size_t>(c.max_connections_per_address);
  options.max_streams = static_cast<size_t>(c.max_streams);
  options.max_streams_per_token = static_cast<size_t>(c.max_streams_per_token);
  options.request_timeout = std::chrono::milliseconds(c.request_timeout_ms);
  options.keepalive_timeout = std::chrono::milliseconds(c.keepalive_timeout_ms);
  // The audit trail: every request at info (web.access_log), every change (POST, PATCH)
  // always, with who made it; never the token.
  options.access_log = [all = c.access_log](const web::AccessRecord& a) {
    if (!all && !a.mutating()) return;
    log(LogLevel::info, "http",
        {{"method", a.method},
         {"path", a.path},
         {"status", a.status},
         {"role", a.role()},
         {"actor", a.actor},
         {"peer", a.peer},
         {"ms", a.duration_us / 1000.0}});
  };
  options.error_log = [](const std::string& e) { log(LogLevel::warning, "web", {{"error", e}}); };
  w.server = std::make_unique<web::Server>(options, *w.api);
  try {
    w.server->start();
    log(LogLevel::info, "web API listening",
        {{"listen", rt.cfg.web.listen},
         {"port", w.server->port()},
         {"scheme", w.tls ? "https" : "http"},
         {"tls_subject", w.tls ? w.tls->subject() : ""},
         {"tls_not_after", w.tls ? w.tls->not_after() : ""},
         {"read_only", rt.cfg.web.read_only || !w.tokens},
         {"tokens", w.tokens ? w.tokens->size() : 0}});
  } catch (const std::exception& e) {
    log(LogLevel::error, "web API not started", {{"error", e.what()}});
    w.server.reset();
  }
}

std::string ready_status(const Runtime& rt) {
  const config::Config& c = rt.cfg;
  std::string s = "watching fabric " + c.fabric.name + ": ";
  s += rt.rules.loaded < 0 ? "no rules file" : std::to_string(rt.rules.loaded) + " rules loaded";
  s += ", actions " + c.actions.mode;
  if (const LeaseKeeper* k = rt.store.keeper.get())
    s += rt.store.acting ? ", leader (lease epoch " + std::to_string(k->fence().epoch) + ")"
                         : ", standby (lease held by " + k->last().holder + ")";
  if (rt.web.server) s += ", web API on port " + std::to_string(rt.web.server->port());
  return s;
}

}  // namespace ibw::daemon::daemon_detail
