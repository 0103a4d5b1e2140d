// Row binding by field list: a record's columns are described once, as member pointers in
// column order, and that one list binds an INSERT's parameters and reads a SELECT's columns,
// so the two can never drift apart. Members may be int64_t, int, uint64_t (GUIDs, stored as
// their int64 bit pattern) or std::string; anything needing a conversion (JSON, enums,
// NULLs) is bound and read by hand beside the list.
//
//   constexpr auto kOutboxFields = fields(&OutboxItem::id, &OutboxItem::workorder_id, ...);
//   kOutboxFields.bind(stmt, /*first parameter=*/1, item);
//   kOutboxFields.read(stmt, /*first column=*/0, item);
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "store/sqlite_db.h"

namespace ibw::store::sqlite_detail {

inline void bind_value(Statement& s, int i, int64_t v) {
  s.bind(i, v);
}
inline void bind_value(Statement& s, int i, int v) {
  s.bind(i, int64_t{v});
}
inline void bind_value(Statement& s, int i, uint64_t v) {
  s.bind_u64(i, v);
}
inline void bind_value(Statement& s, int i, const std::string& v) {
  s.bind(i, std::string_view(v));
}
inline void read_value(const Statement& s, int c, int64_t& v) {
  v = s.column_int64(c);
}
inline void read_value(const Statement& s, int c, int& v) {
  v = s.column_int(c);
}
inline void read_value(const Statement& s, int c, uint64_t& v) {
  v = s.column_u64(c);
}
inline void read_value(const Statement& s, int c, std::string& v) {
  v = s.column_text(c);  // NULL reads as ""
}

template <class T, class... M>
struct Fields {
  std::tuple<M T::*...> members;
  static constexpr int kCount = sizeof...(M);

  // Binds the members to parameters first, first + 1, ... (1-based, as SQLite counts).
  void bind(Statement& s, int first, const T& record) const {
    std::apply([&](auto... m) { (bind_value(s, first++, record.*m), ...); }, members);
  }
  // Reads the members from columns first, first + 1, ... (0-based, as SQLite counts).
  void read(const Statement& s, int first, T& record) const {
    std::apply([&](auto... m) { (read_value(s, first++, record.*m), ...); }, members);
  }
};

template <class T, class... M>
constexpr Fields<T, M...> fields(M T::*... members) {
  return {{members...}};
}

}  // namespace ibw::store::sqlite_detail
