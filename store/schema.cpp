#include "store/schema.h"

#include <string>

#include "store/port_state.h"
#include "store/sample_tables.h"
#include "store/schema_check.h"

namespace ibw::store::schema {

namespace schema_detail {

using Migration = store::Migration<sqlite_detail::Db>;

// Migration 4: the rows of `samples` move into the stage, then the table goes.
void samples_to_stage(sqlite_detail::Db& db) {
  sample_tables::convert_legacy(db);
  db.exec("DROP TABLE samples");
}

// Migration 5: workorders.affected (the running Slurm jobs of the order's link; NULL: not
// known). Added only when missing: a file set back to an older user_version keeps its columns.
void add_affected(sqlite_detail::Db& db) {
  if (db.scalar_int(
          "SELECT count(*) FROM pragma_table_info('workorders') WHERE name = 'affected'") == 0)
    db.exec("ALTER TABLE workorders ADD COLUMN affected TEXT");
}

// Conventions for every table:
// - GUIDs and 64-bit counters are INTEGER holding the uint64 bit pattern (may read negative
//   in the sqlite3 shell; exact both ways).
// - Counter arrays are JSON arrays in ingest::Counter order (see counter_json.h), except the
//   hot-path packed blobs (samples since migration 4, port counter state since 6); masks
//   (valid, saturated, rates_valid, delta_valid) are INTEGER bit sets, bit i = counter i.
// - Times are UTC microseconds.
constexpr Migration kMigrations[] = {
    {1, "initial schema", R"sql(
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so after_id paging stays valid
  time_us INTEGER NOT NULL,
  source TEXT NOT NULL,                  -- "opensm", "counters", "ufm"
  kind TEXT NOT NULL,
  severity INTEGER NOT NULL,             -- 0 info, 1 warning, 2 error, 3 critical
  node_guid INTEGER NOT NULL,
  port INTEGER NOT NULL,
  lid INTEGER NOT NULL,
  trap_number INTEGER NOT NULL,
  message TEXT NOT NULL,
  node TEXT NOT NULL,
  peer_node TEXT NOT NULL,
  peer_port INTEGER NOT NULL,
  peer_guid INTEGER NOT NULL,
  cable_id TEXT NOT NULL,
  dedup_key TEXT UNIQUE                  -- NULL when the source gives none
);
CREATE INDEX events_time ON events (time_us);
CREATE INDEX events_port_time ON events (node_guid, port, time_us);

CREATE TABLE ports (
  node_guid INTEGER NOT NULL,
  port INTEGER NOT NULL,
  node TEXT NOT NULL,
  lid INTEGER NOT NULL,
  peer_guid INTEGER NOT NULL,
  peer_node TEXT NOT NULL,
  peer_port INTEGER NOT NULL,
  cable_id TEXT NOT NULL,
  state INTEGER NOT NULL,
  phys_state INTEGER NOT NULL,
  width INTEGER NOT NULL,
  speed TEXT NOT NULL,
  counters_time_us INTEGER NOT NULL,     -- the last CounterSample, field by field
  counters_node_guid INTEGER NOT NULL,
  counters_port INTEGER NOT NULL,
  counter_values TEXT NOT NULL,
  counters_valid INTEGER NOT NULL,
  counters_saturated INTEGER NOT NULL,
  counters_extended INTEGER NOT NULL,
  rates TEXT NOT NULL,                   -- per second, JSON array of doubles
  rates_valid INTEGER NOT NULL,
  deltas TEXT NOT NULL,                  -- over the last interval, JSON array of uint64
  deltas_valid INTEGER NOT NULL,
  deltas_at_least INTEGER NOT NULL,
  last_change_us INTEGER NOT NULL,
  PRIMARY KEY (node_guid, port)
);
CREATE INDEX ports_node ON ports (node);

CREATE TABLE samples (
  node_guid INTEGER NOT NULL,
  port INTEGER NOT NULL,
  time_us INTEGER NOT NULL,
  counter_values TEXT NOT NULL,
  valid INTEGER NOT NULL,
  saturated INTEGER NOT NULL,
  extended INTEGER NOT NULL
);
CREATE INDEX samples_port_time ON samples (node_guid, port, time_us);
CREATE INDEX samples_time ON samples (time_us);

CREATE TABLE sample_aggregates (
  node_guid INTEGER NOT NULL,
  port INTEGER NOT NULL,
  bucket_us INTEGER NOT NULL,            -- start of the UTC hour
  sample_count INTEGER NOT NULL,
  first_time_us INTEGER NOT NULL,
  last_time_us INTEGER NOT NULL,         -- the hour's last raw sample, field by field
  last_values TEXT NOT NULL,
  last_valid INTEGER NOT NULL,
  last_saturated INTEGER NOT NULL,
  last_extended INTEGER NOT NULL,
  max_delta TEXT NOT NULL,               -- largest increase between consecutive samples
  delta_valid INTEGER NOT NULL,
  PRIMARY KEY (node_guid, port, bucket_us)
) WITHOUT ROWID;
CREATE INDEX sample_aggregates_bucket ON sample_aggregates (bucket_us);

CREATE TABLE cursors (
  source TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
) WITHOUT ROWID;
)sql"},
    // Remediation (core/remedy_records.h). Texts are NOT NULL ("" when unknown) except dedup_key.
    {2, "remediation: decisions, work orders, webhook outbox, disabled ports", R"sql(
CREATE TABLE decisions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time_us INTEGER NOT NULL,
  rule TEXT NOT NULL,                    -- rule name; "manual" for the CLI/API path
  node_guid INTEGER NOT NULL,
  node TEXT NOT NULL,
  port INTEGER NOT NULL,
  peer_guid INTEGER NOT NULL,
  peer_node TEXT NOT NULL,
  peer_port INTEGER NOT NULL,
  cable_id TEXT NOT NULL,
  action TEXT NOT NULL,                  -- disable | enable | work_order | none
  status TEXT NOT NULL,                  -- executed | dry_run | refused | failed
  reason TEXT NOT NULL,
  evidence TEXT NOT NULL,                -- JSON object
  link_key TEXT NOT NULL,                -- "" when not about one link
  dedup_key TEXT UNIQUE                  -- NULL when the decision has none
);
CREATE INDEX decisions_time ON decisions (time_us);
CREATE INDEX decisions_link ON decisions (link_key);

CREATE TABLE workorders (
  id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: webhook receivers key on it
  link_key TEXT UNIQUE NOT NULL,         -- one order per link, across its whole life
  cable_id TEXT NOT NULL,
  a_guid INTEGER NOT NULL,
  a_node TEXT NOT NULL,
  a_port INTEGER NOT NULL,
  a_location TEXT NOT NULL,
  b_guid INTEGER NOT NULL,               -- 0 when the peer is unknown
  b_node TEXT NOT NULL,
  b_port INTEGER NOT NULL,
  b_location TEXT NOT NULL,
  status TEXT NOT NULL,                  -- open | in_progress | resolved | verified | reopened
  rule TEXT NOT NULL,
  severity TEXT NOT NULL,
  summary TEXT NOT NULL,
  advice TEXT NOT NULL,
  needs_human INTEGER NOT NULL,          -- 0 or 1
  port_disabled INTEGER NOT NULL,        -- 0 or 1
  offences INTEGER NOT NULL,
  evidence TEXT NOT NULL,                -- JSON object
  assignee TEXT NOT NULL,
  note TEXT NOT NULL,
  opened_us INTEGER NOT NULL,
  updated_us INTEGER NOT NULL,
  resolved_us INTEGER NOT NULL,          -- 0 unless resolved or verified
  version INTEGER NOT NULL               -- 1 on insert, + 1 on every change
);
CREATE INDEX workorders_status ON workorders (status);

CREATE TABLE outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workorder_id INTEGER NOT NULL,         -- workorders.id
  version INTEGER NOT NULL,              -- the order's version this item carries
  idempotency_key TEXT UNIQUE NOT NULL,  -- "<workorder_id>-v<version>"
  payload TEXT NOT NULL,                 -- the order's JSON at that version
  attempts INTEGER NOT NULL,
  next_attempt_us INTEGER NOT NULL,      -- 0 = at once
  delivered_us INTEGER NOT NULL,         -- 0 = pending
  last_error TEXT NOT NULL
);
CREATE INDEX outbox_due ON outbox (delivered_us, next_attempt_us);

CREATE TABLE disabled_ports (
  node_guid INTEGER NOT NULL,
  port INTEGER NOT NULL,
  time_us INTEGER NOT NULL,              -- when ibwarden disabled it
  decision_id INTEGER NOT NULL,          -- decisions.id of the disable
  link_key TEXT NOT NULL,
  PRIMARY KEY (node_guid, port)
) WITHOUT ROWID;
)sql"},
    // UFM's view of each port (ingest/ufm/port_state.h), from GET /resources/ports and
    // /resources/links; keyed like ports, joined to it by ports(). Texts are as UFM writes
    // them ("" when absent).
    {3, "ufm_ports: UFM's view of each port", R"sql(
CREATE TABLE ufm_ports (
  node_guid INTEGER NOT NULL,
  port INTEGER NOT NULL,
  name TEXT NOT NULL,                    -- UFM's port name "<guid>_<num>"
  system_guid INTEGER NOT NULL,
  system_name TEXT NOT NULL,
  dname TEXT NOT NULL,                   -- UFM's label ("1/17/1" or the number)
  logical_state TEXT NOT NULL,           -- Active, Down, Init, Armed
  physical_state TEXT NOT NULL,          -- "Link Up", Polling, Disabled, ...
  speed TEXT NOT NULL,                   -- active; "" when down
  width TEXT NOT NULL,                   -- active ("4x"); "" when down
  high_ber_severity TEXT NOT NULL,       -- "" (UFM's N/A), warning, error
  severity TEXT NOT NULL,
  peer_guid INTEGER NOT NULL,            -- 0 when UFM knows no peer
  peer_port INTEGER NOT NULL,
  peer_node TEXT NOT NULL,
  peer_from TEXT NOT NULL,               -- links | ports | ""
  since_us INTEGER NOT NULL,             -- when ibwarden first saw the port as it is now
  PRIMARY KEY (node_guid, port)
) WITHOUT ROWID;
)sql"},
    // Raw counter samples as packed blobs instead of one row per reading (store/sample_tables.h,
    // store/sample_codec.h): a day of 200,000 ports read every minute is 288 million readings.
    // The rows of `samples` are moved into the stage by samples_to_stage().
    {4, "samples: packed stage, runs and per-port blocks", R"sql(
CREATE TABLE sample_stage (
  id INTEGER PRIMARY KEY,                -- write order
  part INTEGER NOT NULL,                 -- partition of the ports (sample_tables::part_of)
  first_time_us INTEGER NOT NULL,        -- time range of the samples in data
  last_time_us INTEGER NOT NULL,
  count INTEGER NOT NULL,
  data BLOB NOT NULL                     -- sample_codec chunk: full values
);
CREATE INDEX sample_stage_part ON sample_stage (part, id);

CREATE TABLE sample_runs (
  run INTEGER PRIMARY KEY,               -- one per transposition of the stage
  first_time_us INTEGER NOT NULL,
  last_time_us INTEGER NOT NULL,
  times BLOB NOT NULL                    -- times shared by the run's blocks (may be empty)
);

CREATE TABLE sample_blocks (
  run INTEGER NOT NULL,
  part INTEGER NOT NULL,
  node_guid INTEGER NOT NULL,
  port INTEGER NOT NULL,
  data BLOB NOT NULL,                    -- sample_codec block: the port's samples of the run
  PRIMARY KEY (run, part, node_guid, port)
) WITHOUT ROWID;
)sql",
     samples_to_stage},
    // The running Slurm jobs a work order's link carries (issue 33; NULL: not known).
    {5, "workorders: affected jobs", "", add_affected},
    // The counter state of ports packed per partition of ports (store/port_state.h) instead of
    // twelve columns of every `ports` row: a scrape of 393,216 ports rewrote them all (2.2-3.3 s).
    // port_state::convert_legacy moves the columns' data, then drops them.
    {6, "port_state: counter state of ports packed per partition", R"sql(
CREATE TABLE port_state (
  part INTEGER PRIMARY KEY,              -- partition of the ports (sample_tables::part_of)
  data BLOB NOT NULL                     -- its ports' counter state, sorted by GUID and port
);
)sql",
     port_state::convert_legacy},
    // {7, "...", R"sql(ALTER TABLE ...)sql"},
};

int32_t application_id(sqlite_detail::Db& db) {
  return static_cast<int32_t>(db.scalar_int("PRAGMA application_id"));
}

// A version-0 file with tables of its own is someone else's database: do not add ours.
void check_ours(sqlite_detail::Db& db, int version) {
  const int32_t app = application_id(db);
  if (app != 0 && app != kApplicationId)
    throw StoreError("store " + db.path() + ": not an ibwarden store (application_id " +
                     std::to_string(app) + ")");
  if (version == 0 && app == 0 &&
      db.scalar_int("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'") > 0)
    throw StoreError("store " + db.path() +
                     ": not an ibwarden store (an SQLite database with other tables)");
}

}  // namespace schema_detail

int latest_version() {
  return last_version(schema_detail::kMigrations);
}

void migrate(sqlite_detail::Db& db) {
  using namespace schema_detail;
  // Cheap check first, outside any transaction: an up-to-date file needs no write lock.
  int version = static_cast<int>(db.scalar_int("PRAGMA user_version"));
  check_schema_not_newer(db.path(), version, latest_version());
  if (version == latest_version()) {
    check_ours(db, version);
    return;
  }
  sqlite_detail::Transaction tx(db);
  // Read again under the lock: another process may have migrated it meanwhile.
  version = static_cast<int>(db.scalar_int("PRAGMA user_version"));
  check_schema_not_newer(db.path(), version, latest_version());
  check_ours(db, version);
  for (const Migration& m : kMigrations) {
    if (m.version <= version) continue;
    try {
      db.exec(m.sql);
      if (m.convert) m.convert(db);
    } catch (const StoreError& e) {
      throw StoreError("store " + db.path() + ": migration " + std::to_string(m.version) + " (" +
                       m.description + ") failed: " + e.what());
    }
    db.exec("PRAGMA user_version = " + std::to_string(m.version));
  }
  if (application_id(db) == 0) db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  tx.commit();
}

void check_read_only(sqlite_detail::Db& db) {
  using namespace schema_detail;
  const int version = static_cast<int>(db.scalar_int("PRAGMA user_version"));
  check_schema_not_newer(db.path(), version, latest_version());
  check_ours(db, version);
  if (version == 0)
    throw StoreError("store " + db.path() +
                     ": not initialised (schema version 0); the daemon creates it");
  check_schema_not_older(db.path(), version, latest_version());
}

}  // namespace ibw::store::schema
