// Row mapping of the PostgreSQL store's core tables (events, ports, ufm_ports, samples), used
// only inside store/: one column list per table (name and SQL type, in bind and read order),
// the bulk-write SELECT over unnest()ed array parameters built from it, and readers of result
// rows. Counter arrays travel as array literals ("{1,2,3}") and are stored as BIGINT[] (uint64
// bit patterns); a port's counter state is not a column of `ports` (store/port_state.h).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/pg_db.h"
#include "store/store.h"

namespace ibw::store::pg_rows {

using Values = std::array<uint64_t, ingest::kCounterCount>;
using Rates = std::array<double, ingest::kCounterCount>;

// One column: its name and SQL type ("bigint", "text", "integer", "boolean", "bytea",
// "bigint[]"). Array-typed columns are passed as text[] of literals, then cast.
struct Col {
  const char* name;
  const char* type;
};

extern const std::span<const Col> kEventCols;   // events without fabric and id
extern const std::span<const Col> kPortCols;    // ports without fabric
extern const std::span<const Col> kSampleCols;  // v1 table samples (migration 2 reads it)
// ufm_ports without fabric: the shared field list (store/record_columns.h) with SQL types.
const std::vector<Col>& ufm_cols();

// "a, b, c" (with `prefix` before each name).
std::string names(std::span<const Col> cols, const std::string& prefix = "");
// "SELECT $1, t.a, t.b::bigint[] ... FROM unnest($2::bigint[], $3::text[], ...) AS t(a, b, ...)":
// the rows of a bulk write, $1 being the fabric and $2.. one array per column. `ordered` adds
// WITH ORDINALITY and ORDER BY, so rows are inserted in array order.
std::string unnest_select(std::span<const Col> cols, bool ordered);
// "c = excluded.c, ..." for every column but the key (node_guid, port).
std::string set_excluded(std::span<const Col> cols);

std::string values_text(const Values& v);  // "{1,2,...}" (bit patterns)
Values parse_values(std::string_view text, std::string_view what);
Rates parse_rates(std::string_view text, std::string_view what);

// Result rows. read_event: id then kEventCols; read_port: kPortCols then ufm_cols() (NULL when
// the port has no ufm_ports row); read_ufm_port / read_sample: their columns from `first`.
StoredEvent read_event(const pg_detail::Result& r, int row);
PortRecord read_port(const pg_detail::Result& r, int row);
ingest::UfmPortState read_ufm_port(const pg_detail::Result& r, int row, int first);
ingest::CounterSample read_sample(const pg_detail::Result& r, int row, int first);

}  // namespace ibw::store::pg_rows
