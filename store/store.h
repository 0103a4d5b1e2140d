// Store: SQLite in WAL mode (the embedded default; store/sqlite_store.h) or PostgreSQL (many
// fabrics in one database, leader leases; store/pg_store.h) holding events, counter samples (raw
// for a window, packed per port; then hourly aggregates), per-port state, source cursors and the
// records of remediation (decisions, work orders, the webhook outbox, ports ibwarden disabled;
// store/remedy.h). One writer (the daemon) and any number of readers (CLI query commands, later the
// web API) on the same file.
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

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ingest/counter_tracker.h"
#include "ingest/counters.h"
#include "ingest/event.h"
#include "ingest/ufm/port_state.h"
#include "store/remedy.h"

namespace ibw::store {

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A conditional write lost a race (WriteBatch::workorders_if_version): nothing was written.
class StoreConflict : public StoreError {
 public:
  using StoreError::StoreError;
};

// A write of a fenced store (StoreSpec::fence) found that its holder no longer holds the
// fabric's lease at its epoch: another instance took over. Nothing was written; the caller
// must stop acting (the daemon steps down to standby).
class StoreFenced : public StoreError {
 public:
  using StoreError::StoreError;
};

// The lease a leader holds (see Store::take_lease). Its writes carry it: every write
// transaction of a store opened with a fence first checks that the fabric's lease row still
// names this holder at this epoch, under a row lock, and throws StoreFenced otherwise.
struct Fence {
  std::string holder;
  int64_t epoch = 0;
};

// Where the store is (config store: section) and which fabric's rows it reads and writes.
struct StoreSpec {
  std::string backend = "sqlite";  // "sqlite" | "postgres"
  std::string path;                // sqlite: the database file
  // postgres: a libpq connection string (URI "postgresql://user@host:port/db?host=/socket/dir"
  // or "key=value ..."); the password is never in it (see `password`).
  std::string url;
  std::string password;  // postgres: from store.password_file / password_env; "" = none
  // fabric.name. In PostgreSQL every table is keyed by it, so one database holds many
  // fabrics and this store sees only this one's rows. A SQLite file holds one fabric.
  std::string fabric = "default";
  // When set (the lease holder's connections), writes are fenced (see Fence). Postgres only.
  std::optional<Fence> fence;
};

// One fabric's lease row (PostgreSQL): who watches it. Times are the database server's clock,
// UTC microseconds, so hosts with skewed clocks agree on expiry.
struct Lease {
  std::string fabric;
  std::string holder;      // instance name of the holder ("" = never taken)
  int64_t epoch = 0;       // + 1 at every change of holder; fences the holder's writes
  int64_t expires_us = 0;  // the holder must renew before this
  int64_t now_us = 0;      // the server's clock when this was read
  std::string sources;     // the holder's source health, JSON array text ("[]" unknown)
  bool taken = false;      // take_lease: true when THIS call took or renewed the lease (false:
                           // unchanged, e.g. held by another process with the same name)
};

// A fabric the store holds (Store::fabrics): its lease when HA is on.
struct FabricEntry {
  std::string name;
  std::optional<Lease> lease;  // nullopt: no lease row (SQLite, or HA off)
};

struct StoredEvent {
  int64_t id = 0;
  ingest::Event event;
};

// Latest known state of one port; what `ibwarden ports` prints.
struct PortRecord {
  uint64_t node_guid = 0;
  int port = 0;
  std::string node;  // display name
  uint16_t lid = 0;
  uint64_t peer_guid = 0;
  std::string peer_node;
  int peer_port = 0;
  std::string cable_id;
  int state = 0;                   // PortInfo.PortState (1 Down .. 4 Active), 0 unknown
  int phys_state = 0;              // PortInfo.PortPhysicalState
  int width = 0;                   // active lanes
  std::string speed;               // "HDR", ...
  ingest::CounterSample counters;  // last sample (valid bits tell what is known)
  std::array<double, ingest::kCounterCount> rates{};  // per second, over the last interval
  uint32_t rates_valid = 0;
  std::array<uint64_t, ingest::kCounterCount> deltas{};  // over the last interval
  uint32_t deltas_valid = 0;
  uint32_t deltas_at_least = 0;  // bit i: saturated, the true delta may be larger
  int64_t last_change_us = 0;    // last state change seen
  // UFM's view of the port (table ufm_ports), when UFM reported it. Read only: ports() fills
  // it from the ufm_ports row of the same node GUID and port; writes of `ports` ignore it.
  std::optional<ingest::UfmPortState> ufm;
};

// Sets the counter part of a port's record from one reading (what PortTable::apply_counters
// does, and what WriteBatch::port_counters writes to a port's row).
inline void set_counters(PortRecord& r, const ingest::CounterDelta& d) {
  r.counters = d.sample;
  r.rates = d.rate;
  r.rates_valid = d.valid;
  r.deltas = d.delta;
  r.deltas_valid = d.valid;
  r.deltas_at_least = d.at_least;
}

struct EventQuery {
  int64_t since_us = 0;    // events with time >= since
  uint64_t node_guid = 0;  // with port: only that port (0 = all)
  int port = -1;           // -1 = any
  int64_t after_id = 0;    // paging: ids > after_id
  size_t limit = 10000;    // 0 = no limit
};

// Everything one ingest step wants stored, applied atomically.
struct WriteBatch {
  std::vector<ingest::Event> events;
  std::vector<ingest::CounterSample> samples;
  std::vector<PortRecord> ports;  // upserted by (node_guid, port)
  // Counter readings of ports that have a row: after `ports`, each sets the counter columns of
  // the row of (sample.node_guid, sample.port) as set_counters() sets a record, and leaves the
  // other columns alone; a reading of a port without a row is skipped. A counter sweep or
  // scrape writes these instead of whole records: only the counters of every port change.
  std::vector<ingest::CounterDelta> port_counters;
  // UFM's view of ports (ingest/ufm/port_state.h): upserted, then removed, by (node_guid, port).
  std::vector<ingest::UfmPortState> ufm_ports;
  std::vector<std::pair<uint64_t, int>> ufm_ports_removed;
  std::vector<std::pair<std::string, std::string>> cursors;  // source name -> opaque cursor

  // Remediation (store/remedy.h).
  // Applied after the rows above, in this order. The ids of decisions and work orders given
  // here are ignored (the store assigns them).
  std::vector<DecisionRecord> decisions;  // inserted; a dedup_key already stored is skipped
  // Intents completed: by id, the status, reason and evidence of a decision stored as
  // "pending" (a decision no longer pending is left alone). Applied after the inserts.
  std::vector<DecisionRecord> decisions_completed;
  // Upserted by link_key (must not be empty: StoreError). A new link gets a row at version 1.
  // For a known link, opened_us 0 means "keep the stored one"; then a row whose content
  // (everything but id, version and updated_us) equals the stored one is left alone, and any
  // other is replaced whole with version + 1. When `outbox` is set, each insert or change
  // also adds an outbox item with the order's JSON at its new version (workorder_json(), with
  // the final id and version), in the same transaction, so a webhook can neither miss a
  // change nor see one that was rolled back. An insert with opened_us 0 gets updated_us.
  std::vector<WorkOrder> workorders;
  // Optimistic concurrency for read-modify-write (PATCH from the web while the action worker
  // reopens the same order): an update whose `version` is not the stored one throws
  // StoreConflict and the whole batch is rolled back; the caller reads again and retries.
  bool workorders_if_version = false;
  bool outbox = false;
  std::vector<DisabledPort> disabled_add;                 // upserted by (node_guid, port)
  std::vector<std::pair<uint64_t, int>> disabled_remove;  // (node_guid, port)
};

struct WriteResult {
  size_t events_inserted = 0;          // duplicates (same dedup_key) are skipped, not counted
  std::vector<int64_t> event_ids;      // id per batch event; 0 for a skipped duplicate
  std::vector<int64_t> decision_ids;   // id per batch decision; 0 for a skipped duplicate
  std::vector<int64_t> workorder_ids;  // id per batch work order (new, changed or not)
};

struct DecisionQuery {
  int64_t since_us = 0;  // decisions with time >= since
  int64_t after_id = 0;  // paging: ids > after_id
  std::string link_key;  // only this link ("" = all)
  size_t limit = 10000;  // 0 = no limit
};

struct WorkOrderQuery {
  std::string status;    // "" = any; "active" = open, in_progress or reopened
  int64_t after_id = 0;  // paging
  size_t limit = 10000;  // 0 = no limit
};

// The webhook outbox not delivered yet (delivered_us = 0), as Store::outbox_backlog() sums it.
struct OutboxBacklog {
  int64_t pending = 0;               // undelivered items
  int64_t failing = 0;               // of those, items with at least one failed attempt
  int64_t failed_attempts = 0;       // failed attempts of the undelivered items, summed
  std::optional<OutboxItem> oldest;  // the undelivered item with the lowest id (queued first)
};

struct Retention {
  int64_t raw_window_us = 24LL * 3600 * 1000000;             // keep raw samples this long
  int64_t aggregate_window_us = 30LL * 24 * 3600 * 1000000;  // keep hourly aggregates this long
  int64_t event_window_us = 90LL * 24 * 3600 * 1000000;
};

// One hour of one port after compact() folded its raw samples.
// max_delta[i] is the largest increase of counter i between two consecutive samples of the
// port, the interval belonging to the hour of its later sample (so the first sample of an
// hour is compared with the last one of the hour before). A counter that went backwards
// (reset) counts its new value as the increase; a pair is skipped when the earlier reading
// was saturated (unknown base) or the two used different counter widths (extended flag).
// delta_valid bit i is set when at least one pair gave a delta for counter i.
struct SampleAggregate {
  uint64_t node_guid = 0;
  int port = 0;
  int64_t bucket_us = 0;       // start of the UTC hour
  int64_t sample_count = 0;    // raw samples folded in
  int64_t first_time_us = 0;   // first raw sample of the hour
  ingest::CounterSample last;  // last raw sample of the hour
  std::array<uint64_t, ingest::kCounterCount> max_delta{};
  uint32_t delta_valid = 0;
};

class Store {
 public:
  // Opens a SQLite store (creating and migrating as needed). Throws StoreError naming the path.
  static std::unique_ptr<Store> open(const std::string& path, bool read_only = false);
  // Opens the store a configuration names: SQLite (spec.path) or PostgreSQL (spec.url),
  // creating and migrating as needed (PostgreSQL: under an advisory lock, so instances
  // starting together migrate once). Throws StoreError naming the path or server.
  static std::unique_ptr<Store> open(const StoreSpec& spec, bool read_only = false);
  virtual ~Store() = default;

  // Every fabric with rows or a lease in this store, by name. SQLite: the one it was opened
  // for (StoreSpec::fabric), without a lease.
  virtual std::vector<FabricEntry> fabrics() = 0;
  // Leases (PostgreSQL; others throw StoreError "leases need the postgres backend").
  // take_lease: one transaction on the fabric's lease row, on the server's clock:
  //  - no row, or the row expired: `holder` takes it, epoch + 1 (a row is created at epoch 1);
  //  - held by `holder` at `epoch` (the caller's current one): renewed, same epoch;
  //  - otherwise (held by another, or by this name at another epoch): unchanged.
  // The new expiry is now + lease_us; `sources` (JSON array text) is stored with a take or
  // renewal. Returns the row as it is after the call: the caller holds the lease when
  // holder and epoch are its own and expires_us > now_us.
  virtual Lease take_lease(const std::string& holder, int64_t epoch, int64_t lease_us,
                           const std::string& sources) {
    (void)holder, (void)epoch, (void)lease_us, (void)sources;
    throw StoreError("leases need the postgres backend");
  }
  // Gives the lease up at once (expiry = now) when `holder` holds it at `epoch`, so a standby
  // takes over without waiting out the lease (clean shutdown). False when not held.
  virtual bool release_lease(const std::string& holder, int64_t epoch) {
    (void)holder, (void)epoch;
    throw StoreError("leases need the postgres backend");
  }
  // The fabric's lease row as it is; nullopt when none was ever taken.
  virtual std::optional<Lease> lease() { return std::nullopt; }

  virtual WriteResult write(const WriteBatch& batch) = 0;
  virtual std::vector<StoredEvent> events(const EventQuery& q) = 0;
  // All ports, or only those of nodes whose display name or 0xGUID equals node_filter
  // (0x and up to 16 hex digits, any case). Ordered by display name, then port.
  virtual std::vector<PortRecord> ports(const std::string& node_filter = "") = 0;
  virtual std::optional<std::string> cursor(const std::string& source) = 0;
  // Raw samples of one port since a time, oldest first.
  virtual std::vector<ingest::CounterSample> samples(uint64_t node_guid, int port,
                                                     int64_t since_us) = 0;
  // Packs the raw samples written since the last call into per-port blocks (one run; see
  // store/sample_tables.h), folds raw samples older than the raw window into hourly
  // aggregates (last value and max delta per counter), drops what is past retention (events,
  // decisions and delivered outbox items after the event window; work orders are kept).
  // Returns rows removed: raw samples folded plus aggregates and events dropped.
  // Run it about hourly (the daemon does): until then written samples stay in the cheaper
  // to write but larger stage.
  virtual size_t compact(int64_t now_us, const Retention& retention) = 0;
  virtual int schema_version() = 0;
  // Remediation reads (store/remedy.h), all available on read-only opens. Decisions and
  // orders are ordered by id.
  virtual std::vector<DecisionRecord> decisions(const DecisionQuery& q) = 0;
  virtual std::vector<WorkOrder> workorders(const WorkOrderQuery& q) = 0;
  virtual std::optional<WorkOrder> workorder(int64_t id) = 0;
  virtual std::optional<WorkOrder> workorder_by_link(const std::string& link_key) = 0;
  // Ordered by the time they were disabled, then GUID and port.
  virtual std::vector<DisabledPort> disabled_ports() = 0;
  // Times of executed disables (decisions action=disable, status=executed) with
  // time >= since_us, oldest first.
  virtual std::vector<int64_t> disable_times(int64_t since_us) = 0;
  // Intent before action: runs `decide` inside one write transaction (SQLite BEGIN
  // IMMEDIATE: one writer at a time across every process sharing the store) and writes the
  // batch it returns in that same transaction; nullopt writes nothing. `decide` reads the
  // guard's inputs through this store (disabled_ports, disable_times), so a check and the
  // intent it allows can never interleave with another process's. Throws as write().
  virtual WriteResult write_guarded(const std::function<std::optional<WriteBatch>()>& decide) = 0;
  // Decisions stored as "pending" (an intent whose outcome was never recorded), oldest first.
  virtual std::vector<DecisionRecord> pending_decisions() = 0;
  // Undelivered outbox items due at now_us (next_attempt_us <= now_us), oldest (lowest id)
  // first; limit 0 = no limit.
  virtual std::vector<OutboxItem> outbox_due(int64_t now_us, size_t limit) = 0;
  // Marks an item delivered (delivered_us > 0) or failed (attempts + 1, next attempt, error).
  // Each is its own small transaction; an unknown id or a read-only store throws StoreError.
  virtual void outbox_delivered(int64_t id, int64_t delivered_us) = 0;
  virtual void outbox_failed(int64_t id, int64_t next_attempt_us, const std::string& error) = 0;
  // Read only, for monitoring (GET /metrics): the undelivered outbox items summed up, and the
  // oldest of them. Not pure virtual, for the same reason as aggregates().
  virtual OutboxBacklog outbox_backlog() {
    throw StoreError("outbox_backlog: not supported by this store");
  }

  // UFM's view of every port it reported (table ufm_ports), by node GUID and port. Not pure
  // virtual, for the same reason as aggregates().
  virtual std::vector<ingest::UfmPortState> ufm_ports() {
    throw StoreError("ufm_ports: not supported by this store");
  }

  // Hourly aggregates of one port whose hour ends after since_us, oldest first. (Not pure
  // virtual so that test doubles of Store need not implement it.)
  virtual std::vector<SampleAggregate> aggregates(uint64_t /*node_guid*/, int /*port*/,
                                                  int64_t /*since_us*/) {
    throw StoreError("aggregates: not supported by this store");
  }
};

}  // namespace ibw::store
