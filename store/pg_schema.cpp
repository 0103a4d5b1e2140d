#include "store/pg_schema.h"

#include <string>

#include "store/pg_migrate.h"
#include "store/schema_check.h"

namespace ibw::store::pg_schema {

namespace pg_schema_detail {

using Migration = store::Migration<pg_detail::Db>;

// Columns mirror the SQLite schema (store/schema.cpp); see that file for their meaning.
// Raw samples are a plain table (one row per reading): SQLite's packed stage/blocks are an
// optimization for one embedded file that this backend skips.
constexpr Migration kMigrations[] = {
    {1, "initial schema: events, samples, ports, cursors, remediation, leases", R"sql(
CREATE TABLE events (
  fabric TEXT NOT NULL,
  id BIGINT GENERATED ALWAYS AS IDENTITY,
  time_us BIGINT NOT NULL,
  source TEXT NOT NULL,
  kind TEXT NOT NULL,
  severity INTEGER NOT NULL,
  node_guid BIGINT NOT NULL,
  port INTEGER NOT NULL,
  lid INTEGER NOT NULL,
  trap_number INTEGER NOT NULL,
  message TEXT NOT NULL,
  node TEXT NOT NULL,
  peer_node TEXT NOT NULL,
  peer_port INTEGER NOT NULL,
  peer_guid BIGINT NOT NULL,
  cable_id TEXT NOT NULL,
  dedup_key TEXT,                        -- NULL when the source gives none
  PRIMARY KEY (fabric, id),
  UNIQUE (fabric, dedup_key)
);
CREATE INDEX events_time ON events (fabric, time_us);
CREATE INDEX events_port_time ON events (fabric, node_guid, port, time_us);

CREATE TABLE ports (
  fabric TEXT NOT NULL,
  node_guid BIGINT NOT NULL,
  port INTEGER NOT NULL,
  node TEXT NOT NULL,
  lid INTEGER NOT NULL,
  peer_guid BIGINT NOT NULL,
  peer_node TEXT NOT NULL,
  peer_port INTEGER NOT NULL,
  cable_id TEXT NOT NULL,
  state INTEGER NOT NULL,
  phys_state INTEGER NOT NULL,
  width INTEGER NOT NULL,
  speed TEXT NOT NULL,
  counters_time_us BIGINT NOT NULL,
  counters_node_guid BIGINT NOT NULL,
  counters_port INTEGER NOT NULL,
  counter_values BIGINT[] NOT NULL,
  counters_valid BIGINT NOT NULL,
  counters_saturated BIGINT NOT NULL,
  counters_extended BOOLEAN NOT NULL,
  rates DOUBLE PRECISION[] NOT NULL,
  rates_valid BIGINT NOT NULL,
  deltas BIGINT[] NOT NULL,
  deltas_valid BIGINT NOT NULL,
  deltas_at_least BIGINT NOT NULL,
  last_change_us BIGINT NOT NULL,
  PRIMARY KEY (fabric, node_guid, port)
);
CREATE INDEX ports_node ON ports (fabric, node);

CREATE TABLE samples (
  fabric TEXT NOT NULL,
  node_guid BIGINT NOT NULL,
  port INTEGER NOT NULL,
  time_us BIGINT NOT NULL,
  id BIGINT GENERATED ALWAYS AS IDENTITY, -- write order among equal times
  counter_values BIGINT[] NOT NULL,
  valid BIGINT NOT NULL,
  saturated BIGINT NOT NULL,
  extended BOOLEAN NOT NULL
);
CREATE INDEX samples_port_time ON samples (fabric, node_guid, port, time_us, id);
CREATE INDEX samples_time ON samples (fabric, time_us);

CREATE TABLE sample_aggregates (
  fabric TEXT NOT NULL,
  node_guid BIGINT NOT NULL,
  port INTEGER NOT NULL,
  bucket_us BIGINT NOT NULL,
  sample_count BIGINT NOT NULL,
  first_time_us BIGINT NOT NULL,
  last_time_us BIGINT NOT NULL,
  last_values BIGINT[] NOT NULL,
  last_valid BIGINT NOT NULL,
  last_saturated BIGINT NOT NULL,
  last_extended BOOLEAN NOT NULL,
  max_delta BIGINT[] NOT NULL,
  delta_valid BIGINT NOT NULL,
  PRIMARY KEY (fabric, node_guid, port, bucket_us)
);
CREATE INDEX sample_aggregates_bucket ON sample_aggregates (fabric, bucket_us);

CREATE TABLE cursors (
  fabric TEXT NOT NULL,
  source TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (fabric, source)
);

CREATE TABLE ufm_ports (
  fabric TEXT NOT NULL,
  node_guid BIGINT NOT NULL,
  port INTEGER NOT NULL,
  name TEXT NOT NULL,
  system_guid BIGINT NOT NULL,
  system_name TEXT NOT NULL,
  dname TEXT NOT NULL,
  logical_state TEXT NOT NULL,
  physical_state TEXT NOT NULL,
  speed TEXT NOT NULL,
  width TEXT NOT NULL,
  high_ber_severity TEXT NOT NULL,
  severity TEXT NOT NULL,
  peer_guid BIGINT NOT NULL,
  peer_port INTEGER NOT NULL,
  peer_node TEXT NOT NULL,
  peer_from TEXT NOT NULL,
  since_us BIGINT NOT NULL,
  PRIMARY KEY (fabric, node_guid, port)
);

CREATE TABLE decisions (
  fabric TEXT NOT NULL,
  id BIGINT GENERATED ALWAYS AS IDENTITY,
  time_us BIGINT NOT NULL,
  rule TEXT NOT NULL,
  node_guid BIGINT NOT NULL,
  node TEXT NOT NULL,
  port INTEGER NOT NULL,
  peer_guid BIGINT NOT NULL,
  peer_node TEXT NOT NULL,
  peer_port INTEGER NOT NULL,
  cable_id TEXT NOT NULL,
  action TEXT NOT NULL,
  status TEXT NOT NULL,
  reason TEXT NOT NULL,
  evidence TEXT NOT NULL,                -- JSON object
  link_key TEXT NOT NULL,
  dedup_key TEXT,                        -- NULL when the decision has none
  PRIMARY KEY (fabric, id),
  UNIQUE (fabric, dedup_key)
);
CREATE INDEX decisions_time ON decisions (fabric, time_us);
CREATE INDEX decisions_link ON decisions (fabric, link_key);
CREATE INDEX decisions_status ON decisions (fabric, status);

CREATE TABLE workorders (
  fabric TEXT NOT NULL,
  id BIGINT GENERATED ALWAYS AS IDENTITY,
  link_key TEXT NOT NULL,
  cable_id TEXT NOT NULL,
  a_guid BIGINT NOT NULL,
  a_node TEXT NOT NULL,
  a_port INTEGER NOT NULL,
  a_location TEXT NOT NULL,
  b_guid BIGINT NOT NULL,
  b_node TEXT NOT NULL,
  b_port INTEGER NOT NULL,
  b_location TEXT NOT NULL,
  status TEXT NOT NULL,
  rule TEXT NOT NULL,
  severity TEXT NOT NULL,
  summary TEXT NOT NULL,
  advice TEXT NOT NULL,
  needs_human BOOLEAN NOT NULL,
  port_disabled BOOLEAN NOT NULL,
  offences INTEGER NOT NULL,
  evidence TEXT NOT NULL,                -- JSON object
  assignee TEXT NOT NULL,
  note TEXT NOT NULL,
  opened_us BIGINT NOT NULL,
  updated_us BIGINT NOT NULL,
  resolved_us BIGINT NOT NULL,
  version BIGINT NOT NULL,
  PRIMARY KEY (fabric, id),
  UNIQUE (fabric, link_key)
);
CREATE INDEX workorders_status ON workorders (fabric, status);

CREATE TABLE outbox (
  fabric TEXT NOT NULL,
  id BIGINT GENERATED ALWAYS AS IDENTITY,
  workorder_id BIGINT NOT NULL,
  version BIGINT NOT NULL,
  idempotency_key TEXT NOT NULL,
  payload TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_attempt_us BIGINT NOT NULL,
  delivered_us BIGINT NOT NULL,
  last_error TEXT NOT NULL,
  PRIMARY KEY (fabric, id),
  UNIQUE (fabric, idempotency_key)
);
CREATE INDEX outbox_due ON outbox (fabric, delivered_us, next_attempt_us);

CREATE TABLE disabled_ports (
  fabric TEXT NOT NULL,
  node_guid BIGINT NOT NULL,
  port INTEGER NOT NULL,
  time_us BIGINT NOT NULL,
  decision_id BIGINT NOT NULL,
  link_key TEXT NOT NULL,
  PRIMARY KEY (fabric, node_guid, port)
);

-- Leader leases (Store::take_lease): one row per fabric, on the server's clock.
CREATE TABLE leases (
  fabric TEXT NOT NULL,
  holder TEXT NOT NULL,                  -- instance name ("" = never taken)
  epoch BIGINT NOT NULL,                 -- + 1 at every change of holder
  expires_us BIGINT NOT NULL,
  sources TEXT NOT NULL,                 -- the holder's source health, JSON array text
  holder_since_us BIGINT NOT NULL,       -- when the holder took it
  PRIMARY KEY (fabric)
);
)sql"},
    // Counter samples as packed chunks and a port's counter state as one bytea (binary,
    // HOT-updatable), because a sweep that wrote a row per sample and parsed three array
    // literals per port ran at a sixth of SQLite's speed (store/pg_samples.h,
    // sample_codec::encode_port_state). pg_migrate::to_v2 moves the data, then drops the old
    // table and columns.
    {2, "samples: packed chunks; ports: counter state as one bytea", R"sql(
CREATE TABLE sample_chunks (
  fabric TEXT NOT NULL,
  part INTEGER NOT NULL,                 -- pg_samples::part_of(node_guid, port)
  id BIGINT GENERATED ALWAYS AS IDENTITY, -- write order
  min_time_us BIGINT NOT NULL,           -- time range of the samples in data
  max_time_us BIGINT NOT NULL,
  data BYTEA NOT NULL,                   -- sample_codec chunk
  PRIMARY KEY (fabric, part, id)
);
CREATE INDEX sample_chunks_time ON sample_chunks (fabric, min_time_us);
ALTER TABLE sample_chunks ALTER COLUMN data SET STORAGE EXTERNAL; -- varints barely compress
ALTER TABLE ports ADD COLUMN counters BYTEA; -- sample_codec::encode_port_state
ALTER TABLE ports SET (fillfactor = 70);     -- room for HOT updates of the counter state
)sql",
     pg_migrate::to_v2},
    // The running Slurm jobs a work order's link carries (issue 33; NULL: not known).
    {3, "workorders: affected jobs", R"sql(
ALTER TABLE workorders ADD COLUMN IF NOT EXISTS affected TEXT; -- JSON {hosts, unmapped, nodes, jobs}
)sql"},
    // The counter state of ports packed per partition of ports (store/port_state.h) instead of
    // a bytea per `ports` row: a scrape of 393,216 ports updated every row (2.2-3.3 s).
    // pg_migrate::to_v4 moves ports.counters of every fabric, then drops the column.
    {4, "port_state: counter state of ports packed per partition", R"sql(
CREATE TABLE port_state (
  fabric TEXT NOT NULL,
  part INTEGER NOT NULL,                 -- port_state::part_of(node_guid, port)
  data BYTEA NOT NULL,                   -- its ports' counter state, sorted by GUID and port
  PRIMARY KEY (fabric, part)
);
ALTER TABLE port_state ALTER COLUMN data SET STORAGE EXTERNAL; -- varints barely compress
ALTER TABLE ports RESET (fillfactor);    -- rows now change only with the topology
)sql",
     pg_migrate::to_v4},
};

const char* kVersionTable = R"sql(
CREATE TABLE IF NOT EXISTS ibwarden_schema (
  version INTEGER PRIMARY KEY,
  description TEXT NOT NULL,
  applied_us BIGINT NOT NULL
))sql";

}  // namespace pg_schema_detail

int latest_version() {
  return last_version(pg_schema_detail::kMigrations);
}

int version(pg_detail::Db& db) {
  const pg_detail::Result r =
      db.exec("SELECT CASE WHEN to_regclass('ibwarden_schema') IS NULL THEN -1 ELSE 0 END");
  if (r.i64(0, 0) < 0) return 0;
  return static_cast<int>(
      db.exec("SELECT coalesce(max(version), 0) FROM ibwarden_schema").i64(0, 0));
}

void migrate(pg_detail::Db& db, int target) {
  using namespace pg_schema_detail;
  if (target <= 0) target = latest_version();
  // Cheap check first, without the lock: a current schema needs nothing.
  int v = version(db);
  check_schema_not_newer(db.server(), v, latest_version());
  if (v >= target) return;
  pg_detail::Transaction tx(db);
  db.exec("SELECT pg_advisory_xact_lock(" + std::to_string(kMigrationLock) + ")");
  db.exec(kVersionTable);
  v = version(db);  // another instance may have migrated while we waited
  check_schema_not_newer(db.server(), v, latest_version());
  for (const Migration& m : kMigrations) {
    if (m.version <= v || m.version > target) continue;
    try {
      db.exec(m.sql);
      if (m.convert) m.convert(db);
    } catch (const StoreError& e) {
      throw StoreError("store " + db.server() + ": migration " + std::to_string(m.version) + " (" +
                       m.description + ") failed: " + e.what());
    }
    db.exec(
        "INSERT INTO ibwarden_schema (version, description, applied_us) VALUES ($1, $2, "
        "(extract(epoch from clock_timestamp()) * 1e6)::bigint)",
        pg_detail::Params().i64(m.version).text(m.description));
  }
  tx.commit();
}

void check_read_only(pg_detail::Db& db) {
  using namespace pg_schema_detail;
  const int v = version(db);
  check_schema_not_newer(db.server(), v, latest_version());
  if (v == 0)
    throw StoreError("store " + db.server() +
                     ": not initialised (no ibwarden schema); the daemon creates it");
  check_schema_not_older(db.server(), v, latest_version());
}

}  // namespace ibw::store::pg_schema
