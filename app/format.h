// Rendering helpers shared by the query commands (and later the web API): times, GUIDs,
// port states, and the JSON shapes of events and ports (the CLI contract).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "store/store.h"

namespace ibw::app {

std::string iso_time(int64_t time_us);  // "2026-11-22T02:12:57.123456Z"; "" for 0

// {id, time, source, kind, severity, node, node_guid, port, peer_node, peer_port, cable_id,
// message}
nlohmann::ordered_json event_json(const store::StoredEvent& e);
// {node, node_guid, port, lid, peer_node, peer_port, cable_id, state, phys_state, width,
//  speed, counters: {...}, rates: {...}, last_change}
nlohmann::ordered_json port_json(const store::PortRecord& p);

}  // namespace ibw::app
