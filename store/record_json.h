// JSON shapes of stored events and ports (the CLI contract, reused by the web API), and the
// time format every JSON output uses. Decisions and work orders: store/remedy_json.h.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "store/store.h"

namespace ibw::store {

// "2026-11-22T02:12:57.123456Z"; "" for 0 or before 1970.
std::string iso_time(int64_t time_us);

// {id, time, source, kind, severity, node, node_guid, port, peer_node, peer_port, cable_id,
// message}
nlohmann::ordered_json event_json(const StoredEvent& e);
// {node, node_guid, port, lid, peer_node, peer_port, cable_id, state, phys_state, width,
//  speed, counters: {...}, rates: {...}, last_change}
nlohmann::ordered_json port_json(const PortRecord& p);

}  // namespace ibw::store
