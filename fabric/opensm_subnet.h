// OpenSM's own list of the links it swept (`opensm-subnet.lst`, written after every sweep into
// its dump directory, opensm.dump_dir): a second witness for links a live discovery of ours
// lost. OpenSM sweeps with retries on every sweep, so a link whose SMPs are partly dropped is
// usually on its list while our one-shot discovery missed it.
//
// One line per link end (each link appears from both sides):
//   { SW Ports:24 SystemGUID:.. NodeGUID:0002c90000000001 PortGUID:.. VenID:.. DevID:..
//     Rev:.. {leaf001} LID:0001 PN:05 } { SW ... NodeGUID:... {spine001} LID:0005 PN:01 }
//     PHY=4x LOG=ACT SPD=10
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/model.h"

namespace ibw::fabric {

struct SubnetLink {
  uint64_t a_guid = 0;  // node GUIDs
  int a_port = 0;
  uint64_t b_guid = 0;
  int b_port = 0;
  bool active = false;  // LOG=ACT
};

// Pure parser: every line with two "{ ... NodeGUID:X ... PN:Y }" ends. Lines it cannot read
// are skipped (the file is OpenSM's, rewritten while we may read it) and counted in *skipped.
std::vector<SubnetLink> parse_opensm_subnet(std::string_view text, size_t* skipped = nullptr);

// Connects in `fabric` every Active link of `links` whose two nodes are in the fabric and whose
// two ports are both without a peer and not known to be down (a port the discovery did not
// read is taken as OpenSM saw it: Active, LinkUp). Returns "NODE/PORT - NODE/PORT" labels of
// the links added. Names come from the fabric as it is (call before or after naming).
std::vector<std::string> connect_subnet_links(Fabric& fabric, const std::vector<SubnetLink>& links);

}  // namespace ibw::fabric
