// Links a discovery lost to a lossy cable. A discovery learns a link from the NodeInfo SMP it
// sends across it; on a link that drops a share of its packets (a cursed link) that SMP and its
// retries may all be lost, and the link vanishes from the new discovery although both ports
// still report it up. Taken as is, that invents a link-down event and takes the link out of
// the route model, so the probes stop crossing the very link they should name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/model.h"

namespace ibw::fabric {

// Restores into `now` every link of `before` whose near port (any end) is present in `now`
// with PortState Active but no peer, when the far node is in `now` and its port is free too
// (absent from the discovery's answers, or present, Active and without a peer). Matched by
// GUID and port number. Returns the restored links as "NODE/PORT - NODE/PORT" labels.
std::vector<std::string> keep_lost_links(Fabric& now, const Fabric& before);

}  // namespace ibw::fabric
