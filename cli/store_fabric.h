// The fabric as a store recorded it, for the commands that read a store without the fabric
// (`ibwarden replay`, `ibwarden incidents`): the graph is rebuilt from the recorded ports. A
// node whose recorded ports share one LID is a switch (switch ports answer on the switch's
// port-0 LID); links come from the recorded peers.
#pragma once

#include <vector>

#include "fabric/model.h"
#include "store/records.h"

namespace ibw::cli {

fabric::Fabric fabric_from_ports(const std::vector<store::PortRecord>& ports);

}  // namespace ibw::cli
