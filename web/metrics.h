// GET /metrics (and its alias /api/v1/metrics): Prometheus text exposition format 0.0.4,
// rendered from a snapshot (a pure function; the API gathers the snapshot from the backend and
// the store). Every family has its HELP and TYPE lines whenever its source is readable, even
// with no sample (e.g. no port disabled), so that a scrape lists every name rules may use.
//
// Every series carries the label fabric="NAME" (the fabric scraped: this instance's own, or
// ?fabric=NAME), first; the two per-fabric families below carry the fabric they describe.
// Metrics (all gauges):
//   ibwarden_up                                      1 while the API answers
//   ibwarden_rules_loaded                            enabled health rules loaded (0: none)
//   ibwarden_actions_enforce                         1 in enforce mode, 0 in dry-run
//   ibwarden_source_status{source,status}            1 for the source's current status, 0 for
//                                                    the others (status ok|degraded|down|
//                                                    disabled; disabled = not configured)
//   ibwarden_source_last_ok_timestamp_seconds{source}  last time the source produced data
//                                                    (absent while unknown)
//   ibwarden_guard_max_disabled_ports                the guard's cap actions.max_disabled_total
//   ibwarden_guard_max_disables_per_hour             the guard's cap actions.max_actions_per_hour
//   ibwarden_webhook_configured                      1 when workorders.webhook is set
//   ibwarden_store_checkpoints_total{where}          (counter) SQLite WAL checkpoints of this
//                                                    daemon's store since it was opened (start,
//                                                    reload): where=thread
//                                                    (its checkpoint thread) or in_commit (in
//                                                    a store write: the WAL reached its bound
//                                                    or the thread failed); 0 for PostgreSQL
//   ibwarden_store_checkpoint_failures_total         (counter) the thread's failed checkpoints
//   ibwarden_store_up                                1 when the store could be read; the
//                                                    store-derived metrics below are absent
//                                                    when it is 0
//   ibwarden_events_per_second                       stored events whose time is in the last
//                                                    60 s, divided by 60 (counting stops at
//                                                    100,000 events)
//   ibwarden_sweep_duration_seconds                  duration of the last counter sweep
//   ibwarden_last_sweep_timestamp_seconds            when it ended (NaN and 0 before one)
//   ibwarden_ports{state}                            ports by PortState (Down, Init, Armed,
//                                                    Active, ?)
//   ibwarden_links                                   distinct links with both ends known
//   ibwarden_ports_down                              down links (planned or with a known
//                                                    peer), not disabled by ibwarden
//   ibwarden_disabled_ports                          ports ibwarden disabled (what the guard
//                                                    counts against max_disabled_total)
//   ibwarden_disabled_port_since_timestamp_seconds{node,node_guid,port,cable}
//                                                    when ibwarden disabled it, per port
//   ibwarden_guard_disables_last_hour                disables in the last 3600 s, as the
//                                                    guard counts them (executed or pending)
//   ibwarden_port_actions_pending                    port actions (disable, enable) whose
//                                                    outcome is not recorded yet: in flight,
//                                                    or unknown until the port is read back
//   ibwarden_port_actions_pending_oldest_age_seconds age of the oldest of them (0: none)
//   ibwarden_webhook_outbox_pending_items            outbox items not delivered yet
//   ibwarden_webhook_outbox_failing_items            of those, the ones that failed at least once
//   ibwarden_webhook_outbox_failed_attempts          failed attempts of those, summed
//   ibwarden_webhook_outbox_oldest_pending_age_seconds  age of the oldest undelivered item
//                                                    (from its order's change time; 0: none)
//   ibwarden_workorders_open{severity}               open, in_progress and reopened orders
//                                                    (every severity, 0 included)
//   ibwarden_workorders_needs_human                  of those, the ones marked needs a human
//   ibwarden_cursed_route_suspects                   suspect links groups of the last
//                                                    localization (no sample when probing is
//                                                    off or nothing was localized yet)
//   ibwarden_probe_window_observations               route observations in the probe window
//   ibwarden_congestion_ports                        ports with a current congestion finding
//                                                    (rule type congestion: a signal, never
//                                                    an order or a disable)
//   ibwarden_congestion_findings_total               (counter) congestion findings since the
//                                                    daemon started (ports that became
//                                                    congested)
//   ibwarden_rule_findings                           report-only findings now (rule and port
//                                                    pairs: a rule with action none, or about
//                                                    PortXmitWait / PortXmitDiscards)
//   ibwarden_rule_findings_total                     (counter) such findings since the daemon
//                                                    started (a `finding` event each)
//   ibwarden_route_credit_loops                      credit loops in the last route check of
//                                                    the LFTs (after each LFT change)
//   ibwarden_route_unreachable_pairs                 LID pairs without a working route in it
//   ibwarden_route_balance_ratio                     max/min routes per switch-to-switch link
//                                                    (over the links that carry routes)
//   ibwarden_route_fallback                          1 when OpenSM fell back from its
//                                                    configured routing engine, else 0
//   ibwarden_route_checks_total                      (counter) route checks since the start
//                                                    (no route sample before the first check)
//   ibwarden_sm_watch_up                             1 while the SM watcher polls SMInfo (0: off
//                                                    or failing)
//   ibwarden_sm_master                               1 when a master SM answers, 0 when none
//                                                    (actions held); no sample with it off
//   ibwarden_sm_standby_count                        standby SMs answering SMInfo (the name
//                                                    issue 30 gave; promtool lints its _count)
//   ibwarden_sm_failovers_total                      (counter) SM failovers since the start
//   ibwarden_slurm_drains_total{status}             (counter) Slurm drains since start, by
//                                                    status done|failed|held|skipped|dry_run
//   ibwarden_slurm_resumes_total{status}            (counter) Slurm resumes, the same way
//   ibwarden_slurm_errors_total                      (counter) failed Slurm commands
//                                                    (these three only with slurm.enabled)
//   ibwarden_ha_leader{fabric}                       per fabric in the store: 1 when this
//                                                    instance holds its lease (own fabric
//                                                    without HA: 1), else 0
//   ibwarden_fabric_lease_expires_seconds{fabric,leader}  per fabric with a lease row: when
//                                                    the holder's lease expires (Unix seconds,
//                                                    the store server's clock)
// A scrape of another fabric (/metrics?fabric=NAME) leaves out the families about this
// daemon's own state: rules, enforce, sweeps, guard caps, webhook_configured, cursed routes,
// congestion, the subnet manager, the store's checkpoints.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "web/backend.h"

namespace ibw::web {

struct MetricsSnapshot {
  std::string fabric = "default";  // the fabric="..." label of every series
  // False for a scrape of another fabric (?fabric=): the families about this daemon's own
  // state (rules, enforce mode, sweeps, guard caps, webhook, cursed routes) are left out.
  bool live = true;
  Health health;
  bool store_up = false;
  // The rest is read from the store (ignored when !store_up).
  double events_per_second = 0;
  std::map<std::string, int64_t> ports_by_state;
  int64_t links = 0;
  int64_t ports_down = 0;
  int64_t disabled_ports = 0;
  std::map<std::string, int64_t> open_orders_by_severity;
  int64_t needs_human = 0;
  // Guard budget and outbox (from the store).
  int64_t disables_last_hour = 0;
  struct DisabledPortSince {
    std::string node;  // display name ("" when the port is no longer in the store)
    uint64_t node_guid = 0;
    int port = 0;
    std::string cable;  // cable ID from the plan ("" when unknown)
    int64_t since_us = 0;
  };
  std::vector<DisabledPortSince> disabled_since;
  // Port-action intents still pending (from the store; Slurm drains are not port actions).
  int64_t port_actions_pending = 0;
  double port_actions_oldest_age_seconds = 0;
  bool webhook = false;  // workorders.webhook configured (from the backend)
  int64_t outbox_pending = 0;
  int64_t outbox_failing = 0;
  int64_t outbox_failed_attempts = 0;
  double outbox_oldest_age_seconds = 0;
  // Cursed routes (from the backend; absent when probing is off).
  std::optional<int64_t> cursed_suspects;
  std::optional<int64_t> probe_observations;
  // Congestion findings (from the backend; absent in a scrape of another fabric).
  std::optional<int64_t> congestion_ports;
  std::optional<int64_t> congestion_findings_total;
  std::optional<int64_t> rule_findings;  // report-only findings of other rules
  std::optional<int64_t> rule_findings_total;
  // The last route check of the LFTs (from the backend; absent before the first check and in
  // a scrape of another fabric).
  struct RouteCheck {
    int64_t credit_loops = 0, unreachable_pairs = 0, checks_total = 0;
    double balance_ratio = 0;
    bool fallback = false;
  };
  std::optional<RouteCheck> route_check;
  // Every fabric in the store (labelled by its own name, not `fabric`'s).
  struct FabricLease {
    std::string name;
    std::optional<std::string> leader;  // lease holder; nullopt: no lease row
    int64_t expires_us = 0;
    bool leads = false;  // this instance holds the fabric's lease (own fabric, no HA: true)
  };
  std::vector<FabricLease> fabrics;
};

std::string render_metrics(const MetricsSnapshot& m);

// Label value escaping of the text format (backslash, double quote, newline), on valid UTF-8
// (invalid bytes become U+FFFD: one bad node description cannot break the scrape).
std::string escape_label(const std::string& value);

}  // namespace ibw::web
