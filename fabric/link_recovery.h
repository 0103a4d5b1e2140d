// Discovery that survives a lossy link. A discovery learns a link from the NodeInfo SMP it
// sends across it; on a cable that drops a share of its packets that SMP and its retries can
// all be lost, and the link (and every node only reached through it) vanishes although both
// ports are Active. A one-shot command then never tests the very link it should name.
//
// recover_lost_links() looks again at every Active port the discovery left without a peer
// (and every switch port it could not read at all): it re-asks PortInfo and NodeInfo through
// that port with retries, along several directed routes to its node (through other parallel
// links and other spines), adds the peer it finds (and, for a node the discovery never saw,
// the node with its ports, whose own peerless ports are then looked at in the next pass).
// Then, where OpenSM's own list of swept links is at hand (fabric/opensm_subnet.h), it adds
// the links OpenSM saw Active that are still missing. A link that needed any of this is itself
// evidence of loss: the report says which, and how many SMPs it took.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/model.h"
#include "fabric/smp_port.h"

namespace ibw::fabric {

struct RecoveryOptions {
  std::string ca;             // umad CA; empty = first
  int ca_port = 0;            // 0 = first active
  unsigned timeout_ms = 0;    // per SMP; 0 = libibmad's default
  unsigned attempts = 6;      // SMPs per question and route
  unsigned routes = 4;        // directed routes tried per node
  int passes = 3;             // a recovered switch brings its own ports into the next pass
  int64_t budget_ms = 20000;  // stop asking after this long (a dead port must not hang us)
  std::string subnet_list;    // OpenSM's opensm-subnet.lst; "" or missing = not used
};

struct RecoveredLink {
  std::string label;       // "NODE/PORT - NODE/PORT" (names as the fabric had them then)
  std::string how;         // "re-asked" or "opensm"
  unsigned smps_sent = 0;  // re-asked: SMPs sent for this link until it answered
  unsigned smps_lost = 0;  // ... of which unanswered
};

struct RecoveryReport {
  size_t peerless = 0;                  // Active ports without a peer the discovery left
  std::vector<RecoveredLink> links;     // links added, in the order found
  size_t nodes_added = 0;               // nodes the discovery had lost entirely
  size_t lids_recovered = 0;            // switches whose port 0 (their LID) was read again
  size_t ports_reread = 0;              // linked ports whose PortInfo the discovery lost
  std::vector<std::string> unresolved;  // Active ports still without a peer ("NODE/PORT")
  std::vector<std::string> warnings;    // e.g. the budget ran out, the port could not open
};

// Live: opens its own SMP port (under locks.smp, fabric/smp_port.h) and re-asks as above.
// Never throws for a port that stays silent; an SMP port that cannot be opened is a warning.
// Without peerless ports it sends nothing.
RecoveryReport recover_lost_links(MadLocks& locks, Fabric& fabric, const RecoveryOptions& options);

// OpenSM's list alone (no SMPs), for fabrics loaded from a file or when live asking is off.
// Appends to `report`.
void recover_from_subnet_list(Fabric& fabric, const std::string& path, RecoveryReport& report);

// One line for logs and `probe`'s summary: "2 of 3 peerless Active ports recovered (2 links,
// 4 nodes; 9 of 14 SMPs lost)"; "" when the discovery left none.
std::string recovery_summary(const RecoveryReport& report);

}  // namespace ibw::fabric
