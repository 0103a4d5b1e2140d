// Schema of the PostgreSQL store (store/pg_store.h): numbered migrations recorded in the table
// ibwarden_schema (one row per applied migration), used only inside store/.
//
// migrate() runs every missing migration in one transaction that first takes
// pg_advisory_xact_lock(kMigrationLock), so instances starting together migrate once (the
// others wait, then find the schema current). A database whose schema is newer than this
// build is refused, untouched. Read-only opens never migrate: check_read_only() refuses a
// missing, older or newer schema.
//
// Conventions for every table (one database holds many fabrics):
// - `fabric TEXT NOT NULL` is the first column of the table and of every primary key, unique
//   constraint and index; a store reads and writes only its fabric's rows.
// - GUIDs and 64-bit counters are BIGINT holding the uint64 bit pattern (exact both ways).
// - Counter arrays are BIGINT[] (values, as bit patterns), in ingest::Counter order; masks are
//   BIGINT bit sets, bit i = counter i. Hot-path counter data is packed bytea instead: raw
//   samples in sample_chunks (since migration 2, store/pg_samples.h) and the counter state of
//   ports per partition in port_state (since migration 4, store/port_state.h).
// - Ids are identity columns (never reused, so after_id paging stays valid); times are UTC
//   microseconds (BIGINT).
#pragma once

#include <cstdint>

#include "store/pg_db.h"

namespace ibw::store::pg_schema {

// Key of the advisory lock that serializes migrations (and nothing else).
inline constexpr int64_t kMigrationLock = 0x6962770000000001;  // "ibw" .. 1

int latest_version();
// The schema version of the database (0 = no ibwarden tables).
int version(pg_detail::Db& db);
// Creates or upgrades the schema (to `target`, default the latest: tests build older schemas
// with a lower one). Throws StoreError naming the server.
void migrate(pg_detail::Db& db, int target = 0);
// For read-only opens: throws unless the schema is exactly this build's.
void check_read_only(pg_detail::Db& db);

}  // namespace ibw::store::pg_schema
