// SqliteStore: the Store behind Store::open(). Internal to store/ and its tests; everything
// else uses the Store interface. Events, samples, ports (with UFM's view, ufm_ports) and
// cursors are in sqlite_store.cpp, compaction in sqlite_compact.cpp, remediation records in
// sqlite_remedy.cpp.
//
// Connection settings (read-write):
// - journal_mode=WAL: readers (CLI, web API) never block the writer and never see a partial
//   transaction; the writer never blocks them.
// - synchronous=NORMAL: a commit is written to the WAL with write(2) but not fsync'ed; the WAL
//   is fsync'ed at checkpoints. A committed transaction therefore survives a crash or kill of
//   the process (it is in the OS page cache), and the database is never corrupted, but a
//   power loss or kernel crash may roll back the last transactions. That is safe for the
//   contract in store.h: cursors move in the same transaction as their events, so a rollback
//   takes the cursor back too and the source replays (events de-duplicate on dedup_key).
//   Set Options::full_sync for fsync on every commit (a few ms per batch on real disks).
// - Checkpoints at SQLite's own threshold (~1,000 WAL pages), run by a thread of the store
//   with its own connection, not inside the commit (store/sqlite_checkpoint.h); in a commit
//   only when that thread is behind or failing. journal_size_limit truncates a grown WAL.
// - busy_timeout (default 5 s): a second writer, or a reader during WAL recovery after a
//   crash, waits instead of failing with SQLITE_BUSY.
// Read-only opens use SQLITE_OPEN_READONLY, never migrate, and need the file to exist.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "store/sqlite_checkpoint.h"
#include "store/sqlite_db.h"
#include "store/store.h"

namespace ibw::store {

class SqliteStore : public Store {
 public:
  struct Options {
    bool read_only = false;
    bool full_sync = false;  // synchronous=FULL instead of NORMAL
    int busy_timeout_ms = 5000;
  };

  SqliteStore(const std::string& path, const Options& options);
  ~SqliteStore() override;

  // The fabric this file holds (StoreSpec::fabric), what fabrics() answers.
  void set_fabric(std::string name) { fabric_ = std::move(name); }
  std::vector<FabricEntry> fabrics() override { return {{fabric_, std::nullopt}}; }

  WriteResult write(const WriteBatch& batch) override;
  // The background checkpoints; empty for a read-only store.
  CheckpointStats checkpoints() const override;
  // Waits until the checkpoints asked for so far have run. False on timeout.
  bool wait_checkpoints(int timeout_ms);
  std::vector<StoredEvent> events(const EventQuery& q) override;
  std::vector<PortRecord> ports(const std::string& node_filter = "") override;
  std::vector<ingest::UfmPortState> ufm_ports() override;
  std::optional<std::string> cursor(const std::string& source) override;
  std::vector<ingest::CounterSample> samples(uint64_t node_guid, int port,
                                             int64_t since_us) override;
  size_t compact(int64_t now_us, const Retention& retention) override;
  int schema_version() override;
  std::vector<SampleAggregate> aggregates(uint64_t node_guid, int port, int64_t since_us) override;

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

  // Test hook: the next write() throws StoreError right after storing its n-th row, as a
  // failure midway would. Rows are counted from 1 in write order: events, samples, ports,
  // ufm_ports, ufm_ports_removed, cursors, decisions, work orders (each batch order counts one
  // row, changed or not, and its outbox item, when one is added, the next), disabled_add,
  // disabled_remove. Skipped duplicates count too. 0 disables it. One-shot.
  void fail_write_after_rows_for_testing(size_t n) { fail_after_rows_ = n; }

 private:
  void write_rows(const WriteBatch& batch, WriteResult& result);
  void complete_decisions(const WriteBatch& batch);
  void write_remedy_rows(const WriteBatch& batch, WriteResult& result);  // sqlite_remedy.cpp
  int64_t upsert_workorder(const WorkOrder& order, bool outbox, bool if_version);
  void check_writable() const;
  void row_written();
  // Deletes the rows of `table` with these (node_guid, port) keys; one row_written() each.
  void delete_ports(const char* table, const std::vector<std::pair<uint64_t, int>>& keys);
  size_t fold_samples(int64_t cutoff_us);

  sqlite_detail::Db db_;
  std::unique_ptr<sqlite_detail::Checkpointer> checkpointer_;  // closed before db_
  std::string fabric_ = "default";
  bool read_only_;
  size_t fail_after_rows_ = 0;  // armed by the test hook
  size_t fail_at_row_ = 0;      // for the write() in progress
  size_t rows_written_ = 0;
};

}  // namespace ibw::store
