// SQLite binding of the shared field lists (store/record_columns.h): one list binds an
// INSERT's or UPDATE's parameters and reads a SELECT's columns, so the two can never drift
// apart, and the PostgreSQL store (store/pg_fields.h) uses the same list. Used only inside
// store/. Booleans are stored as 0/1; NullIfEmpty binds NULL for "". Rows are read through
// SqliteRow by the readers both backends share (store/row_read.h).
//
//   bind_row<columns::Outbox>(stmt, /*first parameter=*/1, item);
//   read_row<columns::Outbox>(stmt, /*first column=*/0, item);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "store/counter_json.h"
#include "store/record_columns.h"
#include "store/row_read.h"
#include "store/sqlite_db.h"

namespace ibw::store::sqlite_detail {

inline void bind_value(Statement& s, int i, int64_t v) {
  s.bind(i, v);
}
inline void bind_value(Statement& s, int i, int v) {
  s.bind(i, int64_t{v});
}
inline void bind_value(Statement& s, int i, bool v) {
  s.bind(i, int64_t{v ? 1 : 0});
}
inline void bind_value(Statement& s, int i, uint64_t v) {
  s.bind_u64(i, v);
}
inline void bind_value(Statement& s, int i, const std::string& v) {
  s.bind(i, std::string_view(v));
}
inline void bind_value(Statement& s, int i, columns::NullIfEmpty<const std::string> v) {
  if (v.text.empty())
    s.bind_null(i);
  else
    s.bind(i, std::string_view(v.text));
}
// A SQLite result row as store/row_read.h reads it: column c of the current row, counted from
// `first`; counter arrays are JSON text (store/counter_json.h).
struct SqliteRow {
  const Statement& s;
  int first = 0;
  int64_t i64(int c) const { return s.column_int64(first + c); }
  int i32(int c) const { return s.column_int(first + c); }
  uint64_t u64(int c) const { return s.column_u64(first + c); }
  bool boolean(int c) const { return s.column_int64(first + c) != 0; }
  std::string str(int c) const { return std::string(s.column_text(first + c)); }
  bool is_null(int c) const { return s.is_null(first + c); }
  counter_json::Values values(int c, std::string_view what) const {
    return counter_json::decode_values(s.column_text(first + c), what);
  }
  counter_json::Rates rates(int c, std::string_view what) const {
    return counter_json::decode_rates(s.column_text(first + c), what);
  }
};

// Binds the list's columns to parameters first, first + 1, ... (1-based, as SQLite counts).
template <class List>
void bind_row(Statement& s, int first, const typename List::Record& record) {
  List::each(record, [&](const char*, auto&& v) { bind_value(s, first++, v); });
}

// Reads the list's columns from columns first, first + 1, ... (0-based, as SQLite counts).
template <class List>
void read_row(const Statement& s, int first, typename List::Record& record) {
  row_read::read_row<List>(SqliteRow{s}, first, record);
}

}  // namespace ibw::store::sqlite_detail
