#include "store/pg_rows.h"

#include "store/pg_fields.h"

namespace ibw::store::pg_rows {

namespace pg_rows_detail {

constexpr Col kEvent[] = {
    {"time_us", "bigint"},   {"source", "text"},         {"kind", "text"},
    {"severity", "integer"}, {"node_guid", "bigint"},    {"port", "integer"},
    {"lid", "integer"},      {"trap_number", "integer"}, {"message", "text"},
    {"node", "text"},        {"peer_node", "text"},      {"peer_port", "integer"},
    {"peer_guid", "bigint"}, {"cable_id", "text"},       {"dedup_key", "text"}};

constexpr Col kPort[] = {
    {"node_guid", "bigint"},     {"port", "integer"},     {"node", "text"},
    {"lid", "integer"},          {"peer_guid", "bigint"}, {"peer_node", "text"},
    {"peer_port", "integer"},    {"cable_id", "text"},    {"state", "integer"},
    {"phys_state", "integer"},   {"width", "integer"},    {"speed", "text"},
    {"last_change_us", "bigint"}};

constexpr Col kSample[] = {{"node_guid", "bigint"}, {"port", "integer"},
                           {"time_us", "bigint"},   {"counter_values", "bigint[]"},
                           {"valid", "bigint"},     {"saturated", "bigint"},
                           {"extended", "boolean"}};

bool is_array(const Col& c) {
  return std::string_view(c.type).ends_with("[]");
}

}  // namespace pg_rows_detail

const std::span<const Col> kEventCols{pg_rows_detail::kEvent};
const std::span<const Col> kPortCols{pg_rows_detail::kPort};
const std::span<const Col> kSampleCols{pg_rows_detail::kSample};

const std::vector<Col>& ufm_cols() {
  static const std::vector<Col> cols = pg_detail::typed_columns<columns::UfmPorts>();
  return cols;
}

std::string names(std::span<const Col> cols, const std::string& prefix) {
  std::string s;
  for (const Col& c : cols) s += (s.empty() ? "" : ", ") + prefix + c.name;
  return s;
}

std::string unnest_select(std::span<const Col> cols, bool ordered) {
  std::string sel = "SELECT $1";
  std::string params;
  int n = 2;
  for (const Col& c : cols) {
    const bool arr = pg_rows_detail::is_array(c);
    sel += std::string(", t.") + c.name + (arr ? std::string("::") + c.type : "");
    params += (params.empty() ? "$" : ", $") + std::to_string(n++) +
              "::" + (arr ? std::string("text") : std::string(c.type)) + "[]";
  }
  std::string s = sel + " FROM unnest(" + params + ")";
  if (ordered) s += " WITH ORDINALITY";
  s += " AS t(" + names(cols) + (ordered ? ", ord)" : ")");
  if (ordered) s += " ORDER BY t.ord";
  return s;
}

std::string set_excluded(std::span<const Col> cols) {
  std::string s;
  for (const Col& c : cols) {
    const std::string_view n = c.name;
    if (n == "node_guid" || n == "port") continue;
    s += (s.empty() ? "" : ", ") + std::string(n) + " = excluded." + std::string(n);
  }
  return s;
}

std::string values_text(const Values& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    pg_detail::append_i64(s, static_cast<int64_t>(v[i]));
  }
  return s + "}";
}

Values parse_values(std::string_view text, std::string_view what) {
  std::array<int64_t, ingest::kCounterCount> raw{};
  pg_detail::parse_i64_array(text, raw.data(), raw.size(), what);
  Values v{};
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint64_t>(raw[i]);
  return v;
}

Rates parse_rates(std::string_view text, std::string_view what) {
  Rates r{};
  pg_detail::parse_f64_array(text, r.data(), r.size(), what);
  return r;
}

StoredEvent read_event(const pg_detail::Result& r, int row) {
  return row_read::event(pg_detail::PgRow{r, row});
}

PortRecord read_port(const pg_detail::Result& r, int row) {
  PortRecord p;
  row_read::port_head(pg_detail::PgRow{r, row}, p);
  p.last_change_us = r.i64(row, 12);  // the counter state: port_state::fill()
  const int first = static_cast<int>(kPortCols.size());
  if (r.cols() > first && !r.is_null(row, first)) p.ufm = read_ufm_port(r, row, first);
  return p;
}

ingest::UfmPortState read_ufm_port(const pg_detail::Result& r, int row, int first) {
  ingest::UfmPortState u;
  pg_detail::read_row<columns::UfmPorts>(r, row, first, u);
  return u;
}

ingest::CounterSample read_sample(const pg_detail::Result& r, int row, int first) {
  return row_read::sample(pg_detail::PgRow{r, row, first});
}

}  // namespace ibw::store::pg_rows
