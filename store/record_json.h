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
//  speed, counters: {...}, rates: {...}, last_change}, plus "ufm" when UFM reported the port
//  (p.ufm): ufm_port_json.
nlohmann::ordered_json port_json(const PortRecord& p);
// UFM's view of a port: {name, state, phys_state, speed, width, high_ber_severity, severity,
// peer_node, peer_guid, peer_port, peer_from, state_differs, since}. Texts as UFM writes them
// (state "Active", phys_state "Link Up", width "4x"; "" when UFM gave none; high_ber_severity
// "N/A" when none); peer_from is links | ports | ""; state_differs is true when our state
// (PortInfo.PortState, 0 unknown) and UFM's logical state are both known and differ; since:
// when ibwarden first saw UFM report the port as it is now.
nlohmann::ordered_json ufm_port_json(const ingest::UfmPortState& u, int our_state);

}  // namespace ibw::store
