// Which hosts a link carries (issue 33: `ibwarden jobs --link`, `ibwarden check --nodes`): the
// CA endpoints whose routes use one link in either direction, and how many ordered (source
// LID, destination LID) CA pairs do.
//  - static: the LFT paths, exactly as pairs_crossing (fabric/routing.h) counts them, broken
//    routes up to where they break (a CA's own link carries every route from it, and every
//    route into it). Per destination LID whose table at one end of the link leads over it, one
//    memoised walk over the switches (CrossingWalker); the sources are grouped by the switch
//    their link leads to, so no pair is traced: O(D' * S) for D' such destinations and S
//    switches.
//  - adaptive: every minimal route between two leaf switches may carry the traffic (as
//    fabric/route_model.h models adaptive routing): the hosts of every leaf pair (a, b) with
//    some minimal route from a to b over the link (DestTables::Crossing, one pass per
//    destination class); the pairs are the CA pairs of those leaves.
// `among` (indexed by fabric node, may be null) keeps only pairs with both ends marked: the
// pre-job check asks whether routes between the hosts of one list cross a link.
#pragma once

#include <cstdint>
#include <vector>

#include "fabric/model.h"
#include "fabric/route_model.h"
#include "fabric/routing.h"

namespace ibw::fabric {

struct LinkHosts {
  std::vector<uint32_t> cas;  // fabric node indices of the CAs at either end of a pair, sorted
  uint64_t pairs = 0;         // ordered CA-to-CA LID pairs whose route crosses the link
};

LinkHosts hosts_crossing(const Fabric& fabric, const RoutingTables& tables, const LidIndex& lids,
                         uint32_t node, int port, const std::vector<uint8_t>* among = nullptr);

// Switch-to-switch links that are down (or set_down) carry nothing: adaptive routing goes
// around them. A host's own link carries every route from and to its host, up or down.
LinkHosts hosts_crossing_adaptive(const RouteModel& model, uint32_t node, int port,
                                  const std::vector<uint8_t>* among = nullptr);

// The hosts whose routes cross the link at (node, port): static over `tables` when given,
// else every minimal route (adaptive). A link that is not up (either end not Active, or
// disabled) is asked as if up, over every minimal route (the LFTs route around it once OpenSM
// swept, so they cannot tell what it carried), and *asked_up says so: the hosts it cut off.
// `ibwarden jobs`, `ibwarden check` and the daemon's affected jobs (actions/affected_jobs.h)
// all ask this.
LinkHosts hosts_of_link(const Fabric& fab, const RoutingTables* tables, uint32_t node, int port,
                        const std::vector<uint8_t>* among = nullptr, bool* asked_up = nullptr);

}  // namespace ibw::fabric
