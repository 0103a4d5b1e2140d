// PgStore: the Store on PostgreSQL (store.backend: postgres), behind Store::open(StoreSpec).
// Internal to store/ and its tests; everything else uses the Store interface.
// Every table is keyed by fabric name, so one database holds many fabrics; a PgStore reads and
// writes only the rows of StoreSpec::fabric. Leases (Store::take_lease) and fencing
// (StoreSpec::fence) are described in store/store.h; the schema in store/pg_schema.h.
//
// Files: connection and leases in pg_store.cpp, events/ports/cursors in pg_rows.cpp and
// pg_write.cpp, raw samples in pg_samples.cpp, compaction in pg_compact.cpp, remediation
// records in pg_remedy.cpp.
//
// Behaves like SqliteStore through the Store interface. Differences: raw samples are packed
// chunks per write and partition (pg_samples.h), never transposed into per-port blocks; write
// transactions of a fenced store first check the lease (check_fence); schema versions are this
// backend's own (pg_schema::latest_version()).
// Read-only opens never migrate, refuse another schema version, and run their session with
// default_transaction_read_only.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "store/pg_db.h"
#include "store/store.h"

namespace ibw::store {

// Connects to spec.url (with spec.password), migrates (under an advisory lock) unless
// read_only, and returns the store of spec.fabric. Throws StoreError naming the server.
std::unique_ptr<Store> open_postgres(const StoreSpec& spec, bool read_only);

class PgStore : public Store {
 public:
  PgStore(const StoreSpec& spec, bool read_only);
  ~PgStore() override;

  std::vector<FabricEntry> fabrics() override;
  Lease take_lease(const std::string& holder, int64_t epoch, int64_t lease_us,
                   const std::string& sources) override;
  bool release_lease(const std::string& holder, int64_t epoch) override;
  std::optional<Lease> lease() override;

  WriteResult write(const WriteBatch& batch) override;
  std::vector<StoredEvent> events(const EventQuery& q) override;
  std::vector<PortRecord> ports(const std::string& node_filter = "") override;
  std::vector<ingest::UfmPortState> ufm_ports() override;
  std::optional<std::string> cursor(const std::string& source) override;
  std::vector<ingest::CounterSample> samples(uint64_t node_guid, int port,
                                             int64_t since_us) override;
  size_t compact(int64_t now_us, const Retention& retention) override;
  int schema_version() override;
  std::vector<SampleAggregate> aggregates(uint64_t node_guid, int port, int64_t since_us) override;

  // Remediation (pg_remedy.cpp).
  std::vector<DecisionRecord> decisions(const DecisionQuery& q) override;
  std::vector<WorkOrder> workorders(const WorkOrderQuery& q) override;
  std::optional<WorkOrder> workorder(int64_t id) override;
  std::optional<WorkOrder> workorder_by_link(const std::string& link_key) override;
  std::vector<DisabledPort> disabled_ports() override;
  std::vector<int64_t> disable_times(int64_t since_us) override;
  WriteResult write_guarded(const std::function<std::optional<WriteBatch>()>& decide) override;
  std::vector<DecisionRecord> pending_decisions() override;
  std::vector<OutboxItem> outbox_due(int64_t now_us, size_t limit) override;
  void outbox_delivered(int64_t id, int64_t delivered_us) override;
  void outbox_failed(int64_t id, int64_t next_attempt_us, const std::string& error) override;
  OutboxBacklog outbox_backlog() override;

  const std::string& fabric() const { return fabric_; }

 private:
  // Inside an open write transaction: the rows of a batch, in SqliteStore::write_rows' order
  // (events, samples, ports, port_counters, ufm_ports, ufm_ports_removed, cursors), then
  // write_remedy_rows(). Used by write() and write_guarded(). (pg_write.cpp)
  void write_rows(const WriteBatch& batch, WriteResult& result);
  // Decisions (then complete_decisions), work orders (+ outbox), disabled ports, as
  // SqliteStore::write_remedy_rows. (pg_remedy.cpp)
  void write_remedy_rows(const WriteBatch& batch, WriteResult& result);
  void complete_decisions(const WriteBatch& batch);  // (pg_remedy.cpp)
  // Inside an open write transaction, first thing: when the store has a fence, locks the
  // lease row FOR SHARE and throws StoreFenced unless it still names fence_ (holder, epoch).
  // The caller's Transaction then rolls back, so nothing is written. (pg_store.cpp)
  void check_fence();
  // Throws StoreError when opened read-only.
  void check_writable() const;
  size_t fold_samples(int64_t cutoff_us);  // pg_compact.cpp

  pg_detail::Db db_;
  std::string fabric_;
  std::optional<Fence> fence_;
  bool read_only_;
};

}  // namespace ibw::store
