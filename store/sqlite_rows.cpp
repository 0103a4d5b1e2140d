#include "store/sqlite_rows.h"

#include <array>
#include <charconv>

#include "store/sqlite_fields.h"

namespace ibw::store::rows {

using sqlite_detail::Statement;

// Column lists shared by INSERT and SELECT so bind and read orders cannot drift apart.
constexpr const char* kEventColumns =
    "time_us, source, kind, severity, node_guid, port, lid, trap_number, message, node, "
    "peer_node, peer_port, peer_guid, cable_id, dedup_key";
constexpr const char* kPortColumns =
    "node_guid, port, node, lid, peer_guid, peer_node, peer_port, cable_id, state, phys_state, "
    "width, speed, last_change_us";
constexpr int kPortColumnCount = 13;
// The counter state of a port is not a column: it lives in table port_state (port_state.h).

std::vector<std::string> column_names(const std::string& cols) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < cols.size()) {
    size_t comma = cols.find(',', pos);
    if (comma == std::string::npos) comma = cols.size();
    std::string c = cols.substr(pos, comma - pos);
    c.erase(0, c.find_first_not_of(' '));
    out.push_back(std::move(c));
    pos = comma + 1;
  }
  return out;
}

namespace rows_detail {

std::string placeholders(int n) {
  std::string s;
  for (int i = 1; i <= n; ++i) s += (i > 1 ? ", ?" : "?") + std::to_string(i);
  return s;
}

// "a, b" with prefix "p." -> "p.a, p.b".
std::string prefixed(const std::string& cols, const std::string& prefix) {
  std::string out;
  for (const std::string& c : column_names(cols)) out += (out.empty() ? "" : ", ") + prefix + c;
  return out;
}

// "INSERT ... ON CONFLICT (node_guid, port) DO UPDATE SET <every other column>".
std::string upsert_by_port(const std::string& table, const std::string& cols, int count) {
  std::string s = "INSERT INTO " + table + " (" + cols + ") VALUES (" + placeholders(count) +
                  ") ON CONFLICT (node_guid, port) DO UPDATE SET ";
  bool first = true;
  for (const std::string& c : column_names(cols)) {
    if (c == "node_guid" || c == "port") continue;
    s += (first ? "" : ", ") + c + " = excluded." + c;
    first = false;
  }
  return s;
}

}  // namespace rows_detail

using namespace rows_detail;

const std::string& insert_event_sql() {
  static const std::string sql = std::string("INSERT INTO events (") + kEventColumns +
                                 ") VALUES (" + placeholders(15) +
                                 ") ON CONFLICT (dedup_key) DO NOTHING";
  return sql;
}

const std::string& upsert_port_sql() {
  static const std::string sql = upsert_by_port("ports", kPortColumns, kPortColumnCount);
  return sql;
}

// Every column but the key and the display name, which is indexed (ports_node): a port whose
// name did not change is updated without touching that index. Same ?N as bind_port().
// "c = ?N, ..." over the port columns that keep(N, c) selects, N being bind_port()'s index.
template <typename Keep>
std::string port_set_clause(Keep keep) {
  std::string set;
  int i = 0;
  for (const std::string& c : column_names(kPortColumns)) {
    ++i;
    if (keep(i, c)) set += (set.empty() ? "" : ", ") + c + " = ?" + std::to_string(i);
  }
  return set;
}

const std::string& update_port_sql() {
  static const std::string sql = "UPDATE ports SET " +
                                 port_set_clause([](int, const std::string& c) {
                                   return c != "node_guid" && c != "port" && c != "node";
                                 }) +
                                 " WHERE node_guid = ?1 AND port = ?2 AND node = ?3";
  return sql;
}

const std::string& upsert_ufm_port_sql() {
  static const std::string sql = upsert_by_port("ufm_ports", columns::list<columns::UfmPorts>(),
                                                columns::count<columns::UfmPorts>());
  return sql;
}

const std::string& select_ufm_ports_sql() {
  static const std::string sql =
      "SELECT " + columns::list<columns::UfmPorts>() + " FROM ufm_ports ORDER BY node_guid, port";
  return sql;
}

const std::string& select_ports_sql(bool filtered) {
  static const std::string from =
      "SELECT " + prefixed(kPortColumns, "p.") + ", " +
      prefixed(columns::list<columns::UfmPorts>(), "u.") +
      " FROM ports p LEFT JOIN ufm_ports u ON u.node_guid = p.node_guid AND u.port = p.port";
  static const std::string order = " ORDER BY p.node, p.port, p.node_guid";
  static const std::string all = from + order;
  static const std::string some = from + " WHERE p.node = ?1 OR p.node_guid = ?2" + order;
  return filtered ? some : all;
}

// Without a node filter SQLite would always walk the id order from after_id, reading every
// event since the first one to find recent ones; with a time bound and no paging position,
// the time index finds them directly (then sorts the matches by id).
EventPlan plan_for(const EventQuery& q) {
  if (q.node_guid != 0) return q.port >= 0 ? EventPlan::by_port : EventPlan::by_node;
  return q.since_us > 0 && q.after_id <= 0 ? EventPlan::by_time : EventPlan::by_id;
}

const std::string& select_events_sql(EventPlan plan) {
  static const std::array<std::string, 4> sqls = [] {
    const std::string cols = std::string("SELECT id, ") + kEventColumns;
    const std::string where = " WHERE time_us >= ?1 AND id > ?2";
    const std::string tail = " ORDER BY id LIMIT ?3";
    return std::array<std::string, 4>{
        cols + " FROM events" + where + tail,
        cols + " FROM events INDEXED BY events_time" + where + tail,
        cols + " FROM events" + where + " AND node_guid = ?4" + tail,
        cols + " FROM events" + where + " AND node_guid = ?4 AND port = ?5" + tail};
  }();
  return sqls[static_cast<size_t>(plan)];
}

void bind_event(Statement& s, const ingest::Event& e) {
  s.bind(1, e.time_us);
  s.bind(2, ingest::source_name(e.source));
  s.bind(3, e.kind);
  s.bind(4, static_cast<int64_t>(e.severity));
  s.bind_u64(5, e.node_guid);
  s.bind(6, int64_t{e.port});
  s.bind(7, int64_t{e.lid});
  s.bind(8, int64_t{e.trap_number});
  s.bind(9, e.message);
  s.bind(10, e.node);
  s.bind(11, e.peer_node);
  s.bind(12, int64_t{e.peer_port});
  s.bind_u64(13, e.peer_guid);
  s.bind(14, e.cable_id);
  if (e.dedup_key.empty())
    s.bind_null(15);
  else
    s.bind(15, e.dedup_key);
}

void bind_port(Statement& s, const PortRecord& p) {
  s.bind_u64(1, p.node_guid);
  s.bind(2, int64_t{p.port});
  s.bind(3, p.node);
  s.bind(4, int64_t{p.lid});
  s.bind_u64(5, p.peer_guid);
  s.bind(6, p.peer_node);
  s.bind(7, int64_t{p.peer_port});
  s.bind(8, p.cable_id);
  s.bind(9, int64_t{p.state});
  s.bind(10, int64_t{p.phys_state});
  s.bind(11, int64_t{p.width});
  s.bind(12, p.speed);
  s.bind(13, p.last_change_us);
}

void bind_ufm_port(Statement& s, const ingest::UfmPortState& u) {
  sqlite_detail::bind_row<columns::UfmPorts>(s, 1, u);
}

ingest::UfmPortState read_ufm_port(const Statement& s, int first) {
  ingest::UfmPortState u;
  sqlite_detail::read_row<columns::UfmPorts>(s, first, u);
  return u;
}

StoredEvent read_event(const Statement& s) {
  return row_read::event(sqlite_detail::SqliteRow{s});
}

PortRecord read_port(const Statement& s) {
  PortRecord p;
  const sqlite_detail::SqliteRow row{s};
  row_read::port_head(row, p);
  p.last_change_us = s.column_int64(12);
  if (!s.is_null(kPortColumnCount)) p.ufm = read_ufm_port(s, kPortColumnCount);
  return p;
}

}  // namespace ibw::store::rows
