// Store: SQLite in WAL mode (the embedded default; store/sqlite_store.h) or PostgreSQL (many
// fabrics in one database, leader leases; store/pg_store.h) holding events, counter samples
// (raw for a window, packed per port; then hourly aggregates), per-port state, source cursors
// and the records of remediation (decisions, work orders, the webhook outbox, ports ibwarden
// disabled; core/remedy_records.h). One writer (the daemon) and any number of readers (CLI
// query commands, the web API) on the same file. Store is the whole connection: every role
// of store/roles.h; a caller that only reads ports, or only handles work orders, takes the
// role it needs.
//
// Durability contract: a batch written by write() is one transaction; it either lands whole
// or not at all. Sources advance their cursor in the same transaction as the events it
// covers, so a crash at any point loses nothing a source has been told is stored, and
// replays nothing twice (events also de-duplicate on dedup_key).
// "Crash" is a crash or kill of the process. After a power loss or kernel crash the last
// transactions may roll back, each whole and with its cursor (see store/sqlite_store.h).
// Schema changes are numbered migrations (SQLite: PRAGMA user_version; PostgreSQL: a table).
// Not thread-safe: use one Store per thread.
#pragma once

#include <memory>
#include <string>

#include "store/records.h"
#include "store/roles.h"

namespace ibw::store {

class Store : public EventStore,
              public RemedyStore,
              public OutboxStore,
              public LeaseStore,
              public AdminStore {
 public:
  // Opens a SQLite store (creating and migrating as needed). Throws StoreError naming the path.
  static std::unique_ptr<Store> open(const std::string& path, bool read_only = false);
  // Opens the store a configuration names (config/store_spec.h): SQLite (spec.path) or
  // PostgreSQL (spec.url), creating and migrating as needed (PostgreSQL: under an advisory
  // lock, so instances starting together migrate once). Throws StoreError naming the path or
  // server.
  static std::unique_ptr<Store> open(const StoreSpec& spec, bool read_only = false);
  ~Store() override = default;
};

}  // namespace ibw::store
