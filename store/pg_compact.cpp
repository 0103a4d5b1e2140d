// PgStore::compact and the hourly aggregates it maintains, with SqliteStore::compact's semantics
// (store/sqlite_compact.cpp, store.h SampleAggregate): raw samples older than the raw window are
// folded, port by port in time order, into (port, hour) rows; a bucket that already has a row is
// merged into, and a port's first sample of a run is compared with the last sample already
// folded (the newest aggregate at or before its hour), so no interval is lost between runs.
// The old samples are taken out of the packed chunks one partition of ports at a time
// (pg_samples::take_older), the aggregates a partition needs are loaded in two queries, and the
// results are upserted in bulk, so memory is O(one partition's old samples) and round trips
// O(partitions).
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "store/pg_binary.h"
#include "store/pg_fields.h"
#include "store/pg_rows.h"
#include "store/pg_samples.h"
#include "store/pg_store.h"
#include "store/sample_fold.h"
#include "store/write_rules.h"

namespace ibw::store {

namespace pg_compact_detail {

using pg_detail::ArrayText;
using pg_detail::Params;
using pg_detail::Result;

using sample_fold::hour_of;
using sample_fold::kAggregateColumns;
using sample_fold::kHourUs;

constexpr size_t kFlushRows = 20000;

// The hour (start) of a time column in SQL, floored also before 1970.
#define IBW_PG_HOUR(t) "(" t " - (((" t " % 3600000000) + 3600000000) % 3600000000))"

SampleAggregate read_aggregate(const Result& r, int row) {
  return row_read::aggregate(pg_detail::PgRow{r, row});
}

using PortKey = std::pair<uint64_t, int>;
using BucketKey = std::tuple<uint64_t, int, int64_t>;

// Upserts aggregates (each (port, bucket) at most once per call).
void store_aggregates(pg_detail::Db& db, const std::string& fabric,
                      std::vector<SampleAggregate>& aggs) {
  if (aggs.empty()) return;
  static const std::string sql =
      std::string("INSERT INTO sample_aggregates (fabric, ") + kAggregateColumns +
      ") SELECT $1, t.node_guid, t.port, t.bucket_us, t.sample_count, t.first_time_us, "
      "t.last_time_us, t.last_values::bigint[], t.last_valid, t.last_saturated, t.last_extended, "
      "t.max_delta::bigint[], t.delta_valid FROM unnest($2::bigint[], $3::integer[], "
      "$4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[], $9::bigint[], "
      "$10::bigint[], $11::boolean[], $12::text[], $13::bigint[]) AS t(" +
      kAggregateColumns +
      ") ON CONFLICT (fabric, node_guid, port, bucket_us) DO UPDATE SET sample_count = "
      "excluded.sample_count, first_time_us = excluded.first_time_us, last_time_us = "
      "excluded.last_time_us, last_values = excluded.last_values, last_valid = "
      "excluded.last_valid, last_saturated = excluded.last_saturated, last_extended = "
      "excluded.last_extended, max_delta = excluded.max_delta, delta_valid = excluded.delta_valid";
  std::vector<ArrayText> c(12);
  for (const SampleAggregate& a : aggs) {
    c[0].u64(a.node_guid);
    c[1].i64(a.port);
    c[2].i64(a.bucket_us);
    c[3].i64(a.sample_count);
    c[4].i64(a.first_time_us);
    c[5].i64(a.last.time_us);
    c[6].text(pg_rows::values_text(a.last.value));
    c[7].i64(a.last.valid);
    c[8].i64(a.last.saturated);
    c[9].text(a.last.extended ? "t" : "f");
    c[10].text(pg_rows::values_text(a.max_delta));
    c[11].i64(a.delta_valid);
  }
  Params p;
  p.text(fabric);
  for (ArrayText& a : c) p.text(a.take());
  db.exec(sql, p);
  aggs.clear();
}

}  // namespace pg_compact_detail

namespace pg_compact_detail {

// The aggregates one partition's fold needs: per port, the newest aggregate at or before the
// hour of its first sample (its last sample folded earlier), and the rows of the hours its
// samples fall in (to merge into). old: sorted by port, then time.
void load_aggregates(pg_detail::Db& db, const std::string& fabric,
                     const std::vector<ingest::CounterSample>& old,
                     std::map<PortKey, ingest::CounterSample>& prev_of,
                     std::map<BucketKey, SampleAggregate>& existing) {
  using pg_detail::ArrayBinary;
  using pg_detail::ElemType;
  ArrayBinary fg(ElemType::int8), fp(ElemType::int4), ft(ElemType::int8);
  ArrayBinary bg(ElemType::int8), bp(ElemType::int4), bb(ElemType::int8);
  std::optional<BucketKey> last;
  for (const ingest::CounterSample& s : old) {
    const BucketKey k{s.node_guid, s.port, hour_of(s.time_us)};
    if (!last || std::get<0>(*last) != s.node_guid || std::get<1>(*last) != s.port) {
      fg.u64(s.node_guid);
      fp.i32(s.port);
      ft.i64(s.time_us);
    }
    if (!last || *last != k) {
      bg.u64(s.node_guid);
      bp.i32(s.port);
      bb.i64(std::get<2>(k));
    }
    last = k;
  }
  static const std::string prev_sql =
      "SELECT a.* FROM unnest($2::bigint[], $3::integer[], $4::bigint[]) AS f(node_guid, port, "
      "t) CROSS JOIN LATERAL (SELECT " +
      std::string(kAggregateColumns) +
      " FROM sample_aggregates a WHERE a.fabric = $1 AND a.node_guid = f.node_guid AND a.port = "
      "f.port AND a.bucket_us <= " IBW_PG_HOUR("f.t") " ORDER BY a.bucket_us DESC LIMIT 1) a";
  const Result r = db.exec(
      prev_sql, Params().text(fabric).binary(fg.take()).binary(fp.take()).binary(ft.take()));
  for (int i = 0; i < r.rows(); ++i) {
    SampleAggregate a = read_aggregate(r, i);
    prev_of[{a.node_guid, a.port}] = a.last;
  }
  static const std::string existing_sql =
      std::string("SELECT ") + kAggregateColumns +
      " FROM sample_aggregates WHERE fabric = $1 AND (node_guid, port, bucket_us) IN (SELECT * "
      "FROM unnest($2::bigint[], $3::integer[], $4::bigint[]))";
  const Result e = db.exec(
      existing_sql, Params().text(fabric).binary(bg.take()).binary(bp.take()).binary(bb.take()));
  for (int i = 0; i < e.rows(); ++i) {
    SampleAggregate a = read_aggregate(e, i);
    existing[{a.node_guid, a.port, a.bucket_us}] = a;
  }
}

}  // namespace pg_compact_detail

size_t PgStore::fold_samples(int64_t cutoff_us) {
  using namespace pg_compact_detail;
  std::vector<SampleAggregate> out;
  auto fold = [&](const std::vector<ingest::CounterSample>& old) {
    std::map<PortKey, ingest::CounterSample> prev_of;
    std::map<BucketKey, SampleAggregate> existing;
    load_aggregates(db_, fabric_, old, prev_of, existing);
    std::optional<PortKey> port;                // the port being folded
    std::optional<ingest::CounterSample> prev;  // its last sample folded
    std::optional<SampleAggregate> agg;         // its hour being folded
    auto flush_agg = [&] {
      if (agg) out.push_back(*agg);
      agg.reset();
      if (out.size() >= kFlushRows) store_aggregates(db_, fabric_, out);
    };
    for (const ingest::CounterSample& cur : old) {
      const PortKey k{cur.node_guid, cur.port};
      const int64_t bucket = hour_of(cur.time_us);
      if (!port || *port != k) {
        flush_agg();
        port = k;
        prev.reset();
        if (auto it = prev_of.find(k); it != prev_of.end() && it->second.time_us <= cur.time_us)
          prev = it->second;  // (a later one: a late sample has no base)
      }
      if (!agg || agg->bucket_us != bucket) {
        flush_agg();
        auto it = existing.find({k.first, k.second, bucket});
        agg =
            it != existing.end() ? it->second : sample_fold::empty_hour(k.first, k.second, bucket);
      }
      sample_fold::fold_sample(*agg, prev, cur);
      prev = cur;
    }
    flush_agg();
  };
  const size_t folded = pg_samples::take_older(db_, fabric_, cutoff_us, fold);
  store_aggregates(db_, fabric_, out);
  return folded;
}

size_t PgStore::compact(int64_t now_us, const Retention& retention) {
  if (read_only_) throw StoreError("store " + db_.server() + ": opened read-only, cannot compact");
  return with_store_errors(db_.server(), "compact", [&] {
    size_t removed = 0;
    pg_detail::Transaction tx(db_);
    check_fence();
    removed += fold_samples(now_us - retention.raw_window_us);
    // Drop an hour once all of it is past the aggregate window.
    removed += static_cast<size_t>(
        db_.exec("DELETE FROM sample_aggregates WHERE fabric = $1 AND bucket_us <= $2",
                 pg_detail::Params().text(fabric_).i64(now_us - retention.aggregate_window_us -
                                                       pg_compact_detail::kHourUs))
            .affected());
    // Events, decisions and delivered webhook items share the event window (work orders stay).
    for (const char* sql : {"DELETE FROM events WHERE fabric = $1 AND time_us < $2",
                            "DELETE FROM decisions WHERE fabric = $1 AND time_us < $2",
                            "DELETE FROM outbox WHERE fabric = $1 AND delivered_us > 0 AND "
                            "delivered_us < $2"})
      removed += static_cast<size_t>(
          db_.exec(sql, pg_detail::Params().text(fabric_).i64(now_us - retention.event_window_us))
              .affected());
    tx.commit();
    return removed;
  });
}

std::vector<SampleAggregate> PgStore::aggregates(uint64_t node_guid, int port, int64_t since_us) {
  static const std::string sql = std::string("SELECT ") + pg_compact_detail::kAggregateColumns +
                                 " FROM sample_aggregates WHERE fabric = $1 AND node_guid = $2 "
                                 "AND port = $3 AND bucket_us + 3600000000 > $4 ORDER BY bucket_us";
  const pg_detail::Result r =
      db_.exec(sql, pg_detail::Params().text(fabric_).u64(node_guid).i64(port).i64(since_us));
  std::vector<SampleAggregate> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(pg_compact_detail::read_aggregate(r, i));
  return out;
}

}  // namespace ibw::store

#undef IBW_PG_HOUR
