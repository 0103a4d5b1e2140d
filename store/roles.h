// The store's roles: one small interface per kind of caller, so that each takes only what it
// uses. EventStore (events, ports, samples, cursors: reads), StoreWriter (the one write
// transaction of a batch), RemedyStore (remediation reads, with the writer its
// read-modify-writes go through), OutboxStore (the webhook outbox), LeaseStore (fabrics and
// leader leases) and AdminStore (compaction, schema). store::Store (store/store.h) is all of
// them: the SQLite and PostgreSQL stores implement it, and an owner of a connection hands out
// the roles. The values they read and write are in store/records.h.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/records.h"

namespace ibw::store {

// Events, port state, counter samples and source cursors, as the ingest path stored them.
class EventStore {
 public:
  virtual ~EventStore() = default;
  virtual std::vector<StoredEvent> events(const EventQuery& q) = 0;
  // All ports, or only those of nodes whose display name or 0xGUID equals node_filter
  // (0x and up to 16 hex digits, any case). Ordered by display name, then port.
  virtual std::vector<PortRecord> ports(const std::string& node_filter = "") = 0;
  virtual std::optional<std::string> cursor(const std::string& source) = 0;
  // Raw samples of one port since a time, oldest first.
  virtual std::vector<ingest::CounterSample> samples(uint64_t node_guid, int port,
                                                     int64_t since_us) = 0;
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

// Writes: every batch is one transaction (see store/store.h for the durability contract).
class StoreWriter {
 public:
  virtual ~StoreWriter() = default;
  virtual WriteResult write(const WriteBatch& batch) = 0;
  // Intent before action: runs `decide` inside one write transaction (SQLite BEGIN
  // IMMEDIATE: one writer at a time across every process sharing the store) and writes the
  // batch it returns in that same transaction; nullopt writes nothing. `decide` reads the
  // guard's inputs through this store (disabled_ports, disable_times), so a check and the
  // intent it allows can never interleave with another process's. Throws as write().
  virtual WriteResult write_guarded(const std::function<std::optional<WriteBatch>()>& decide) = 0;
};

// Remediation reads (core/remedy_records.h), all available on read-only opens, and the writer
// their read-modify-writes go through. Decisions and orders are ordered by id.
class RemedyStore : public StoreWriter {
 public:
  virtual std::vector<DecisionRecord> decisions(const DecisionQuery& q) = 0;
  virtual std::vector<WorkOrder> workorders(const WorkOrderQuery& q) = 0;
  virtual std::optional<WorkOrder> workorder(int64_t id) = 0;
  virtual std::optional<WorkOrder> workorder_by_link(const std::string& link_key) = 0;
  // Ordered by the time they were disabled, then GUID and port.
  virtual std::vector<DisabledPort> disabled_ports() = 0;
  // Times of executed disables (decisions action=disable, status=executed) with
  // time >= since_us, oldest first.
  virtual std::vector<int64_t> disable_times(int64_t since_us) = 0;
  // Decisions stored as "pending" (an intent whose outcome was never recorded), oldest first.
  virtual std::vector<DecisionRecord> pending_decisions() = 0;
};

// The webhook outbox (WriteBatch::outbox fills it).
class OutboxStore {
 public:
  virtual ~OutboxStore() = default;
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
};

// The fabrics a store holds and their leader leases.
class LeaseStore {
 public:
  virtual ~LeaseStore() = default;
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
};

// Housekeeping: retention and the schema.
class AdminStore {
 public:
  virtual ~AdminStore() = default;
  // Packs the raw samples written since the last call into per-port blocks (one run; see
  // store/sample_tables.h), folds raw samples older than the raw window into hourly
  // aggregates (last value and max delta per counter), drops what is past retention (events,
  // decisions and delivered outbox items after the event window; work orders are kept).
  // Returns rows removed: raw samples folded plus aggregates and events dropped.
  // Run it about hourly (the daemon does): until then written samples stay in the cheaper
  // to write but larger stage.
  virtual size_t compact(int64_t now_us, const Retention& retention) = 0;
  virtual int schema_version() = 0;
  // How the store's own WAL checkpoints went since it was opened (SQLite; all zero for a
  // backend that has none). Safe to call from any thread, also while another one writes.
  virtual CheckpointStats checkpoints() const { return {}; }
};

}  // namespace ibw::store
