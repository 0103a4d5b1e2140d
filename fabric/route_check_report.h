// The route check's report: the JSON of `ibwarden route check --format json` and of the web
// API's Routes page, and the text of the command. JSON:
//   {"credit_loops": [{"channels": N, "vls": [VL, ...],
//                      "links": [{"from": {node, port, guid}, "to": {...}, "vl": VL}]}],
//    "unreachable_pairs": N, "unreachable": [{src_lid, dst_lid, reason}],
//    "balance": {links, idle_links, max_routes, min_routes, ratio, worst: [{from, to, routes}]},
//    "engine": "minhop", "configured_engine": "updn", "fallback": true, "fallback_reason": "...",
//    "sources": N, "destinations": N,
//    "virtual_lanes": {"count": N, "source": "opensm-sl2vl.dump" | "live" | "none",
//                      "switches": N (with a table), "sl_source": "sl0"}}
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "fabric/route_check.h"

namespace ibw::fabric {

nlohmann::ordered_json route_check_json(const Fabric& fabric, const RouteCheck& check,
                                        const RoutingEngineInfo& engine);

// Several lines: a summary, then each credit loop as its links, the unreachable pairs, the
// balance and its worst links.
std::string format_route_check(const Fabric& fabric, const RouteCheck& check,
                               const RoutingEngineInfo& engine);

// Whether the check found a problem (exit 1 of the command): a credit loop, an unreachable
// pair or an engine fallback.
inline bool route_problems(const RouteCheck& check, const RoutingEngineInfo& engine) {
  return !check.credit_loops.empty() || check.unreachable_pairs > 0 || engine.fallback();
}

}  // namespace ibw::fabric
