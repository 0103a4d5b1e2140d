#include "store/sqlite_store.h"

#include "fabric/model.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include "store/port_state.h"
#include "store/sample_tables.h"
#include "store/schema.h"
#include "store/sqlite_rows.h"
#include "store/write_rules.h"

namespace ibw::store {

namespace store_detail {

int open_flags(const std::string& path, const SqliteStore::Options& o) {
  if (o.read_only) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
      throw StoreError("store " + path + ": cannot open read-only: " + std::strerror(errno) +
                       (errno == ENOENT ? " (read-only opens do not create the store)" : ""));
    return SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
  }
  return SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
}

}  // namespace store_detail

std::unique_ptr<Store> Store::open(const std::string& path, bool read_only) {
  SqliteStore::Options o;
  o.read_only = read_only;
  return std::make_unique<SqliteStore>(path, o);
}

SqliteStore::SqliteStore(const std::string& path, const Options& options)
    : db_(path, store_detail::open_flags(path, options)), read_only_(options.read_only) {
  sqlite3_busy_timeout(db_.handle(), options.busy_timeout_ms);
  if (read_only_) {
    schema::check_read_only(db_);
    return;
  }
  db_.exec(options.full_sync ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
  db_.exec(sqlite_detail::kJournalSizeLimit);
  db_.exec("PRAGMA cache_size = -16384");  // 16 MiB page cache
  // 16 KiB pages for a new file (an existing one keeps its own): a k=64 scrape writes 256
  // partition blobs of about 200 KB twice over (samples, port states); in 4 KiB pages each
  // is a chain of 50 overflow pages, and the write took 24% longer (issue 32).
  db_.exec("PRAGMA page_size = 16384");
  // Migrating first means a refused file (newer, foreign) is left exactly as it was.
  schema::migrate(db_);
  const std::string mode = db_.scalar_text("PRAGMA journal_mode = WAL");  // persistent
  if (mode != "wal")
    throw StoreError("store " + path + ": cannot switch to WAL mode (journal_mode is " + mode +
                     "); is it on a network file system?");
  sqlite_detail::Checkpointer::Options c;
  c.busy_timeout_ms = options.busy_timeout_ms, c.full_sync = options.full_sync;
  checkpointer_ = std::make_unique<sqlite_detail::Checkpointer>(
      db_.handle(), path, db_.scalar_int("PRAGMA page_size"), c);
}

SqliteStore::~SqliteStore() = default;

CheckpointStats SqliteStore::checkpoints() const {
  return checkpointer_ ? checkpointer_->stats() : CheckpointStats{};
}

bool SqliteStore::wait_checkpoints(int timeout_ms) {
  return !checkpointer_ || checkpointer_->wait_idle(timeout_ms);
}

int SqliteStore::schema_version() {
  return static_cast<int>(db_.scalar_int("PRAGMA user_version"));
}

void SqliteStore::check_writable() const {
  if (read_only_) throw StoreError("store " + db_.path() + ": opened read-only, cannot write");
}

void SqliteStore::delete_ports(const char* table,
                               const std::vector<std::pair<uint64_t, int>>& keys) {
  auto s = db_.query(std::string("DELETE FROM ") + table + " WHERE node_guid = ?1 AND port = ?2");
  for (const auto& [guid, port] : keys) {
    s->bind_u64(1, guid);
    s->bind(2, int64_t{port});
    s->run();
    s->reset();
    row_written();
  }
}

void SqliteStore::row_written() {
  ++rows_written_;
  if (fail_at_row_ != 0 && rows_written_ == fail_at_row_)
    throw StoreError("store " + db_.path() + ": injected failure after row " +
                     std::to_string(rows_written_));
}

WriteResult SqliteStore::write(const WriteBatch& batch) {
  WriteResult result;
  fail_at_row_ = std::exchange(fail_after_rows_, 0);
  rows_written_ = 0;
  if (empty_batch(batch)) return result;
  check_writable();
  return with_store_errors(db_.path(), "write", [&] {
    sqlite_detail::Transaction tx(db_);
    write_rows(batch, result);
    tx.commit();
    return result;
  });
}

void SqliteStore::write_rows(const WriteBatch& batch, WriteResult& result) {
  result.event_ids.reserve(batch.events.size());
  {
    auto s = db_.query(rows::insert_event_sql());
    for (const ingest::Event& e : batch.events) {
      rows::bind_event(*s, e);
      s->run();
      const bool inserted = db_.changes() > 0;
      result.event_ids.push_back(inserted ? db_.last_insert_rowid() : 0);
      if (inserted) ++result.events_inserted;
      s->reset();
      row_written();
    }
  }
  sample_tables::stage(db_, stored_samples(batch), [this] { row_written(); });
  {
    // Most batches update the counters of known ports: try the cheaper UPDATE first.
    auto u = db_.query(rows::update_port_sql());
    auto s = db_.query(rows::upsert_port_sql());
    for (const PortRecord& p : batch.ports) {
      rows::bind_port(*u, p);
      u->run();
      const bool updated = db_.changes() > 0;
      u->rewind();  // every parameter is bound again for the next row
      if (!updated) {
        rows::bind_port(*s, p);
        s->run();
        s->rewind();
      }
      row_written();
    }
  }
  {
    // The counter state of the ports above, then of the readings: packed per partition.
    port_state::Updates states;
    states.reserve(batch.ports.size() + batch.port_counters.size());
    for (const PortRecord& p : batch.ports) states.add(p);
    for (const ingest::CounterDelta& d : batch.port_counters) {
      states.add(d);
      row_written();
    }
    port_state::write(db_, states);
  }
  {
    auto s = db_.query(rows::upsert_ufm_port_sql());
    for (const ingest::UfmPortState& u : batch.ufm_ports) {
      rows::bind_ufm_port(*s, u);
      s->run();
      s->reset();
      row_written();
    }
  }
  delete_ports("ufm_ports", batch.ufm_ports_removed);
  {
    auto s = db_.query(
        "INSERT INTO cursors (source, value) VALUES (?1, ?2) "
        "ON CONFLICT (source) DO UPDATE SET value = excluded.value");
    for (const auto& [source, value] : batch.cursors) {
      s->bind(1, source);
      s->bind(2, value);
      s->run();
      s->reset();
      row_written();
    }
  }
  write_remedy_rows(batch, result);
}

std::vector<StoredEvent> SqliteStore::events(const EventQuery& q) {
  const rows::EventPlan plan = rows::plan_for(q);
  const bool by_node = plan == rows::EventPlan::by_node || plan == rows::EventPlan::by_port;
  const bool by_port = plan == rows::EventPlan::by_port;
  auto s = db_.query(rows::select_events_sql(plan));
  s->bind(1, q.since_us);
  s->bind(2, q.after_id);
  const auto max_limit = static_cast<size_t>(std::numeric_limits<int64_t>::max());
  s->bind(3, q.limit == 0 ? int64_t{-1} : static_cast<int64_t>(std::min(q.limit, max_limit)));
  if (by_node) s->bind_u64(4, q.node_guid);
  if (by_port) s->bind(5, int64_t{q.port});
  std::vector<StoredEvent> out;
  while (s->step()) out.push_back(rows::read_event(*s));
  return out;
}

namespace store_detail {

// A read transaction (the rows and the partitions of their counter state from one snapshot
// of the file), unless the connection is in one already.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(sqlite_detail::Db& db) : db_(db), own_(!db.in_transaction()) {
    if (own_) db_.exec("BEGIN");
  }
  ~ReadSnapshot() {
    if (own_ && db_.in_transaction())
      sqlite3_exec(db_.handle(), "COMMIT", nullptr, nullptr, nullptr);  // reads only
  }
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;

 private:
  sqlite_detail::Db& db_;
  bool own_;
};

}  // namespace store_detail

std::vector<PortRecord> SqliteStore::ports(const std::string& node_filter) {
  const store_detail::ReadSnapshot snapshot(db_);
  std::vector<PortRecord> out;
  {
    const bool filtered = !node_filter.empty();
    auto s = db_.query(rows::select_ports_sql(filtered));
    if (filtered) {
      s->bind(1, node_filter);
      bool hex = node_filter.size() > 2 && node_filter[0] == '0' &&
                 (node_filter[1] == 'x' || node_filter[1] == 'X');
      if (auto guid = hex ? fabric::parse_guid(node_filter) : std::nullopt)
        s->bind_u64(2, *guid);
      else
        s->bind_null(2);
    }
    while (s->step()) out.push_back(rows::read_port(*s));
  }
  port_state::fill(db_, out);
  return out;
}

std::vector<ingest::UfmPortState> SqliteStore::ufm_ports() {
  auto s = db_.query(rows::select_ufm_ports_sql());
  std::vector<ingest::UfmPortState> out;
  while (s->step()) out.push_back(rows::read_ufm_port(*s, 0));
  return out;
}

std::optional<std::string> SqliteStore::cursor(const std::string& source) {
  auto s = db_.query("SELECT value FROM cursors WHERE source = ?1");
  s->bind(1, source);
  if (!s->step()) return std::nullopt;
  return std::string(s->column_text(0));
}

std::vector<ingest::CounterSample> SqliteStore::samples(uint64_t node_guid, int port,
                                                        int64_t since_us) {
  return sample_tables::read(db_, node_guid, port, since_us);
}

}  // namespace ibw::store
