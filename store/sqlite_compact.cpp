// SqliteStore::compact and the hourly aggregates it maintains.
//
// First the stage of raw samples becomes a run of per-port blocks (sample_tables::transpose).
// Raw samples older than the raw window are then taken out of the runs, each port's in time
// order, and folded into (port, hour) rows, keeping each port's previous sample and current hour in
// memory (O(ports), not O(rows)). A compaction run may end in the middle of an hour, so a bucket
// that already has a row is merged into (counts add, the later "last" wins, max deltas take the
// larger), and the first sample of a port in a run is compared with the last sample already folded
// (the newest earlier aggregate), so no interval is lost between runs.
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "store/counter_json.h"
#include "store/sample_fold.h"
#include "store/sample_tables.h"
#include "store/sqlite_fields.h"
#include "store/sqlite_store.h"
#include "store/write_rules.h"

namespace ibw::store {

namespace compact_detail {

using sqlite_detail::Db;
using sqlite_detail::Statement;

using sample_fold::hour_of;
using sample_fold::kAggregateColumns;
using sample_fold::kHourUs;

SampleAggregate read_aggregate(const Statement& s) {
  return row_read::aggregate(sqlite_detail::SqliteRow{s});
}

// The newest aggregate row of a port whose bucket_us is `op` ("=" or "<=") `bucket`, or
// std::nullopt.
std::optional<SampleAggregate> newest_aggregate(Db& db, uint64_t guid, int port, const char* op,
                                                int64_t bucket) {
  auto s = db.query(std::string("SELECT ") + kAggregateColumns +
                    " FROM sample_aggregates WHERE node_guid = ?1 AND port = ?2 AND bucket_us " +
                    op + " ?3 ORDER BY bucket_us DESC LIMIT 1");
  s->bind_u64(1, guid);
  s->bind(2, int64_t{port});
  s->bind(3, bucket);
  if (!s->step()) return std::nullopt;
  return read_aggregate(*s);
}

// The aggregate row of (port, bucket), or std::nullopt.
std::optional<SampleAggregate> load_bucket(Db& db, uint64_t guid, int port, int64_t bucket) {
  return newest_aggregate(db, guid, port, "=", bucket);
}

// The last sample folded before this run: the newest aggregate at or before `bucket`.
std::optional<ingest::CounterSample> last_folded(Db& db, uint64_t guid, int port, int64_t bucket) {
  const std::optional<SampleAggregate> a = newest_aggregate(db, guid, port, "<=", bucket);
  if (!a) return std::nullopt;
  return a->last;
}

void store_aggregate(Db& db, const SampleAggregate& a) {
  auto s = db.query(std::string("INSERT OR REPLACE INTO sample_aggregates (") + kAggregateColumns +
                    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  s->bind_u64(1, a.node_guid);
  s->bind(2, int64_t{a.port});
  s->bind(3, a.bucket_us);
  s->bind(4, a.sample_count);
  s->bind(5, a.first_time_us);
  s->bind(6, a.last.time_us);
  s->bind(7, counter_json::encode_values(a.last.value));
  s->bind(8, int64_t{a.last.valid});
  s->bind(9, int64_t{a.last.saturated});
  s->bind(10, int64_t{a.last.extended});
  s->bind(11, counter_json::encode_values(a.max_delta));
  s->bind(12, int64_t{a.delta_valid});
  s->run();
}

struct PortKey {
  uint64_t node_guid;
  int port;
  bool operator==(const PortKey&) const = default;
};

struct PortKeyHash {
  size_t operator()(const PortKey& k) const {
    return std::hash<uint64_t>()(k.node_guid * 0x9e3779b97f4a7c15ULL +
                                 static_cast<uint64_t>(k.port));
  }
};

// Compaction state of one port.
struct PortFold {
  std::optional<ingest::CounterSample> prev;  // last sample folded
  std::optional<SampleAggregate> agg;         // the hour being folded
};

}  // namespace compact_detail

size_t SqliteStore::fold_samples(int64_t cutoff_us) {
  using namespace compact_detail;
  // One pass over the old samples, port by port in time order (sample_tables::take_older),
  // with the state of each port in memory: its previous sample and its current hour.
  std::unordered_map<PortKey, PortFold, PortKeyHash> folds;
  const size_t folded =
      sample_tables::take_older(db_, cutoff_us, [&](const ingest::CounterSample& cur) {
        const int64_t bucket = hour_of(cur.time_us);
        auto [it, first] = folds.try_emplace(PortKey{cur.node_guid, cur.port});
        PortFold& f = it->second;
        if (first) {
          f.prev = last_folded(db_, cur.node_guid, cur.port, bucket);
          if (f.prev && f.prev->time_us > cur.time_us) f.prev.reset();  // a late sample: no base
        }
        if (!f.agg || f.agg->bucket_us != bucket) {
          if (f.agg) store_aggregate(db_, *f.agg);
          f.agg = load_bucket(db_, cur.node_guid, cur.port, bucket);
          if (!f.agg) f.agg = sample_fold::empty_hour(cur.node_guid, cur.port, bucket);
        }
        sample_fold::fold_sample(*f.agg, f.prev, cur);
        f.prev = cur;
      });
  for (const auto& [key, f] : folds)
    if (f.agg) store_aggregate(db_, *f.agg);
  return folded;
}

size_t SqliteStore::compact(int64_t now_us, const Retention& retention) {
  if (read_only_) throw StoreError("store " + db_.path() + ": opened read-only, cannot compact");
  return with_store_errors(db_.path(), "compact", [&] {
    size_t removed = 0;
    sqlite_detail::Transaction tx(db_);
    // The stage becomes a run of per-port blocks first, so folding reads blocks only.
    sample_tables::transpose(db_);
    removed += fold_samples(now_us - retention.raw_window_us);
    {
      // Drop an hour once all of it is past the aggregate window.
      auto s = db_.query("DELETE FROM sample_aggregates WHERE bucket_us <= ?1");
      s->bind(1, now_us - retention.aggregate_window_us - compact_detail::kHourUs);
      s->run();
      removed += static_cast<size_t>(db_.changes());
    }
    // Events, decisions and delivered webhook items share the event window (work orders stay:
    // one per link, they carry its repeat-offender count).
    for (const char* sql :
         {"DELETE FROM events WHERE time_us < ?1", "DELETE FROM decisions WHERE time_us < ?1",
          "DELETE FROM outbox WHERE delivered_us > 0 AND delivered_us < ?1"}) {
      auto s = db_.query(sql);
      s->bind(1, now_us - retention.event_window_us);
      s->run();
      removed += static_cast<size_t>(db_.changes());
    }
    tx.commit();
    return removed;
  });
}

std::vector<SampleAggregate> SqliteStore::aggregates(uint64_t node_guid, int port,
                                                     int64_t since_us) {
  auto s = db_.query(std::string("SELECT ") + compact_detail::kAggregateColumns +
                     " FROM sample_aggregates WHERE node_guid = ?1 AND port = ?2 AND "
                     "bucket_us + 3600000000 > ?3 ORDER BY bucket_us");
  s->bind_u64(1, node_guid);
  s->bind(2, int64_t{port});
  s->bind(3, since_us);
  std::vector<SampleAggregate> out;
  while (s->step()) out.push_back(compact_detail::read_aggregate(*s));
  return out;
}

}  // namespace ibw::store
