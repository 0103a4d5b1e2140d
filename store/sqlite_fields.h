// SQLite binding of the shared field lists (store/record_columns.h): one list binds an
// INSERT's or UPDATE's parameters and reads a SELECT's columns, so the two can never drift
// apart, and the PostgreSQL store (store/pg_fields.h) uses the same list. Used only inside
// store/. Booleans are stored as 0/1; NullIfEmpty binds NULL for "".
//
//   bind_row<columns::Outbox>(stmt, /*first parameter=*/1, item);
//   read_row<columns::Outbox>(stmt, /*first column=*/0, item);
#pragma once

#include <cstdint>
#include <string>

#include "store/record_columns.h"
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
inline void read_value(const Statement& s, int c, int64_t& v) {
  v = s.column_int64(c);
}
inline void read_value(const Statement& s, int c, int& v) {
  v = s.column_int(c);
}
inline void read_value(const Statement& s, int c, bool& v) {
  v = s.column_int64(c) != 0;
}
inline void read_value(const Statement& s, int c, uint64_t& v) {
  v = s.column_u64(c);
}
inline void read_value(const Statement& s, int c, std::string& v) {
  v = s.column_text(c);  // NULL reads as ""
}
inline void read_value(const Statement& s, int c, columns::NullIfEmpty<std::string> v) {
  v.text = s.column_text(c);
}

// Binds the list's columns to parameters first, first + 1, ... (1-based, as SQLite counts).
template <class List>
void bind_row(Statement& s, int first, const typename List::Record& record) {
  List::each(record, [&](const char*, auto&& v) { bind_value(s, first++, v); });
}

// Reads the list's columns from columns first, first + 1, ... (0-based, as SQLite counts).
template <class List>
void read_row(const Statement& s, int first, typename List::Record& record) {
  List::each(record, [&](const char*, auto&& v) { read_value(s, first++, v); });
}

}  // namespace ibw::store::sqlite_detail
