// PgStore reads of the core tables: events, ports (with UFM's view), ufm_ports, cursors and raw
// samples, each only of this store's fabric. Orders match SqliteStore's; names sort bytewise
// (COLLATE "C"), as SQLite's BINARY collation does, whatever the database's collation.
#include <algorithm>
#include <limits>
#include <optional>

#include "fabric/model.h"
#include "store/pg_rows.h"
#include "store/pg_samples.h"
#include "store/pg_store.h"
#include "store/port_state.h"

namespace ibw::store {

namespace pg_read_detail {

const std::string& events_sql(bool by_node, bool by_port) {
  static const std::string base = "SELECT id, " + pg_rows::names(pg_rows::kEventCols) +
                                  " FROM events WHERE fabric = $1 AND time_us >= $2 AND id > $3";
  static const std::string tail = " ORDER BY id LIMIT $4";
  static const std::string all = base + tail;
  static const std::string node = base + " AND node_guid = $5" + tail;
  static const std::string port = base + " AND node_guid = $5 AND port = $6" + tail;
  return by_port ? port : by_node ? node : all;
}

const std::string& ports_sql(bool filtered) {
  static const std::string from =
      "SELECT " + pg_rows::names(pg_rows::kPortCols, "p.") + ", " +
      pg_rows::names(pg_rows::ufm_cols(), "u.") +
      " FROM ports p LEFT JOIN ufm_ports u ON u.fabric = p.fabric AND u.node_guid = p.node_guid "
      "AND u.port = p.port WHERE p.fabric = $1";
  static const std::string order = " ORDER BY p.node COLLATE \"C\", p.port, p.node_guid";
  static const std::string all = from + order;
  static const std::string some = from + " AND (p.node = $2 OR p.node_guid = $3)" + order;
  return filtered ? some : all;
}

}  // namespace pg_read_detail

std::vector<StoredEvent> PgStore::events(const EventQuery& q) {
  const bool by_node = q.node_guid != 0;
  const bool by_port = by_node && q.port >= 0;
  pg_detail::Params p;
  p.text(fabric_).i64(q.since_us).i64(q.after_id);
  const auto max_limit = static_cast<size_t>(std::numeric_limits<int64_t>::max());
  if (q.limit == 0)
    p.null();  // LIMIT NULL: no limit
  else
    p.i64(static_cast<int64_t>(std::min(q.limit, max_limit)));
  if (by_node) p.u64(q.node_guid);
  if (by_port) p.i64(q.port);
  const pg_detail::Result r = db_.exec(pg_read_detail::events_sql(by_node, by_port), p);
  std::vector<StoredEvent> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.push_back(pg_rows::read_event(r, i));
  return out;
}

std::vector<PortRecord> PgStore::ports(const std::string& node_filter) {
  const bool filtered = !node_filter.empty();
  pg_detail::Params p;
  p.text(fabric_);
  if (filtered) {
    p.text(node_filter);
    const bool hex = node_filter.size() > 2 && node_filter[0] == '0' &&
                     (node_filter[1] == 'x' || node_filter[1] == 'X');
    if (auto guid = hex ? fabric::parse_guid(node_filter) : std::nullopt)
      p.u64(*guid);
    else
      p.null();
  }
  // The rows and the partitions of their counter state from one snapshot (unless the caller's
  // transaction is open already, e.g. write_guarded's decide).
  std::optional<pg_detail::Transaction> tx;
  if (!db_.in_transaction()) tx.emplace(db_, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  std::vector<PortRecord> out;
  {
    const pg_detail::Result r = db_.exec(pg_read_detail::ports_sql(filtered), p);
    out.reserve(static_cast<size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i) out.push_back(pg_rows::read_port(r, i));
  }
  port_state::fill(db_, fabric_, out);
  if (tx) tx->commit();
  return out;
}

std::vector<ingest::UfmPortState> PgStore::ufm_ports() {
  static const std::string sql = "SELECT " + pg_rows::names(pg_rows::ufm_cols()) +
                                 " FROM ufm_ports WHERE fabric = $1 ORDER BY node_guid, port";
  const pg_detail::Result r = db_.exec(sql, pg_detail::Params().text(fabric_));
  std::vector<ingest::UfmPortState> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.push_back(pg_rows::read_ufm_port(r, i, 0));
  return out;
}

std::optional<std::string> PgStore::cursor(const std::string& source) {
  const pg_detail::Result r =
      db_.exec("SELECT value FROM cursors WHERE fabric = $1 AND source = $2",
               pg_detail::Params().text(fabric_).text(source));
  if (r.rows() == 0) return std::nullopt;
  return r.str(0, 0);
}

std::vector<ingest::CounterSample> PgStore::samples(uint64_t node_guid, int port,
                                                    int64_t since_us) {
  return pg_samples::read(db_, fabric_, node_guid, port, since_us);
}

}  // namespace ibw::store
