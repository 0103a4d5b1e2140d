// Which routing engine OpenSM used, from its log: the last routing pass's
// "osm_ucast_mgr_process: <engine> tables configured on all switches" line, and the engines
// of that pass that failed before it ("ucast_mgr_route: <engine>: cannot build lid matrices"
// or "... cannot build fwd tables"), with the line that says why (e.g. "updn_lid_matrices:
// disabling UPDN algorithm, no root nodes were found"). Used by `ibwarden route check` and the
// daemon's route check.
#pragma once

#include <string>
#include <string_view>

#include "fabric/route_check.h"

namespace ibw::ingest {

// Pure: reads every line of `log` (OpenSM's log text, any number of passes).
fabric::RoutingEngineInfo parse_routing_engine(std::string_view log);

// parse_routing_engine over the last `tail_bytes` of the file at path (from the first whole
// line). An unreadable file gives an empty result (in_use "").
fabric::RoutingEngineInfo read_routing_engine(const std::string& path,
                                              size_t tail_bytes = size_t{16} << 20);

}  // namespace ibw::ingest
