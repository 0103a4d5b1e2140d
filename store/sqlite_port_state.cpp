// Table port_state of the SQLite store (store/port_state.h): one row (part, data) per
// partition, read and rewritten inside write()'s transaction (BEGIN IMMEDIATE: one writer).
#include "store/port_state.h"
#include "store/sqlite_fields.h"

namespace ibw::store::port_state {

void write(sqlite_detail::Db& db, Updates& u) {
  if (u.empty()) return;
  auto get = db.query("SELECT data FROM port_state WHERE part = ?1");
  auto put = db.query("INSERT OR REPLACE INTO port_state (part, data) VALUES (?1, ?2)");
  for (const int part : u.parts()) {
    get->bind(1, int64_t{part});
    const std::string blob = u.merge(part, get->step() ? get->column_blob(0) : "");
    get->reset();
    put->bind(1, int64_t{part});
    put->bind_blob_static(2, blob);  // lives until the reset below
    put->run();
    put->reset();
  }
}

void fill(sqlite_detail::Db& db, std::vector<PortRecord>& records) {
  fill(records,
       [&](const std::vector<int>& parts, const std::function<void(int, std::string_view)>& blob) {
         if (parts.size() * 4 > static_cast<size_t>(kParts)) {  // many: one scan
           auto q = db.query("SELECT part, data FROM port_state ORDER BY part");
           size_t i = 0;
           while (q->step()) {
             const int part = q->column_int(0);
             while (i < parts.size() && parts[i] < part) ++i;
             if (i < parts.size() && parts[i] == part) blob(part, q->column_blob(1));
           }
           return;
         }
         auto q = db.query("SELECT data FROM port_state WHERE part = ?1");
         for (const int part : parts) {
           q->bind(1, int64_t{part});
           if (q->step()) blob(part, q->column_blob(0));
           q->reset();
         }
       });
}

void convert_legacy(sqlite_detail::Db& db) {
  Updates u;
  {
    auto q = db.query(
        "SELECT node_guid, port, counters_time_us, counters_node_guid, counters_port, "
        "counter_values, counters_valid, counters_saturated, counters_extended, rates, "
        "rates_valid, deltas, deltas_valid, deltas_at_least FROM ports");
    while (q->step()) {
      PortRecord p;
      p.node_guid = q->column_u64(0);
      p.port = q->column_int(1);
      row_read::port_counters(sqlite_detail::SqliteRow{*q}, 2, p);
      u.add(p);
    }
  }
  write(db, u);
  // One column at a time (SQLite rewrites the table for each): a one-off at start-up.
  for (const char* c : {"counters_time_us", "counters_node_guid", "counters_port", "counter_values",
                        "counters_valid", "counters_saturated", "counters_extended", "rates",
                        "rates_valid", "deltas", "deltas_valid", "deltas_at_least"})
    db.exec(std::string("ALTER TABLE ports DROP COLUMN ") + c);
}

}  // namespace ibw::store::port_state
