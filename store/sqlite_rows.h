// Row mapping for the store's tables, used only inside store/: the SQL text of each
// statement (built from one column list per table, so bind and read orders cannot drift
// apart), binding a struct's fields to a statement, and reading a row back into the struct.
// Enums are stored as follows: source as its name ("opensm"), severity as 0..3.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/sqlite_db.h"
#include "store/store.h"

namespace ibw::store::rows {

const std::string& insert_event_sql();
const std::string& upsert_port_sql();
// The same row for a port stored under the same display name; changes() == 0 otherwise.
const std::string& update_port_sql();
// Ports with their ufm_ports row (LEFT JOIN; read_port fills PortRecord::ufm). The counter
// fields of a port are not columns of `ports`: see store/port_state.h.
const std::string& select_ports_sql(bool filtered);  // filtered: ?1 node name, ?2 guid
const std::string& upsert_ufm_port_sql();
const std::string& select_ufm_ports_sql();

// Which form of the events query to run; see select_events_sql().
enum class EventPlan { by_id, by_time, by_node, by_port };
EventPlan plan_for(const EventQuery& q);
// ?1 since_us, ?2 after_id, ?3 limit (-1 = none), ?4 node_guid, ?5 port.
const std::string& select_events_sql(EventPlan plan);

// "a, b" -> {"a", "b"}: the names of a column list.
std::vector<std::string> column_names(const std::string& cols);
void bind_event(sqlite_detail::Statement& s, const ingest::Event& e);
void bind_port(sqlite_detail::Statement& s, const PortRecord& p);
void bind_ufm_port(sqlite_detail::Statement& s, const ingest::UfmPortState& u);
// The ufm_ports columns starting at column `first` (select_ufm_ports_sql: 0).
ingest::UfmPortState read_ufm_port(const sqlite_detail::Statement& s, int first);
StoredEvent read_event(const sqlite_detail::Statement& s);
PortRecord read_port(const sqlite_detail::Statement& s);

// "0x" and 1-16 hex digits (either case), as printed by "0x%016" PRIx64.

}  // namespace ibw::store::rows
