#include "daemon/web_backend.h"

#include "daemon/logger.h"

#include <algorithm>
#include <chrono>

#include "config/store_spec.h"
#include "daemon/remedy_setup.h"
#include "fabric/audit.h"
#include "fabric/audit_report.h"
#include "fabric/json_text.h"
#include "store/record_json.h"
#include "web/http.h"

namespace ibw::daemon {
namespace web_backend_detail {

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

web::SourceStatus status_of(ingest::HealthState s) {
  switch (s) {
    case ingest::HealthState::ok:
      return web::SourceStatus::ok;
    case ingest::HealthState::degraded:
      return web::SourceStatus::degraded;
    case ingest::HealthState::down:
      return web::SourceStatus::down;
  }
  return web::SourceStatus::down;
}

}  // namespace web_backend_detail

std::unique_ptr<store::Store> WebBackend::open_store(const std::string& fabric, bool writable) {
  store::StoreSpec spec = config::store_spec(deps_.cfg);
  if (!fabric.empty() && fabric != spec.fabric) {
    bool known = false;
    for (const auto& f : fabrics()) known = known || f.name == fabric;
    if (!known) throw web::ApiError(404, "no fabric " + fabric + " in the store");
    spec.fabric = fabric;
  }
  spec.fence.reset();  // the web API never writes as the lease holder
  return store::Store::open(spec, /*read_only=*/!writable);
}

std::vector<store::FabricEntry> WebBackend::fabrics() {
  std::lock_guard<std::mutex> lock(fabrics_mutex_);
  for (int attempt = 0;; ++attempt) {
    try {
      if (!fabrics_store_)
        fabrics_store_ = store::Store::open(config::store_spec(deps_.cfg), /*read_only=*/true);
      return fabrics_store_->fabrics();
    } catch (const store::StoreError&) {
      fabrics_store_.reset();  // a broken connection: open a new one, once
      if (attempt == 1) throw;
    }
  }
}

web::Health WebBackend::health() {
  namespace wd = web_backend_detail;
  web::Health h;
  h.started_us = deps_.started_us;
  h.rules_loaded = deps_.rules_loaded;
  h.enforce = deps_.cfg.actions.mode == "enforce";
  h.max_disabled_total = deps_.cfg.actions.max_disabled_total;
  h.max_actions_per_hour = deps_.cfg.actions.max_actions_per_hour;
  h.leader = !deps_.is_leader || deps_.is_leader();
  if (deps_.sm) h.subnet_manager = deps_.sm->json();
  if (deps_.jobs) {
    JobBoard::Stats s = deps_.jobs->stats();
    h.slurm_jobs = {s.enabled, s.running, s.failures, s.capped};
  }
  if (deps_.incidents) {
    int64_t now = web_backend_detail::now_us();
    h.incidents_active = deps_.incidents->active(now);
    h.incidents_opened = deps_.incidents->opened();
    h.incidents_dropped = deps_.incidents->dropped();
  }
  if (deps_.probes) h.input_refused = deps_.probes->refused.snapshot();
  if (deps_.writer) h.checkpoints = deps_.writer->checkpoints();
  if (deps_.slurm) {
    auto s = deps_.slurm->snapshot();
    h.slurm = web::Health::Slurm{s.drains, s.resumes, s.errors};
  }
  std::vector<std::string> expected = {"opensm", "counters", "ufm"};
  std::vector<SourceHealthEntry> seen =
      deps_.health ? deps_.health->snapshot() : std::vector<SourceHealthEntry>{};
  for (const auto& name : expected) {
    web::SourceHealth s;
    s.name = name;
    s.status = web::SourceStatus::disabled;
    for (const auto& e : seen)
      if (e.name == name) {
        s.status = wd::status_of(e.state);
        s.detail = e.detail;
        s.last_ok_us = e.last_ok_us;
      }
    h.sources.push_back(s);
  }
  for (const auto& e : seen) {  // any further source (e.g. ufm_telemetry)
    if (std::find(expected.begin(), expected.end(), e.name) != expected.end()) continue;
    h.sources.push_back({e.name, wd::status_of(e.state), e.detail, e.last_ok_us});
  }
  std::lock_guard<std::mutex> lock(mutex_);
  h.sweep_seconds = sweep_seconds_;
  h.sweep_time_us = sweep_time_us_;
  return h;
}

void WebBackend::sweep_done(double seconds, int64_t end_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  sweep_seconds_ = seconds;
  sweep_time_us_ = end_us;
}

core::DecisionRecord WebBackend::port_action(const web::PortActionRequest& request) {
  if (deps_.is_leader && !deps_.is_leader()) {  // a standby never acts: its leader does
    std::string holder = "(none)";
    try {
      for (const auto& f : fabrics())
        if (f.name == deps_.cfg.fabric.name && f.lease && !f.lease->holder.empty())
          holder = f.lease->holder;
    } catch (const std::exception&) {
    }
    throw web::ApiError(
        409, "standby: fabric " + deps_.cfg.fabric.name + " is acted on by its leader " + holder);
  }
  auto topo = deps_.topology ? deps_.topology() : nullptr;
  if (!topo) throw web::ApiError(503, "the fabric has not been discovered yet");
  if (!deps_.mad) throw web::ApiError(503, "port actions are not available here (no MAD locks)");
  std::optional<std::string> held = deps_.sm ? deps_.sm->hold_reason() : std::nullopt;
  if (held && request.action == web::PortActionKind::disable && !request.force)
    throw web::ApiError(409, *held +
                                 ": with no SM nothing re-routes around a disabled port; "
                                 "force (admin) disables anyway");
  auto db = store::Store::open(config::store_spec(deps_.cfg));
  actions::RemedyContext ctx =
      remedy_context(*topo, &plan_index_, local_lids(*deps_.mad, deps_.cfg));
  if (LinkJobs* jobs = deps_.link_jobs)
    ctx.affected = [jobs](uint64_t guid, int port) { return jobs->of_link(guid, port); };
  auto exec = port_executor(*deps_.mad, deps_.cfg);  // actions.via: SMPs or UFM, as the automation
  actions::Remediator remedy(remedy_config(deps_.cfg), *db, exec.get());
  auto action = request.action == web::PortActionKind::disable ? actions::PortAction::disable
                                                               : actions::PortAction::enable;
  std::string reason =
      request.reason + " (by " + request.actor + " via the web API" +
      (held && request.action == web::PortActionKind::disable ? "; forced: " + *held + ")" : ")");
  core::DecisionRecord d = remedy.manual(action, request.node_guid, request.port, reason,
                                         request.force, ctx, web_backend_detail::now_us());
  if (d.status == "executed" && deps_.after_action) deps_.after_action(d);
  return d;
}

std::optional<nlohmann::json> WebBackend::last_audit() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (last_audit_) return last_audit_;
  }
  // None run yet (or the backend was rebuilt by a reload): with a plan and a discovered
  // fabric, run one now, so GET /audit answers without a POST first.
  if (!deps_.plan || !deps_.topology || !deps_.topology()) return std::nullopt;
  return run_audit();
}

nlohmann::json WebBackend::run_audit() {
  if (!deps_.plan) throw web::ApiError(409, "no cabling plan configured (fabric.plan)");
  auto topo = deps_.topology ? deps_.topology() : nullptr;
  if (!topo) throw web::ApiError(503, "the fabric has not been discovered yet");
  fabric::AuditResult result = fabric::run_audit(*deps_.plan, topo->fabric);
  nlohmann::json j = nlohmann::json::parse(fabric::json_text(fabric::audit_to_json(result)));
  j["time"] = store::iso_time(web_backend_detail::now_us());
  j["topology_time"] = store::iso_time(topo->discovered_us);
  std::lock_guard<std::mutex> lock(mutex_);
  last_audit_ = j;
  return j;
}

nlohmann::json WebBackend::incidents(int64_t since_us) {
  nlohmann::json out = nlohmann::json::array();
  if (!deps_.incidents) return out;
  for (const auto& inc : deps_.incidents->list(since_us, web_backend_detail::now_us())) {
    nlohmann::json j = rules::incident_json(inc);
    PortRefs links;  // every link it covers (a host_down: the host's own links)
    for (const auto& l : inc.links) links.emplace_back(l.guid, l.port);
    actions::put_affected(
        j, deps_.link_jobs && !links.empty() ? deps_.link_jobs->of(links) : std::nullopt);
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json WebBackend::suspects() {  // probes() is null without deps_.probes
  auto j = deps_.probes->suspects();
  if (j) return *j;
  // Probing is on but nothing was localized yet (before the first round): an empty answer.
  return {{"observations", 0}, {"pairs", 0},  {"suspects", nlohmann::json::array()},
          {"time", nullptr},   {"rounds", 0}, {"posted", 0},
          {"skipped", 0}};
}

nlohmann::json WebBackend::congestion() {
  if (!deps_.congestion) return web::ApiBackend::congestion();
  return deps_.congestion->to_json();
}

nlohmann::json WebBackend::route_check() {
  if (!deps_.route_check) return web::ApiBackend::route_check();
  return deps_.route_check->to_json();
}

nlohmann::json WebBackend::route_health() {  // probes() is null without deps_.probes
  auto j = deps_.probes->route_health();
  if (j) return *j;
  auto empty = nlohmann::json::array();
  return {{"switches", empty}, {"guids", empty},     {"sent", empty},   {"lost", empty},
          {"loss", empty},     {"predicted", false}, {"time", nullptr}, {"rounds", 0}};
}

nlohmann::json WebBackend::submit_probes(const std::string& text, const std::string& actor,
                                         const std::string& peer) {
  const auto& pc = deps_.cfg.probes;
  const std::string source = actor + " " + peer;
  int64_t now = web_backend_detail::now_us();
  auto refuse = [&](const std::string& reason, const std::string& why, int64_t after_s) {
    deps_.probes->refused.add(reason);
    int64_t last = warned_quota_us_.load();
    if (now - last >= 60'000'000 && warned_quota_us_.compare_exchange_strong(last, now))
      log(LogLevel::warning, "probe observations refused",
          {{"actor", actor}, {"peer", peer}, {"reason", reason}});
    throw web::RetryLater(why + "; retry in " + std::to_string(after_s) + " s", after_s);
  };
  // The body's bytes first: a source past its quota costs no parsing.
  IntakeVerdict v = intake_.admit(source, 0, text.size(), now);
  if (v.retry_after_s)
    refuse("probe_quota_bytes",
           "over probes.post_bytes_per_minute (" + std::to_string(pc.post_bytes_per_minute) +
               " bytes a minute from this token and address)",
           v.retry_after_s);
  auto obs = validate_posted(text, deps_.topology ? deps_.topology().get() : nullptr);
  size_t n = obs.size();
  v = intake_.admit(source, n, 0, now);
  if (v.retry_after_s)
    refuse("probe_quota_records",
           "over probes.post_records_per_minute (" + std::to_string(pc.post_records_per_minute) +
               " observations a minute from this token and address)",
           v.retry_after_s);
  if (!deps_.probes->post(std::move(obs), pc.max_posted))
    refuse("probe_store_full",
           "probes.max_posted (" + std::to_string(pc.max_posted) +
               ") observations are waiting for the probe thread",
           5);
  log(LogLevel::info, "probe observations posted", {{"actor", actor}, {"observations", n}});
  return {{"accepted", n}};
}

}  // namespace ibw::daemon
