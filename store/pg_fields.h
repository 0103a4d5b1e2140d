// PostgreSQL binding of the shared field lists (store/record_columns.h), used only inside
// store/: the SQL type of each column follows from its member's type (int64_t and uint64_t
// bigint, int integer, bool boolean, text), and one list binds a statement's parameters,
// fills the column arrays of a bulk write (unnest) and reads a result row, as the SQLite
// store (store/sqlite_fields.h) does with the same list. Rows are read through PgRow by the
// readers both backends share (store/row_read.h).
//
//   bind_row<columns::Workorders>(params, order);           // appends $n.. in column order
//   fill_row<columns::Decisions>(decision, arrays);         // one element per column array
//   read_row<columns::Outbox>(result, row, /*first=*/0, item);
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "store/pg_db.h"
#include "store/pg_rows.h"
#include "store/record_columns.h"
#include "store/row_read.h"

namespace ibw::store::pg_detail {

inline const char* sql_type(int64_t) {
  return "bigint";
}
inline const char* sql_type(uint64_t) {
  return "bigint";
}
inline const char* sql_type(int) {
  return "integer";
}
inline const char* sql_type(bool) {
  return "boolean";
}
inline const char* sql_type(const std::string&) {
  return "text";
}
inline const char* sql_type(columns::NullIfEmpty<const std::string>) {
  return "text";
}

// Appends a value to a statement's parameters (Params) or to a bulk write's column array
// (ArrayText): both take i64, u64, text and null.
template <class Sink>
void put(Sink& out, int64_t v) {
  out.i64(v);
}
template <class Sink>
void put(Sink& out, int v) {
  out.i64(v);
}
template <class Sink>
void put(Sink& out, uint64_t v) {
  out.u64(v);
}
template <class Sink>
void put(Sink& out, bool v) {
  out.boolean(v);  // Params only
}
template <class Sink>
void put(Sink& out, const std::string& v) {
  out.text(v);
}
template <class Sink>
void put(Sink& out, columns::NullIfEmpty<const std::string> v) {
  if (v.text.empty())
    out.null();  // never collides
  else
    out.text(v.text);
}

// One PostgreSQL result row as store/row_read.h reads it: column c counted from `first`;
// counter arrays are array literals (pg_rows::parse_values).
struct PgRow {
  const Result& r;
  int row;
  int first = 0;
  int64_t i64(int c) const { return r.i64(row, first + c); }
  int i32(int c) const { return r.i32(row, first + c); }
  uint64_t u64(int c) const { return r.u64(row, first + c); }
  bool boolean(int c) const { return r.boolean(row, first + c); }
  std::string str(int c) const { return r.str(row, first + c); }
  bool is_null(int c) const { return r.is_null(row, first + c); }
  pg_rows::Values values(int c, std::string_view what) const {
    return pg_rows::parse_values(r.text(row, first + c), what);
  }
  pg_rows::Rates rates(int c, std::string_view what) const {
    return pg_rows::parse_rates(r.text(row, first + c), what);
  }
};

// The list's columns with their SQL types (for pg_rows::unnest_select and friends).
template <class List>
std::vector<pg_rows::Col> typed_columns() {
  std::vector<pg_rows::Col> out;
  const typename List::Record r{};
  List::each(r, [&](const char* name, auto&& v) { out.push_back({name, sql_type(v)}); });
  return out;
}

// Appends the list's columns to p as the next parameters, in column order.
template <class List>
Params& bind_row(Params& p, const typename List::Record& record) {
  List::each(record, [&](const char*, auto&& v) { put(p, v); });
  return p;
}

// Appends one row to the column arrays of a bulk write (arrays.size() == the column count).
template <class List>
void fill_row(const typename List::Record& record, std::vector<ArrayText>& arrays) {
  size_t i = 0;
  List::each(record, [&](const char*, auto&& v) { put(arrays[i++], v); });
}

// The parameters of a bulk write: $1 the fabric, then one array per column (the builders are
// left empty).
inline Params fabric_and_arrays(const std::string& fabric, std::vector<ArrayText>& arrays) {
  Params p;
  p.text(fabric);
  for (ArrayText& a : arrays) p.text(a.take());
  return p;
}

// Reads the list's columns of one result row from column `first` on.
template <class List>
void read_row(const Result& r, int row, int first, typename List::Record& record) {
  row_read::read_row<List>(PgRow{r, row}, first, record);
}

}  // namespace ibw::store::pg_detail
