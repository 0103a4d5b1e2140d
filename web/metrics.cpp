#include "web/metrics.h"
#include "web/metrics_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "core/utf8.h"

namespace ibw::web {
namespace metrics_detail {

std::string number(double v) {
  if (std::isnan(v)) return "NaN";  // the exposition format's spelling
  if (v > -1e15 && v < 1e15 && v == std::trunc(v)) return std::to_string(static_cast<int64_t>(v));
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string label(const char* name, const std::string& value) {
  return std::string(name) + "=\"" + escape_label(value) + "\"";
}

// The families about this daemon's own state (not in a scrape of another fabric).
void rules_families(Writer& w, const MetricsSnapshot& m) {
  w.gauge("ibwarden_rules_loaded",
          "Enabled health rules loaded (0 with no rules file: nothing is evaluated).",
          std::max(0, m.health.rules_loaded));
  w.gauge("ibwarden_actions_enforce", "1 when actions.mode is enforce, 0 in dry-run.",
          m.health.enforce ? 1 : 0);
}

// The subnet manager (SmBoard::json); no family when the backend gives none.
void sm_families(Writer& w, const MetricsSnapshot& m) {
  const auto& sm = m.health.subnet_manager;
  if (!sm.is_object()) return;
  bool on = sm.value("watch", "") == "on";
  bool polling = on && sm.value("status", "unknown") != "unknown";
  w.gauge("ibwarden_sm_watch_up",
          "1 while the SM watcher polls SMInfo; 0 when it is off (sm_watch) or failing: "
          "no-master is then not detected (off) or actions are held (failing).",
          polling ? 1 : 0);
  std::optional<int64_t> master;
  if (on) master = sm.value("status", "") == "master" ? 1 : 0;
  w.gauge("ibwarden_sm_master",
          "1 when a master subnet manager answers SMInfo, 0 when none does (automatic port "
          "actions are held); no sample with the watcher off.",
          master);
  std::optional<int64_t> standby;
  if (on && sm.contains("standby") && sm["standby"].is_array())
    standby = static_cast<int64_t>(sm["standby"].size());
  w.gauge("ibwarden_sm_standby_count",
          "Standby subnet managers answering SMInfo (named without _count, which Prometheus "
          "keeps for histograms and summaries).",
          standby);
  w.family("ibwarden_sm_failovers_total",
           "Subnet-manager failovers (a master with a new GUID) since the daemon started.",
           "counter");
  w.sample("ibwarden_sm_failovers_total", sm.value("failovers", 0.0));
}

// The running Slurm jobs the daemon knows (affected jobs); none unless slurm.enabled.
void slurm_job_families(Writer& w, const MetricsSnapshot& m) {
  const auto& s = m.health.slurm_jobs;
  if (!s.enabled) return;
  w.gauge("ibwarden_slurm_running_jobs",
          "Running Slurm jobs in the daemon's last squeue (after the cap); no sample before the "
          "first read.",
          s.running < 0 ? std::nullopt : std::optional<int64_t>(s.running));
  w.family("ibwarden_slurm_jobs_refresh_failures_total",
           "Reads of the running Slurm jobs (squeue) that failed since the daemon started.",
           "counter");
  w.sample("ibwarden_slurm_jobs_refresh_failures_total", static_cast<double>(s.refresh_failures));
  w.family("ibwarden_slurm_jobs_capped_total",
           "Running Slurm jobs dropped at the daemon's cap (100000 kept) since it started.",
           "counter");
  w.sample("ibwarden_slurm_jobs_capped_total", static_cast<double>(s.capped));
}

// Incidents by kind; every kind is listed (0 when none), so a dashboard's series never vanish.
void incident_families(Writer& w, const MetricsSnapshot& m) {
  static const char* kKinds[] = {"switch_reboot", "switch_down", "host_down", "sm_resweep",
                                 "hosts_unreachable"};
  auto at = [](const auto& map, const char* kind) {
    auto it = map.find(kind);
    return it == map.end() ? 0.0 : static_cast<double>(it->second);
  };
  w.family("ibwarden_incidents_active",
           "Incidents now active by kind: one cause (a rebooting switch, a host down, an SM "
           "re-sweep) behind a burst of link events.");
  for (const char* k : kKinds)
    w.sample("ibwarden_incidents_active", label("kind", k), at(m.health.incidents_active, k));
  w.family("ibwarden_incidents_opened_total", "Incidents opened since the daemon started, by kind.",
           "counter");
  for (const char* k : kKinds)
    w.sample("ibwarden_incidents_opened_total", label("kind", k), at(m.health.incidents_opened, k));
  w.family("ibwarden_incidents_dropped_total",
           "Resolved incidents dropped from memory at the cap (1024 kept) before a day passed.",
           "counter");
  w.sample("ibwarden_incidents_dropped_total", static_cast<double>(m.health.incidents_dropped));
}

// Inputs refused at a cap, by reason; every reason listed (0 when none).
void input_families(Writer& w, const MetricsSnapshot& m) {
  static const char* kReasons[] = {"probe_quota_records", "probe_quota_bytes", "probe_store_full",
                                   "posted_dropped",      "spool_not_regular", "spool_owner",
                                   "spool_too_big",       "spool_bad_lines"};
  w.family("ibwarden_input_refused_total",
           "Inputs refused at a cap since start, by reason: POSTed probe observations past the "
           "intake quota or a full queue, external observations dropped from a full window, "
           "spool files refused.",
           "counter");
  for (const char* r : kReasons) {
    auto it = m.health.input_refused.find(r);
    w.sample("ibwarden_input_refused_total", label("reason", r),
             it == m.health.input_refused.end() ? 0.0 : static_cast<double>(it->second));
  }
}

// The daemon's own store connection: SQLite's WAL checkpoints by where they ran, and the
// thread's failures (a failing thread puts every checkpoint back on the store write's path).
void checkpoint_families(Writer& w, const MetricsSnapshot& m) {
  const store::CheckpointStats& c = m.health.checkpoints;
  w.family("ibwarden_store_checkpoints_total",
           "SQLite WAL checkpoints since the store was opened (start or reload), by where "
           "they ran: the store's checkpoint thread, or in a commit (the WAL reached its "
           "bound, or the thread's last checkpoint failed), which the store write waits for. "
           "0 for PostgreSQL.",
           "counter");
  w.sample("ibwarden_store_checkpoints_total", label("where", "thread"),
           static_cast<double>(c.done));
  w.sample("ibwarden_store_checkpoints_total", label("where", "in_commit"),
           static_cast<double>(c.in_commit));
  w.family("ibwarden_store_checkpoint_failures_total",
           "Checkpoints the store's checkpoint thread could not run since the store was "
           "opened (/health says why while the last one failed).",
           "counter");
  w.sample("ibwarden_store_checkpoint_failures_total", static_cast<double>(c.failed));
}

// Slurm drains and resumes (daemon/slurm_worker.h): every status, 0 included.
void slurm_counts(Writer& w, const char* name, const char* help,
                  const std::map<std::string, uint64_t>& counts) {
  static const char* kStatuses[] = {"done", "failed", "held", "skipped", "dry_run"};
  w.family(name, help, "counter");
  for (const char* st : kStatuses) {
    auto it = counts.find(st);
    w.sample(name, label("status", st), it == counts.end() ? 0.0 : static_cast<double>(it->second));
  }
}

void slurm_families(Writer& w, const MetricsSnapshot& m) {
  if (!m.health.slurm) return;
  const auto& s = *m.health.slurm;
  slurm_counts(w, "ibwarden_slurm_drains_total",
               "Slurm node drains since start, by status (done, failed, held, skipped, dry_run).",
               s.drains);
  slurm_counts(w, "ibwarden_slurm_resumes_total",
               "Slurm node resumes since start, by status (done, failed, skipped, dry_run).",
               s.resumes);
  w.family("ibwarden_slurm_errors_total",
           "Slurm commands (scontrol) that failed since start; each is retried with backoff.",
           "counter");
  w.sample("ibwarden_slurm_errors_total", static_cast<double>(s.errors));
}

void source_families(Writer& w, const MetricsSnapshot& m) {
  w.family("ibwarden_source_status",
           "Health of each event source: 1 for its current status (ok, degraded, down, disabled).");
  for (const auto& s : m.health.sources)
    for (auto st :
         {SourceStatus::ok, SourceStatus::degraded, SourceStatus::down, SourceStatus::disabled})
      w.sample("ibwarden_source_status",
               label("source", s.name) + "," + label("status", std::string(source_status_name(st))),
               s.status == st ? 1 : 0);
  w.family("ibwarden_source_last_ok_timestamp_seconds",
           "Last time the source produced data or ran cleanly (Unix seconds).");
  for (const auto& s : m.health.sources)
    if (s.last_ok_us > 0)
      w.sample("ibwarden_source_last_ok_timestamp_seconds", label("source", s.name),
               static_cast<double>(s.last_ok_us) / 1e6);
}

void sweep_families(Writer& w, const MetricsSnapshot& m) {
  bool swept = m.health.sweep_seconds >= 0;
  w.gauge("ibwarden_sweep_duration_seconds",
          "Duration of the last counter sweep (NaN before the first one).",
          swept ? m.health.sweep_seconds : std::numeric_limits<double>::quiet_NaN());
  w.gauge("ibwarden_last_sweep_timestamp_seconds",
          "When the last counter sweep ended (0 before the first one).",
          swept ? static_cast<double>(m.health.sweep_time_us) / 1e6 : 0);

  if (m.health.max_disabled_total >= 0) {
    w.gauge("ibwarden_guard_max_disabled_ports",
            "The guard's cap on ports disabled by ibwarden at once (actions.max_disabled_total).",
            m.health.max_disabled_total);
  }
  if (m.health.max_actions_per_hour >= 0) {
    w.gauge("ibwarden_guard_max_disables_per_hour",
            "The guard's cap on disables in any hour (actions.max_actions_per_hour).",
            m.health.max_actions_per_hour);
  }
  w.gauge("ibwarden_webhook_configured",
          "1 when work orders are delivered to a webhook (workorders.webhook is set).",
          m.webhook ? 1 : 0);
}

void cursed_families(Writer& w, const MetricsSnapshot& m) {
  // Cursed routes: the family is always listed; its sample only once something was localized.
  w.gauge("ibwarden_cursed_route_suspects",
          "Suspect link groups of the last cursed-route localization (no sample when probing "
          "is off).",
          m.cursed_suspects);
  w.gauge("ibwarden_probe_window_observations",
          "Route observations in the probe window (no sample when probing is off).",
          m.probe_observations);
}

// Congestion and other report-only findings: a signal, not a fault (never an order or a
// disable).
void congestion_families(Writer& w, const MetricsSnapshot& m) {
  w.gauge("ibwarden_congestion_ports",
          "Ports with a current congestion finding (PortXmitWait share or PortXmitDiscards rate "
          "over a congestion rule's limit).",
          m.congestion_ports);
  w.family("ibwarden_congestion_findings_total",
           "Congestion findings since the daemon started (ports that became congested).",
           "counter");
  if (m.congestion_findings_total)
    w.sample("ibwarden_congestion_findings_total",
             static_cast<double>(*m.congestion_findings_total));
  w.gauge("ibwarden_rule_findings",
          "Report-only findings now (rule and port pairs: a rule with action none, or one about "
          "PortXmitWait or PortXmitDiscards).",
          m.rule_findings);
  w.family("ibwarden_rule_findings_total",
           "Report-only findings since the daemon started (a finding event each).", "counter");
  if (m.rule_findings_total)
    w.sample("ibwarden_rule_findings_total", static_cast<double>(*m.rule_findings_total));
}

// The last route check of the LFTs: the families always listed, samples after the first check.
void route_families(Writer& w, const MetricsSnapshot& m) {
  const auto& r = m.route_check;
  auto value = [&](auto field) -> std::optional<double> {
    if (!r) return std::nullopt;
    return static_cast<double>((*r).*field);
  };
  struct Family {
    const char* name;
    const char* help;
    std::optional<double> v;
    const char* type;
  };
  using RC = MetricsSnapshot::RouteCheck;
  for (const Family& f :
       {Family{"ibwarden_route_credit_loops",
               "Credit loops (cycles of the channel-dependency graph) in the last route check.",
               value(&RC::credit_loops), "gauge"},
        Family{"ibwarden_route_unreachable_pairs",
               "LID pairs without a working route in the last route check.",
               value(&RC::unreachable_pairs), "gauge"},
        Family{"ibwarden_route_balance_ratio",
               "Max/min routes per directed switch-to-switch link (links carrying routes).",
               value(&RC::balance_ratio), "gauge"},
        Family{"ibwarden_route_fallback",
               "1 when OpenSM fell back from its configured routing engine, else 0.",
               r ? std::optional<double>(r->fallback ? 1 : 0) : std::nullopt, "gauge"},
        Family{"ibwarden_route_checks_total", "Route checks since the daemon started.",
               value(&RC::checks_total), "counter"}}) {
    w.family(f.name, f.help, f.type);
    if (f.v) w.sample(f.name, *f.v);
  }
}

}  // namespace metrics_detail

std::string escape_label(const std::string& value) {
  std::string out;
  for (char c : core::valid_utf8(value)) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string render_metrics(const MetricsSnapshot& m) {
  using namespace metrics_detail;
  Writer w(label("fabric", m.fabric));
  w.gauge("ibwarden_up", "1 while the ibwarden web API answers.", 1);
  if (m.live)
    rules_families(w, m), incident_families(w, m), input_families(w, m), sm_families(w, m),
        slurm_families(w, m), slurm_job_families(w, m);
  source_families(w, m);
  if (m.live) sweep_families(w, m);
  w.gauge("ibwarden_store_up", "1 when the store could be read for this scrape.",
          m.store_up ? 1 : 0);
  if (m.live) checkpoint_families(w, m);
  if (m.live) cursed_families(w, m);
  if (m.live) congestion_families(w, m);
  if (m.live) route_families(w, m);
  fabric_families(w, m);
  if (m.store_up) store_families(w, m);
  return w.take();
}

}  // namespace ibw::web
