// ApiBackend: what the web API needs from the daemon, injected so that web/ depends on the
// store only (not on daemon/, actions/ or rules/). The daemon implements it; tests use a fake.
//
// Threading: every method may be called from several API worker threads at once, so an
// implementation must be thread-safe (the daemon's own state under its locks). The API calls
// them off the server's io thread, so a slow call (a port action waiting on SMP timeouts, a
// live audit) delays only its own request.
//
// Errors: a method may throw ApiError(status, message) to answer with that status, e.g. 503
// "no topology yet" or 404 "node not in the fabric"; any other exception becomes a 500.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/store.h"
#include "web/http.h"

namespace ibw::web {

enum class SourceStatus : uint8_t { ok, degraded, down, disabled };  // disabled: not configured
std::string_view source_status_name(SourceStatus s);  // "ok", "degraded", "down", "disabled"

struct SourceHealth {
  std::string name;  // "opensm", "counters", "ufm"
  SourceStatus status = SourceStatus::disabled;
  std::string detail;      // one line: why it is not ok ("" when ok)
  int64_t last_ok_us = 0;  // last time it produced data or ran cleanly; 0 unknown
};

struct Health {
  std::vector<SourceHealth> sources;
  int64_t started_us = 0;     // daemon start; 0 unknown
  double sweep_seconds = -1;  // duration of the last counter sweep; < 0 none yet
  int64_t sweep_time_us = 0;  // when that sweep ended
  // Rules: how many enabled rules are loaded (-1: no rules file, nothing evaluated), and
  // whether actions are enforced. Enforce with none loaded is degraded: nothing is acted on.
  int rules_loaded = -1;
  bool enforce = false;
  // The guard's budgets (config actions.max_disabled_total and actions.max_actions_per_hour),
  // for /metrics; < 0 unknown (not exported).
  int max_disabled_total = -1;
  int max_actions_per_hour = -1;
  // High availability: whether this instance holds its fabric's lease and acts (the holder
  // polls, probes and acts; a standby serves the web UI). True without HA.
  bool leader = true;
  // Incidents (rules/incidents.h) by kind: active now, opened since start; and resolved ones
  // dropped at the tracker's cap.
  std::map<std::string, int> incidents_active;
  std::map<std::string, uint64_t> incidents_opened;
  uint64_t incidents_dropped = 0;
  // Inputs refused at a cap since start, by reason (probe intake quota, full probe queue,
  // spool files refused; daemon/probe_intake.h): ibwarden_input_refused_total.
  std::map<std::string, uint64_t> input_refused;
  // Slurm drains and resumes by status, and Slurm command failures, since start
  // (daemon/slurm_worker.h); absent without slurm.enabled.
  struct Slurm {
    std::map<std::string, uint64_t> drains, resumes;
    uint64_t errors = 0;
  };
  std::optional<Slurm> slurm;
  // The subnet manager (daemon/sm_board.h SmBoard::json(): "watch", "status" master |
  // no_master | unknown, "master", "standby", "last_sweep", "failovers", ...); null when the
  // backend does not know.
  nlohmann::json subnet_manager;
  // The running Slurm jobs as the daemon last read them (slurm.jobs_refresh; daemon/job_board.h):
  // no samples unless enabled; running -1 before the first read.
  struct SlurmJobs {
    bool enabled = false;
    int64_t running = -1;
    uint64_t refresh_failures = 0;
    uint64_t capped = 0;  // jobs dropped at the cap
  } slurm_jobs;
  // This daemon's store connection: its WAL checkpoints (all zero for PostgreSQL).
  store::CheckpointStats checkpoints;
};

// Source health as the JSON array that GET /fabrics shows and a lease row carries
// (store::Lease::sources): [{"name", "status", "detail", "last_ok"}], last_ok ISO UTC ("" unknown,
// as /health). The daemon stores this text with each lease renewal so that other instances can show
// it.
std::string sources_json(const std::vector<SourceHealth>& sources);

enum class PortActionKind : uint8_t { disable, enable };

// POST /ports/{node}/{port}/disable|enable, validated: the port is in the store, the reason
// is not blank, force needs the admin role.
struct PortActionRequest {
  PortActionKind action = PortActionKind::disable;
  uint64_t node_guid = 0;
  std::string node;  // display name as stored
  int port = 0;
  std::string reason;
  bool force = false;
  std::string actor;  // "operator@tokens:3": who asked (record it with the reason)
};

// Thrown by a backend for a request past a quota: answered with the status (429) and a
// Retry-After header of retry_after_s seconds.
class RetryLater : public ApiError {
 public:
  RetryLater(const std::string& message, int64_t retry_after_s)
      : ApiError(429, message), retry_after_s_(retry_after_s) {}
  int64_t retry_after_s() const { return retry_after_s_; }

 private:
  int64_t retry_after_s_;
};

// ProbeBackend: the cursed-route part of the backend (the daemon's probe runner), apart so that
// ApiBackend stays small; ApiBackend::probes() gives it, or null when probing is off.
class ProbeBackend {
 public:
  virtual ~ProbeBackend() = default;
  // The last localization over the probe window: the `ibwarden localize --format json`
  // object ({"observations", "pairs", "suspects": [...]}) plus "time" (ISO UTC), "rounds"
  // (probe rounds in the window) and "posted" (observations from files and POSTs in it).
  // Before the first localization: no suspects, "time" null, "rounds" 0.
  virtual nlohmann::json suspects() = 0;
  // The route-health matrix of the probe window, leaf switches (switches with CAs) by leaf
  // switches, rows the sources: {"time", "rounds", "switches": [names], "guids": ["0x..."],
  // "sent": [[n]], "lost": [[n]], "loss": [[x | null]], "predicted"} (null: no probe between
  // the two); empty lists before the first localization.
  virtual nlohmann::json route_health() = 0;
  // POST /probes: external observations (JSONL or CSV with a header, as ingest/observation.h
  // reads them). Validates every line first; bad input throws fabric::InputError (nothing is
  // kept). Returns {"accepted": N}. actor: who posted them (logged); actor and peer (the
  // client's address) are the source the intake quota counts: past it, RetryLater (429).
  virtual nlohmann::json submit_probes(const std::string& text, const std::string& actor,
                                       const std::string& peer) = 0;
};

class ApiBackend {
 public:
  virtual ~ApiBackend() = default;

  // A new connection to the rows of one fabric of the daemon's store (store::Store::open with
  // the spec's fabric replaced; "" = this instance's own fabric). A fabric the store does not
  // hold throws ApiError(404, "no fabric NAME in the store"). Read-only connections are cached
  // by the API per fabric, one per concurrent request; writable ones serve PATCH /workorders
  // and are closed after the request.
  virtual std::unique_ptr<store::Store> open_store(const std::string& fabric, bool writable) = 0;

  // This instance's fabric (fabric.name): the default of ?fabric= and the one it watches.
  virtual std::string fabric() { return "default"; }
  // Every fabric in the store with its lease row (store::Store::fabrics of the own fabric's
  // store): one entry without a lease for SQLite; many, with leases, for PostgreSQL.
  virtual std::vector<store::FabricEntry> fabrics() { return open_store("", false)->fabrics(); }

  // Per-source health and the last sweep, for /health and /metrics.
  virtual Health health() = 0;

  // The manual path through the guard (actions::Remediator::manual in the daemon). Returns
  // the recorded decision (its id set); its status says what happened.
  virtual core::DecisionRecord port_action(const PortActionRequest& request) = 0;

  // The last cabling audit (the `ibwarden audit --format json` object, plus what the backend
  // adds, e.g. its time); nullopt when none has run.
  virtual std::optional<nlohmann::json> last_audit() = 0;
  // Runs an audit now and returns it (it becomes the last one).
  virtual nlohmann::json run_audit() = 0;

  // GET /incidents: the incidents still active or with an event at or after since_us, oldest
  // first, each as rules::incident_json shapes it ({"id", "kind", "node", "ports", "first",
  // "last", "events", "state", ...}). The default: none (a backend that tracks none).
  virtual nlohmann::json incidents(int64_t since_us) {
    (void)since_us;
    return nlohmann::json::array();
  }

  // True when work-order changes must also queue a webhook delivery (WriteBatch::outbox).
  virtual bool webhook_outbox() = 0;

  // Cursed routes: the daemon's probe runner, null when probing is off (the API then answers
  // 404 with kNoProbing).
  virtual ProbeBackend* probes() { return nullptr; }

  // Congestion findings (rules of type congestion: a signal, never an order or a disable):
  // {"ports": [{"node_guid": "0x...", "port", "rule", "severity", "wait_ratio" (0-1),
  // "lost_gbps", "discards_per_s", "since", "time", "explanation"}], "findings_total": N}.
  // The default: none.
  virtual nlohmann::json congestion() {
    return {{"ports", nlohmann::json::array()}, {"findings_total", 0}};
  }

  // The last route check of the LFTs (fabric/route_check_report.h's JSON plus "checked",
  // "time", "seconds", "checks_total"). The default: {"checked": false}.
  virtual nlohmann::json route_check() { return {{"checked", false}}; }

  static constexpr const char* kNoProbing =
      "probing is off: set probes.interval (or probes.spool_dir) in the configuration";
};

}  // namespace ibw::web
