// One hop of a LID-routed path, as trace_path, pairs_crossing and the route check take it:
// the step a node makes towards a destination LID (fabric/routing_path.cpp). Internal to
// fabric/: the routing analyses share it so that they agree on what a broken route is.
#pragma once

#include <cstdint>
#include <string>

#include "fabric/routing.h"

namespace ibw::fabric::routing_detail {

enum class StepStatus : uint8_t {
  arrived,          // this hop is the destination
  forward,          // leaves through out_port to (next_node, next_port)
  no_lft,           // a switch without a table
  no_entry,         // LFT[dlid] is kNoLftEntry or beyond the table
  port_zero,        // LFT[dlid] = 0 at a switch that does not own dlid
  bad_port,         // LFT[dlid] above the switch's ports
  no_link,          // out port absent or without a peer
  link_down,        // out port or its peer known and not Active
  not_destination,  // reached a CA/router that is not the destination (or the wrong port)
};

struct Step {
  StepStatus status = StepStatus::arrived;
  int out_port = 0;  // as recorded on the hop
  uint32_t next_node = kNoNode;
  int next_port = 0;
};

struct Destination {
  uint16_t lid = 0;
  uint32_t node = kNoNode;
  int port = 0;
};

// A port that exists and is Active, or whose state the model does not know (0).
bool port_active_or_unknown(const Port* p);

// One hop of the trace at `node`, entered through in_port (0 at the source, whose out port
// is src_port when it is not a switch). lft is the node's table when it is a switch.
Step step_from(const Fabric& fabric, const Lft* lft, uint32_t node, int in_port, int src_port,
               const Destination& dst);

// The error text trace_path reports for a step that is neither arrived nor forward.
std::string step_error(const Fabric& fabric, uint32_t node, const Step& s, uint16_t dlid);

}  // namespace ibw::fabric::routing_detail
