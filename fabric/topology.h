// Picks the right loader for a topology file by content: binary ibnetdiscover cache
// (`--cache`) or ibnetdiscover text output. Callers then apply node names.
#pragma once

#include <string>

#include "fabric/model.h"

namespace ibw::fabric {

Fabric load_topology_file(const std::string& path);

// Merges several fabrics (e.g. one ibnetdiscover run per separate network) into one; nodes
// with the same non-zero GUID are the same node.
Fabric merge_fabrics(std::vector<Fabric> parts);

}  // namespace ibw::fabric
