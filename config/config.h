// The daemon configuration: one YAML file, validated strictly at load time. Every problem is
// reported at once as file:line: key.path: message, including unknown keys (with a
// "did you mean" hint), so a typo fails at startup and not at 3 a.m.
// Relative paths in the file are resolved against the file's own directory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/diagnostics.h"
#include "fabric/host_map.h"

namespace ibw::config {

struct FabricSection {
  std::string name = "fabric";
  std::optional<std::string> plan;  // cabling plan (CSV, YAML or NDT)
  std::optional<std::string> node_name_map;
  std::string discovery = "live";                // "live" or a path to ibnetdiscover output
  std::string ca;                                // umad CA; empty = first
  int ca_port = 0;                               // 0 = first active
  int64_t rediscover_interval_us = 600'000'000;  // safety-net re-discovery without traps
};

struct OpensmSection {
  std::string log = "/var/log/opensm.log";
  std::string dump_dir = "/var/log";
  int utc_offset_s = 0;                   // zone the log's timestamps are in, as a fixed offset
  int64_t poll_us = 200'000;              // how often the log is checked for new lines
  int64_t rediscover_delay_us = 300'000;  // debounce between a trap and re-discovery
  bool read_existing = false;             // with no saved position, read lines already in the log
};

struct CountersSection {
  bool enabled = true;
  int64_t interval_us = 60'000'000;
  unsigned window = 64;  // MADs in flight
  unsigned timeout_ms = 200;
  unsigned retries = 2;
  uint64_t jump_threshold = 100;  // error-counter delta in one sweep that is an event
  // Data/packet counters (rates) are read in a full sweep at most this often; the sweeps in
  // between read error counters only (switch AllPortSelect sums, per port where one moved).
  int64_t data_interval_us = 60'000'000;
};

// Active probes (ingest/prober.h, `ibwarden probe`): SMPs sent from the local port to every
// LID and through every link, to find lossy links and "cursed routes".
struct ProbesSection {
  std::optional<int64_t> interval_us;  // round period in the daemon; none = off (the default)
  unsigned count = 10;                 // MADs per target per round
  unsigned timeout_ms = 50;            // per MAD; probes are never retried
  unsigned max_in_flight = 16;         // outstanding MADs
  unsigned max_rate = 2000;            // MADs per second (token bucket)
  unsigned window = 10;                // rounds kept for the localizer
  // External observations (JSONL/CSV files) dropped here are ingested by the daemon, then moved
  // to done/ or failed/ (ingest/probe_spool.h); none = no spool.
  std::optional<std::string> spool_dir;
  size_t spool_max_bytes = size_t{4} << 20;  // a bigger spool file is refused unread
  // POST /api/v1/probes per source (token and address) and minute; past either: 429.
  uint64_t post_records_per_minute = 50'000;
  uint64_t post_bytes_per_minute = uint64_t{8} << 20;
  // External observations (spool files and POSTs) held in the window; the oldest go first.
  size_t max_posted = 200'000;
  // How the fabric routes data traffic: "adaptive" (default) or "static" (LFT only). The
  // prober's own LID-routed SMPs travel on VL15, which follows the LFT, and are always
  // written as routing static.
  std::string routes = "adaptive";
};

// The subnet-manager watcher (daemon/sources/sm_watch.cpp): SMInfo of the master and standby
// SMs over SMPs every `interval`. While there is no master, automatic port actions are held.
struct SmWatchSection {
  // "auto" (default): on when the daemon reaches MADs (fabric.discovery live); "true", "false".
  std::string enabled = "auto";
  int64_t interval_us = 1'000'000;
  unsigned timeout_ms = 200;       // per SMInfo/PortInfo MAD
  unsigned retries = 1;            // extra tries of an unanswered MAD
  int fail_polls = 2;              // polls without a master before "no master"
  int64_t freeze_us = 30'000'000;  // a master whose ActCount does not move this long is hung
  int64_t rescan_us = 30'000'000;  // how often CA ports are asked for the IsSM bit (standbys)
  bool on(const std::string& discovery) const {
    return enabled == "true" || (enabled == "auto" && discovery == "live");
  }
};

struct StoreSection {
  std::string backend = "sqlite";  // sqlite (embedded, one host) | postgres (many fabrics, HA)
  std::string path = "/var/lib/ibwarden/ibwarden.db";  // sqlite only
  // postgres only: a libpq connection string (postgresql://user@host/db or "host=... dbname=...")
  // without a password; the password comes from password_file or password_env (not both).
  std::string url;
  std::optional<std::string> password_file;
  std::string password_env;
  int64_t raw_window_us = 24LL * 3600 * 1'000'000;
  int64_t aggregate_window_us = 30LL * 24 * 3600 * 1'000'000;
  int64_t event_window_us = 90LL * 24 * 3600 * 1'000'000;
};

struct RulesSection {
  // The rule file. With no `rules:` section: rules.yaml beside the config file (defaulted);
  // only an explicit `rules: null` (or `file: null`) means none, and no rules are evaluated.
  std::optional<std::string> file;
  bool defaulted = false;
};
struct Config;
// For `run` and `check-config`: throws fabric::InputError (the config file, field rules.file)
// when rules.file is the default and does not exist: a config without a rules: section must
// not start a daemon that silently evaluates nothing.
void require_default_rules(const Config& c);

// Remediation: what the guard allows (actions/guard.h).
struct ActionsSection {
  std::string mode = "dry-run";  // dry-run | enforce
  std::string via = "smp";       // smp | ufm (needs a ufm section)
  int max_disabled_total = 16;
  int max_disabled_per_switch = 2;
  int max_actions_per_hour = 8;
  int min_up_links = 2;
  int64_t timeout_us = 10'000'000;  // one port action (SMP set + read-back)
};

struct WorkordersSection {
  std::optional<std::string> webhook;              // URL (http:// or https://); none = no delivery
  std::string webhook_secret_env;                  // env variable holding the bearer secret
  std::optional<std::string> webhook_secret_file;  // or a file holding it
  int64_t webhook_timeout_us = 5'000'000;
  int64_t verify_after_us = 24LL * 3600 * 1'000'000;  // clean this long after repair: verified
  bool allow_insecure_url = false;  // user:pass@ or a secret over plain http:// on purpose
};

// UFM integration (ingest/ufm/*.h, daemon/sources/ufm.h). The whole section is optional: absent
// or null means no UFM. Credentials are not here: only the names of the variables or files
// holding them, read when the daemon starts (daemon/ufm_setup.h).
struct UfmTelemetrySection {
  std::optional<std::string> primary;    // UFM Telemetry URL (CSV or Prometheus); none = off
  std::optional<std::string> secondary;  // fetched when the primary fails
};

struct UfmSection {
  std::string url;                            // http(s)://host[:port][/path]
  std::string api = "v3";                     // v1 (/ufmRest basic) | v2 (session) | v3 (token)
  std::string user_env = "UFM_USER";          // v1, v2 (v3 without token_file): user name
  std::string password_env = "UFM_PASSWORD";  // v1, v2 (v3 without token_file): password
  std::optional<std::string> token_file;      // v3: the access token; none: fetched (D-TK)
  std::optional<std::string> ca_file;         // PEM bundle; none = the system's
  bool verify_tls = true;
  bool allow_insecure_url = false;  // credentials over plain http:// to another host on purpose
  int64_t poll_interval_us = 10'000'000;  // GET /app/events period
  int utc_offset_s = 0;                   // zone of UFM's timestamps (they carry none)
  UfmTelemetrySection telemetry;
  std::optional<std::string> event_log;  // UFM's event.log, tailed like the OpenSM log; none = not
};

// The on-call web API (web/): runs when the section is present.
struct WebSection {
  bool enabled = false;  // the `web:` section is present
  std::string listen = "127.0.0.1:8080";
  std::optional<std::string> tokens_file;  // "ROLE TOKEN" per line; none = read-only viewers
  bool read_only = false;
  // HTTPS (web/tls.h): both or neither. The files are checked when the daemon prepares its
  // runtime and by check-config; the lines point their errors into this file.
  std::optional<std::string> tls_cert;  // PEM certificate chain, the server's first
  std::optional<std::string> tls_key;   // PEM private key, unencrypted, mode 0600
  int tls_cert_line = 0;
  int tls_key_line = 0;
  // Connection guards (web/server.h): caps, timeouts, and the access log.
  int max_connections = 256;               // in total (beyond: the idle one goes, or a reserve)
  int max_connections_per_address = 16;    // from one client address
  int max_streams = 64;                    // event streams in total
  int max_streams_per_token = 8;           // event streams of one token (one address without)
  unsigned request_timeout_ms = 10'000;    // a whole request from its first byte
  unsigned keepalive_timeout_ms = 60'000;  // a kept-alive connection waiting for the next one
  bool access_log = true;  // one info line per request (changes are logged either way)
};

// Leader leases (store.backend postgres only): several daemons may watch one fabric; the one
// holding the fabric's lease polls, probes and acts, the others stand by (daemon/lease.h).
struct HaSection {
  bool enabled = false;           // the `ha:` section is present
  int64_t lease_us = 15'000'000;  // a lease not renewed for this long may be taken over
  int64_t renew_us = 5'000'000;   // the holder renews (and standbys try) this often
  std::string instance;           // this daemon's name in the lease; default host:config
  int line = 0;                   // of the ha: section (errors point at it)
};

// Slurm drain and resume (issue 33, actions/slurm_client.h, docs/slurm.md): off by default.
// Slurm is reached through its commands (scontrol, squeue); slurmrestd is not supported yet
// (a rest_url key is rejected saying so).
struct SlurmSection {
  bool enabled = false;
  std::string scontrol = "scontrol";  // a bare name is looked up in PATH; a path is resolved
  std::string squeue = "squeue";
  bool drain = true;                       // drain the node of a host ibwarden cut off or degraded
  bool resume = true;                      // resume it once whole again (only nodes it drained)
  std::string reason_prefix = "ibwarden";  // the drain reason: "<prefix>: WO-<id> <port> ..."
  std::optional<std::string> node_map;     // CA -> Slurm node map file (fabric/host_map.h)
  int node_map_line = 0;                   // of slurm.node_map (errors point at it)
  int64_t clean_window_us = 30LL * 60 * 1'000'000;  // a link clean this long: resume its node
  int max_drains_per_hour = 8;                      // a guard-like cap; past it drains are held
  int64_t timeout_us = 10'000'000;                  // per Slurm command
  // How often the daemon reads the running jobs (one squeue) for the affected jobs of its work
  // orders, incidents and decisions (actions/affected_jobs.h).
  int64_t jobs_refresh_us = 30'000'000;
};
// The map file of slurm.node_map when the section is enabled and names one (an empty map
// otherwise); throws fabric::InputError with the map's own file:line errors, or naming
// slurm.node_map in the config when the file cannot be read. For `run` and `check-config`.
fabric::HostMapFile load_slurm_node_map(const Config& c);

struct LogSection {
  std::string level = "info";  // debug | info | warning | error
};

struct Config {
  std::string file;  // where it was loaded from
  FabricSection fabric;
  OpensmSection opensm;
  CountersSection counters;
  ProbesSection probes;
  SmWatchSection sm_watch;
  StoreSection store;
  HaSection ha;
  RulesSection rules;
  ActionsSection actions;
  WorkordersSection workorders;
  std::optional<UfmSection> ufm;  // none = no UFM
  WebSection web;
  SlurmSection slurm;
  LogSection log;
  // Found by parse_config, not errors of the file (config/security_checks.cpp): `insecure`
  // (credentials in a URL, secrets over plain http:// to another host, unless the section's
  // allow_insecure_url) makes check-config fail and the daemon warn; `warnings` (a web API
  // reachable from other hosts without tokens or TLS) are printed by both.
  std::vector<fabric::Diagnostic> insecure;
  std::vector<fabric::Diagnostic> warnings;
};

// Loads and validates; throws fabric::InputError with every diagnostic.
Config load_config(const std::string& path);
Config parse_config(std::string_view text, const std::string& file);

// "500ms", "1s", "12m", "1h", "2d" -> microseconds; nullopt when malformed or not positive.
std::optional<int64_t> parse_duration(std::string_view text);
// "+02:00", "-0530", "UTC", "Z" -> seconds east of UTC.
std::optional<int> parse_utc_offset(std::string_view text);

}  // namespace ibw::config
