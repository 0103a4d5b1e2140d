#include "store/sample_tables.h"

#include <algorithm>
#include <array>
#include <set>
#include <string>

#include "store/sample_codec.h"
#include "store/sqlite_fields.h"

namespace ibw::store::sample_tables {

namespace tables_detail {

using sqlite_detail::Db;
using sqlite_detail::SqliteRow;

constexpr int kParts = 256;
constexpr size_t kMaxRunTimes = 4096;  // a run with more distinct shared times keeps none

void insert_chunk(Db& db, int part, const SampleRefs& refs) {
  if (refs.empty()) return;
  int64_t first = refs.front()->time_us, last = first;
  for (const auto* s : refs) {
    first = std::min(first, s->time_us);
    last = std::max(last, s->time_us);
  }
  auto q = db.query(
      "INSERT INTO sample_stage (part, first_time_us, last_time_us, count, data) "
      "VALUES (?1, ?2, ?3, ?4, ?5)");
  q->bind(1, int64_t{part});
  q->bind(2, first);
  q->bind(3, last);
  q->bind(4, static_cast<int64_t>(refs.size()));
  q->bind_blob(5, sample_codec::encode_chunk(refs));
  q->run();
}

bool by_port_then_time(const ingest::CounterSample& a, const ingest::CounterSample& b) {
  if (a.node_guid != b.node_guid) return a.node_guid < b.node_guid;
  if (a.port != b.port) return a.port < b.port;
  return a.time_us < b.time_us;
}

struct Run {
  int64_t run = 0;
  int64_t first_time_us = 0;
  int64_t last_time_us = 0;
  std::string times_blob;
  std::vector<int64_t> times;
};

int64_t next_run_id(Db& db) {
  auto q = db.query("SELECT coalesce(max(run), 0) + 1 FROM sample_runs");
  q->step();
  return q->column_int64(0);
}

void insert_run(Db& db, const Run& r) {
  auto q = db.query(
      "INSERT INTO sample_runs (run, first_time_us, last_time_us, times) VALUES (?1, ?2, ?3, ?4)");
  q->bind(1, r.run);
  q->bind(2, r.first_time_us);
  q->bind(3, r.last_time_us);
  q->bind_blob(4, r.times_blob);
  q->run();
}

void insert_block(Db& db, int64_t run, int part, const ingest::CounterSample* s, size_t n,
                  const std::vector<int64_t>& times) {
  auto q = db.query(
      "INSERT INTO sample_blocks (run, part, node_guid, port, data) VALUES (?1, ?2, ?3, ?4, ?5)");
  q->bind(1, run);
  q->bind(2, int64_t{part});
  q->bind_u64(3, s->node_guid);
  q->bind(4, int64_t{s->port});
  q->bind_blob(5, sample_codec::encode_block(s, n, times));
  q->run();
}

// The stage rows of one partition, decoded in write order.
std::vector<ingest::CounterSample> stage_of(Db& db, int part, int64_t since_us) {
  std::vector<ingest::CounterSample> out;
  auto q =
      db.query("SELECT data FROM sample_stage WHERE part = ?1 AND last_time_us >= ?2 ORDER BY id");
  q->bind(1, int64_t{part});
  q->bind(2, since_us);
  while (q->step()) sample_codec::decode_chunk(q->column_blob(0), out);
  return out;
}

std::vector<Run> runs_where(Db& db, const char* where, int64_t t) {
  std::vector<Run> out;
  auto q = db.query(std::string("SELECT run, first_time_us, last_time_us, times FROM sample_runs "
                                "WHERE ") +
                    where + " ORDER BY first_time_us, run");
  q->bind(1, t);
  while (q->step()) {
    Run& r = out.emplace_back();
    r.run = q->column_int64(0);
    r.first_time_us = q->column_int64(1);
    r.last_time_us = q->column_int64(2);
    r.times_blob = std::string(q->column_blob(3));
    r.times = sample_codec::decode_times(r.times_blob);
  }
  return out;
}

}  // namespace tables_detail

using namespace tables_detail;

int part_of(uint64_t node_guid, int port) {
  const uint64_t h = node_guid * 0x9E3779B97F4A7C15ULL +
                     static_cast<uint64_t>(static_cast<uint32_t>(port)) * 0xBF58476D1CE4E5B9ULL;
  return static_cast<int>((h ^ (h >> 29)) >> 56);
}

void stage(Db& db, const SampleRefs& samples, const std::function<void()>& row_written) {
  if (samples.empty()) return;
  std::array<SampleRefs, kParts> parts;
  for (const ingest::CounterSample* s : samples) {
    parts[static_cast<size_t>(part_of(s->node_guid, s->port))].push_back(s);
    row_written();
  }
  for (int p = 0; p < kParts; ++p) insert_chunk(db, p, parts[static_cast<size_t>(p)]);
}

std::vector<ingest::CounterSample> read(Db& db, uint64_t node_guid, int port, int64_t since_us) {
  std::vector<ingest::CounterSample> out;
  const int part = part_of(node_guid, port);
  for (const Run& r : runs_where(db, "last_time_us >= ?1", since_us)) {
    auto q = db.query(
        "SELECT data FROM sample_blocks WHERE run = ?1 AND part = ?2 AND node_guid = ?3 AND "
        "port = ?4");
    q->bind(1, r.run);
    q->bind(2, int64_t{part});
    q->bind_u64(3, node_guid);
    q->bind(4, int64_t{port});
    if (q->step()) sample_codec::decode_block(q->column_blob(0), node_guid, port, r.times, out);
  }
  for (const ingest::CounterSample& s : stage_of(db, part, since_us))
    if (s.node_guid == node_guid && s.port == port) out.push_back(s);
  std::erase_if(out, [&](const ingest::CounterSample& s) { return s.time_us < since_us; });
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.time_us < b.time_us; });
  return out;
}

size_t transpose(Db& db) {
  Run run;
  {
    // Times shared by a whole stage row (a telemetry scrape stamps every port alike) become
    // the run's list; blocks read at exactly those times then store only an index.
    std::set<int64_t> shared;
    bool any = false;
    auto q = db.query("SELECT first_time_us, last_time_us FROM sample_stage");
    while (q->step()) {
      const int64_t first = q->column_int64(0), last = q->column_int64(1);
      run.first_time_us = any ? std::min(run.first_time_us, first) : first;
      run.last_time_us = any ? std::max(run.last_time_us, last) : last;
      any = true;
      if (first == last && shared.size() <= kMaxRunTimes) shared.insert(first);
    }
    if (!any) return 0;
    if (shared.size() <= kMaxRunTimes) run.times.assign(shared.begin(), shared.end());
  }
  run.run = next_run_id(db);
  run.times_blob = sample_codec::encode_times(run.times);
  insert_run(db, run);
  size_t moved = 0;
  for (int p = 0; p < kParts; ++p) {
    std::vector<ingest::CounterSample> all = stage_of(db, p, INT64_MIN);
    std::stable_sort(all.begin(), all.end(), by_port_then_time);
    for (size_t i = 0; i < all.size();) {
      size_t j = i + 1;
      while (j < all.size() && all[j].node_guid == all[i].node_guid && all[j].port == all[i].port)
        ++j;
      insert_block(db, run.run, p, &all[i], j - i, run.times);
      i = j;
    }
    moved += all.size();
  }
  db.exec("DELETE FROM sample_stage");
  return moved;
}

size_t take_older(Db& db, int64_t cutoff_us,
                  const std::function<void(const ingest::CounterSample&)>& fold) {
  size_t taken = 0;
  for (const Run& r : runs_where(db, "first_time_us < ?1", cutoff_us)) {
    Run rest{0, cutoff_us, r.last_time_us, r.times_blob, r.times};
    bool has_rest = false;
    std::vector<ingest::CounterSample> samples;
    auto q = db.query(
        "SELECT part, node_guid, port, data FROM sample_blocks WHERE run = ?1 "
        "ORDER BY part, node_guid, port");
    q->bind(1, r.run);
    while (q->step()) {
      samples.clear();
      const int part = q->column_int(0);
      sample_codec::decode_block(q->column_blob(3), q->column_u64(1), q->column_int(2), r.times,
                                 samples);
      size_t old = 0;
      while (old < samples.size() && samples[old].time_us < cutoff_us) fold(samples[old++]);
      taken += old;
      if (old == samples.size()) continue;
      if (!has_rest) {
        rest.run = next_run_id(db);
        rest.first_time_us = samples[old].time_us;
        insert_run(db, rest);
        has_rest = true;
      }
      rest.first_time_us = std::min(rest.first_time_us, samples[old].time_us);
      insert_block(db, rest.run, part, &samples[old], samples.size() - old, rest.times);
    }
    for (const char* sql :
         {"DELETE FROM sample_blocks WHERE run = ?1", "DELETE FROM sample_runs WHERE run = ?1"}) {
      auto d = db.query(sql);
      d->bind(1, r.run);
      d->run();
    }
    if (has_rest) {
      auto u = db.query("UPDATE sample_runs SET first_time_us = ?2 WHERE run = ?1");
      u->bind(1, rest.run);
      u->bind(2, rest.first_time_us);
      u->run();
    }
  }
  return taken;
}

void convert_legacy(Db& db) {
  std::vector<ingest::CounterSample> batch;
  auto flush = [&] {
    stage(db, sample_refs(batch), [] {});
    batch.clear();
  };
  auto q = db.query(
      "SELECT node_guid, port, time_us, counter_values, valid, saturated, extended FROM samples "
      "ORDER BY time_us, rowid");
  while (q->step()) {
    batch.push_back(row_read::sample(SqliteRow{*q}));
    if (batch.size() >= 65536) flush();
  }
  flush();
}

}  // namespace ibw::store::sample_tables
