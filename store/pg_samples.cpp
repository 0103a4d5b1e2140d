#include "store/pg_samples.h"

#include <algorithm>
#include <limits>
#include <map>

#include "store/pg_binary.h"
#include "store/pg_rows.h"
#include "store/sample_codec.h"

namespace ibw::store::pg_samples {

namespace pg_samples_detail {

using pg_detail::ArrayBinary;
using pg_detail::ElemType;
using pg_detail::Params;
using pg_detail::Result;

// Chunks of one write, by partition (index: part_of), samples in batch order; most are empty
// when the write is small. A vector rather than a map: a sweep's 20,000 samples made as many
// tree lookups.
std::vector<SampleRefs> by_part(const SampleRefs& samples) {
  std::vector<SampleRefs> parts(kParts);
  for (const ingest::CounterSample* s : samples)
    parts[static_cast<size_t>(part_of(s->node_guid, s->port))].push_back(s);
  return parts;
}

std::pair<int64_t, int64_t> time_range(const std::vector<const ingest::CounterSample*>& v) {
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (const ingest::CounterSample* s : v) {
    lo = std::min(lo, s->time_us);
    hi = std::max(hi, s->time_us);
  }
  return {lo, hi};
}

bool by_port_time(const ingest::CounterSample& a, const ingest::CounterSample& b) {
  if (a.node_guid != b.node_guid) return a.node_guid < b.node_guid;
  if (a.port != b.port) return a.port < b.port;
  return a.time_us < b.time_us;
}

}  // namespace pg_samples_detail

using namespace pg_samples_detail;

int part_of(uint64_t node_guid, int port) {
  const uint64_t h = node_guid * 0x9E3779B97F4A7C15ULL +
                     static_cast<uint64_t>(static_cast<uint32_t>(port)) * 0xBF58476D1CE4E5B9ULL;
  return static_cast<int>((h ^ (h >> 31)) % kParts);
}

void send(pg_detail::Db& db, const std::string& fabric, const SampleRefs& samples) {
  if (samples.empty()) return;
  // unnest() of the arrays feeds the INSERT in array order, so ids follow partition order
  // within one write (any order is fine across partitions).
  static const std::string sql =
      "INSERT INTO sample_chunks (fabric, part, min_time_us, max_time_us, data) SELECT $1, t.* "
      "FROM unnest($2::integer[], $3::bigint[], $4::bigint[], $5::bytea[]) AS t";
  ArrayBinary part(ElemType::int4), lo(ElemType::int8), hi(ElemType::int8), data(ElemType::bytea);
  const std::vector<SampleRefs> parts = by_part(samples);
  for (int p = 0; p < kParts; ++p) {
    const SampleRefs& v = parts[static_cast<size_t>(p)];
    if (v.empty()) continue;
    const auto [a, b] = time_range(v);
    part.i32(p);
    lo.i64(a);
    hi.i64(b);
    data.bytes(sample_codec::encode_chunk(v));
  }
  db.send(sql, Params()
                   .text(fabric)
                   .binary(part.take())
                   .binary(lo.take())
                   .binary(hi.take())
                   .binary(data.take()));
}

std::vector<ingest::CounterSample> read(pg_detail::Db& db, const std::string& fabric,
                                        uint64_t node_guid, int port, int64_t since_us) {
  static const std::string sql =
      "SELECT data FROM sample_chunks WHERE fabric = $1 AND part = $2 AND max_time_us >= $3 "
      "ORDER BY id";
  const Result r = db.exec(sql, Params().text(fabric).i64(part_of(node_guid, port)).i64(since_us));
  std::vector<ingest::CounterSample> all, out;
  for (int i = 0; i < r.rows(); ++i) {
    all.clear();
    sample_codec::decode_chunk(r.bytea(i, 0), all);
    for (const ingest::CounterSample& s : all)
      if (s.node_guid == node_guid && s.port == port && s.time_us >= since_us) out.push_back(s);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.time_us < b.time_us; });
  return out;
}

size_t take_older(pg_detail::Db& db, const std::string& fabric, int64_t cutoff_us,
                  const std::function<void(const std::vector<ingest::CounterSample>&)>& fold) {
  const Result parts = db.exec(
      "SELECT DISTINCT part FROM sample_chunks WHERE fabric = $1 AND min_time_us < $2 ORDER BY 1",
      Params().text(fabric).i64(cutoff_us));
  size_t taken = 0;
  std::vector<ingest::CounterSample> all, old;
  std::vector<const ingest::CounterSample*> keep;
  for (int p = 0; p < parts.rows(); ++p) {
    const Result r = db.exec(
        "SELECT id, data FROM sample_chunks WHERE fabric = $1 AND part = $2 AND min_time_us < $3 "
        "ORDER BY id",
        Params().text(fabric).i64(parts.i64(p, 0)).i64(cutoff_us));
    old.clear();
    ArrayBinary gone(ElemType::int8);
    for (int i = 0; i < r.rows(); ++i) {
      all.clear();
      keep.clear();
      sample_codec::decode_chunk(r.bytea(i, 1), all);
      for (const ingest::CounterSample& s : all) {
        if (s.time_us < cutoff_us)
          old.push_back(s);
        else
          keep.push_back(&s);
      }
      if (keep.empty()) {
        gone.i64(r.i64(i, 0));
        continue;
      }
      const auto [lo, hi] = time_range(keep);
      db.exec(
          "UPDATE sample_chunks SET min_time_us = $3, max_time_us = $4, data = $5 WHERE "
          "fabric = $1 AND id = $2",
          Params()
              .text(fabric)
              .i64(r.i64(i, 0))
              .i64(lo)
              .i64(hi)
              .binary(sample_codec::encode_chunk(keep)));
    }
    if (gone.size() > 0)
      db.exec(
          "DELETE FROM sample_chunks WHERE fabric = $1 AND part = $2 AND id = ANY($3::bigint[])",
          Params().text(fabric).i64(parts.i64(p, 0)).binary(gone.take()));
    std::stable_sort(old.begin(), old.end(), by_port_time);
    taken += old.size();
    if (!old.empty()) fold(old);
  }
  return taken;
}

void convert_legacy(pg_detail::Db& db) {
  // Keyset pages in the old index's order (fabric, port, time, id): write order among equal
  // times is kept, as each page's chunks get ids after the previous page's.
  constexpr int kPage = 50000;
  static const std::string sql =
      "SELECT fabric, " + pg_rows::names(pg_rows::kSampleCols) +
      ", id FROM samples WHERE (fabric, node_guid, port, time_us, id) > ($1, $2, $3, $4, $5) "
      "ORDER BY fabric, node_guid, port, time_us, id LIMIT " +
      std::to_string(kPage);
  std::string fabric;
  int64_t after[4] = {std::numeric_limits<int64_t>::min(), std::numeric_limits<int32_t>::min(),
                      std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min()};
  for (;;) {
    const Result r =
        db.exec(sql, Params().text(fabric).i64(after[0]).i64(after[1]).i64(after[2]).i64(after[3]));
    std::map<std::string, std::vector<ingest::CounterSample>> page;
    for (int i = 0; i < r.rows(); ++i) page[r.str(i, 0)].push_back(pg_rows::read_sample(r, i, 1));
    for (const auto& [f, samples] : page) send(db, f, sample_refs(samples));
    if (r.rows() < kPage) break;
    const int last = r.rows() - 1;
    fabric = r.str(last, 0);
    after[0] = r.i64(last, 1);
    after[1] = r.i64(last, 2);
    after[2] = r.i64(last, 3);
    after[3] = r.i64(last, 1 + static_cast<int>(pg_rows::kSampleCols.size()));
  }
}

}  // namespace ibw::store::pg_samples
