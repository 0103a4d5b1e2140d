// PgStore::write and the core rows of a batch: one transaction (after the fence check), each
// kind of row written with one statement per chunk of rows, whole columns passed as array
// parameters and unnest()ed (see pg_rows.h), instead of one round trip per row. A counter
// sweep, the largest write, skips the server's text parsing: the counter state of ports goes
// as binary blobs per partition (store/port_state.h), samples as packed chunks
// (store/pg_samples.h).
#include <algorithm>
#include <map>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/pg_binary.h"
#include "store/pg_fields.h"
#include "store/pg_rows.h"
#include "store/pg_samples.h"
#include "store/pg_store.h"
#include "store/port_state.h"
#include "store/write_rules.h"

namespace ibw::store {

namespace pg_write_detail {

using pg_detail::ArrayText;
using pg_detail::Db;
using pg_detail::Params;
using pg_detail::Result;
using pg_rows::Col;

constexpr size_t kChunkRows = 20000;  // rows per statement (bounds the size of one message)

template <typename T>
const T& row_at(const T& v) {
  return v;
}
template <typename T>
const T& row_at(const T* p) {
  return *p;
}

// Runs `sql` over rows (values or pointers to them) in chunks: fill(row, columns) appends one
// row to the column arrays; done(chunk_first, result) sees each chunk's result.
template <typename Rows, typename Fill, typename Done>
void bulk(Db& db, const std::string& sql, const std::string& fabric, const Rows& rows, size_t ncols,
          Fill fill, Done done) {
  std::vector<ArrayText> cols(ncols);
  for (size_t first = 0; first < rows.size(); first += kChunkRows) {
    const size_t end = std::min(rows.size(), first + kChunkRows);
    for (size_t i = first; i < end; ++i) fill(row_at(rows[i]), cols);
    done(first, db.exec(sql, pg_detail::fabric_and_arrays(fabric, cols)));
  }
}

template <typename Rows, typename Fill>
void bulk(Db& db, const std::string& sql, const std::string& fabric, const Rows& rows, size_t ncols,
          Fill fill) {
  bulk(db, sql, fabric, rows, ncols, fill, [](size_t, const Result&) {});
}

// The rows of `rows` keyed by key(row), the last one of each key kept (what a row-by-row
// upsert leaves), in first-seen order. A key repeated in one INSERT .. ON CONFLICT DO UPDATE
// is an error in PostgreSQL.
template <typename T, typename Key, typename KeyOf>
std::vector<const T*> last_per_key(const std::vector<T>& rows, KeyOf key_of) {
  std::map<Key, size_t> last;
  for (size_t i = 0; i < rows.size(); ++i) last[key_of(rows[i])] = i;
  std::vector<const T*> out;
  out.reserve(last.size());
  for (size_t i = 0; i < rows.size(); ++i)
    if (last.size() == rows.size() || last[key_of(rows[i])] == i) out.push_back(&rows[i]);
  return out;
}

using PortKey = std::pair<uint64_t, int>;

void fill_event(const ingest::Event& e, std::vector<ArrayText>& c) {
  c[0].i64(e.time_us);
  c[1].text(ingest::source_name(e.source));
  c[2].text(e.kind);
  c[3].i64(static_cast<int64_t>(e.severity));
  c[4].u64(e.node_guid);
  c[5].i64(e.port);
  c[6].i64(e.lid);
  c[7].i64(e.trap_number);
  c[8].text(e.message);
  c[9].text(e.node);
  c[10].text(e.peer_node);
  c[11].i64(e.peer_port);
  c[12].u64(e.peer_guid);
  c[13].text(e.cable_id);
  if (e.dedup_key.empty())
    c[14].null();
  else
    c[14].text(e.dedup_key);
}

void fill_port(const PortRecord& p, std::vector<ArrayText>& c) {
  c[0].u64(p.node_guid);
  c[1].i64(p.port);
  c[2].text(p.node);
  c[3].i64(p.lid);
  c[4].u64(p.peer_guid);
  c[5].text(p.peer_node);
  c[6].i64(p.peer_port);
  c[7].text(p.cable_id);
  c[8].i64(p.state);
  c[9].i64(p.phys_state);
  c[10].i64(p.width);
  c[11].text(p.speed);
  c[12].i64(p.last_change_us);
}

struct Sql {
  std::string events, ports, ufm_ports, ufm_removed, cursors;
};

const Sql& sql() {
  using namespace pg_rows;
  static const Sql s = [] {
    Sql q;
    q.events = "INSERT INTO events (fabric, " + names(kEventCols) + ") " +
               unnest_select(kEventCols, true) +
               " ON CONFLICT (fabric, dedup_key) DO NOTHING RETURNING id, dedup_key";
    q.ports = "INSERT INTO ports (fabric, " + names(kPortCols) + ") " +
              unnest_select(kPortCols, false) +
              " ON CONFLICT (fabric, node_guid, port) DO UPDATE SET " + set_excluded(kPortCols);
    q.ufm_ports = "INSERT INTO ufm_ports (fabric, " + names(pg_rows::ufm_cols()) + ") " +
                  unnest_select(pg_rows::ufm_cols(), false) +
                  " ON CONFLICT (fabric, node_guid, port) DO UPDATE SET " +
                  set_excluded(pg_rows::ufm_cols());
    q.ufm_removed =
        "DELETE FROM ufm_ports u USING unnest($2::bigint[], $3::integer[]) AS t(node_guid, port) "
        "WHERE u.fabric = $1 AND u.node_guid = t.node_guid AND u.port = t.port";
    q.cursors =
        "INSERT INTO cursors (fabric, source, value) SELECT $1, t.source, t.value FROM "
        "unnest($2::text[], $3::text[]) AS t(source, value) "
        "ON CONFLICT (fabric, source) DO UPDATE SET value = excluded.value";
    return q;
  }();
  return s;
}

// Ids of inserted events, in batch order: the RETURNING rows (id order is insert order, which
// is batch order) matched greedily to the batch's events; a skipped duplicate gets 0.
void map_event_ids(std::span<const ingest::Event> events, size_t first, const Result& r,
                   WriteResult& result) {
  std::vector<std::pair<int64_t, int>> ret;  // id, row
  for (int i = 0; i < r.rows(); ++i) ret.emplace_back(r.i64(i, 0), i);
  std::sort(ret.begin(), ret.end());
  size_t j = 0;
  const size_t end = std::min(events.size(), first + kChunkRows);
  for (size_t i = first; i < end; ++i) {
    const std::string& key = events[i].dedup_key;
    bool match = false;
    if (j < ret.size()) {
      const int row = ret[j].second;
      match = key.empty() ? r.is_null(row, 1) : (!r.is_null(row, 1) && r.text(row, 1) == key);
    }
    result.event_ids.push_back(match ? ret[j++].first : 0);
    if (match) ++result.events_inserted;
  }
}

}  // namespace pg_write_detail

WriteResult PgStore::write(const WriteBatch& batch) {
  WriteResult result;
  if (empty_batch(batch)) return result;
  check_writable();
  return with_store_errors(db_.server(), "write", [&] {
    pg_detail::Transaction tx(db_);
    check_fence();
    write_rows(batch, result);
    tx.commit();
    return result;
  });
}

void PgStore::write_rows(const WriteBatch& batch, WriteResult& result) {
  using namespace pg_write_detail;
  const Sql& q = sql();
  result.event_ids.reserve(batch.events.size());
  bulk(db_, q.events, fabric_, std::span(batch.events), pg_rows::kEventCols.size(), fill_event,
       [&](size_t first, const Result& r) {
         map_event_ids(std::span(batch.events), first, r, result);
       });
  // The samples' INSERT runs in the server while the counter state of the batch's ports,
  // then of its readings, is packed per partition here (a 20,000-port sweep: 3-4 ms of each).
  pg_samples::send(db_, fabric_, stored_samples(batch));
  port_state::Updates states;
  states.reserve(batch.ports.size() + batch.port_counters.size());
  for (const PortRecord& p : batch.ports) states.add(p);
  for (const ingest::CounterDelta& d : batch.port_counters) states.add(d);
  if (!batch.ports.empty()) {
    const auto ports = last_per_key<PortRecord, PortKey>(batch.ports, [](const PortRecord& p) {
      return PortKey{p.node_guid, p.port};
    });
    bulk(db_, q.ports, fabric_, std::span(ports), pg_rows::kPortCols.size(), fill_port);
  }
  port_state::write(db_, fabric_, states);
  if (!batch.ufm_ports.empty()) {
    const auto ufm = last_per_key<ingest::UfmPortState, PortKey>(
        batch.ufm_ports, [](const ingest::UfmPortState& u) {
          return PortKey{u.node_guid, u.port};
        });
    bulk(db_, q.ufm_ports, fabric_, std::span(ufm), pg_rows::ufm_cols().size(),
         pg_detail::fill_row<columns::UfmPorts>);
  }
  bulk(db_, q.ufm_removed, fabric_, std::span(batch.ufm_ports_removed), 2,
       [](const std::pair<uint64_t, int>& k, std::vector<ArrayText>& c) {
         c[0].u64(k.first);
         c[1].i64(k.second);
       });
  if (!batch.cursors.empty()) {
    using Cursor = std::pair<std::string, std::string>;
    const auto cursors =
        last_per_key<Cursor, std::string>(batch.cursors, [](const Cursor& c) { return c.first; });
    bulk(db_, q.cursors, fabric_, std::span(cursors), 2,
         [](const Cursor& k, std::vector<ArrayText>& c) {
           c[0].text(k.first);
           c[1].text(k.second);
         });
  }
  write_remedy_rows(batch, result);
}

}  // namespace ibw::store
