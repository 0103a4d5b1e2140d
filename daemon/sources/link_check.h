// The link check: the fast path from a link-state trap to link_down / link_up events.
// OpenSM logs trap 128 ("Link state change") with the LID of the switch that sent it. A full
// re-discovery waits for opensm.rediscover_delay and then sweeps every node (0.3 s at 1,000
// nodes, seconds at 5,000 switches); this check instead reads PortInfo of the trapping
// switch's ports right away (one SMP each, over a directed route from the local port, each
// bounded by counters.timeout), and PortTable::apply_link_states turns the states into
// events for both ends of each changed cable, and the current topology gets the same change
// (a link that went down leaves the fabric model; one that came back to its last peer returns
// to it), so the rules and the guard act on it at once. The re-discovery still follows for
// the topology (new peers, swapped cables, widths and speeds); it finds no change for what the
// check reported.
// Runs on the OpenSM watcher's thread. Only with live discovery (a topology file has no ports to
// read).
#pragma once

#include <cstdint>
#include <set>

#include "daemon/source.h"

namespace ibw::daemon {

// Reads the ports of the switches at `lids` and applies their link states: events and port
// records go to the store queue and the rules. A switch that cannot be read (no route, no
// answer) is logged and left to the re-discovery. Returns the number of link events made.
size_t check_links(SourceContext& ctx, const std::set<uint16_t>& lids);

}  // namespace ibw::daemon
