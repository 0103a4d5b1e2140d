// SlurmHosts: what the daemon sees of every Slurm node's host, for the Slurm drain
// (actions/slurm_drain.h). It learns the mapped CAs of each discovery (fabric/host_map.h:
// node descriptions or slurm.node_map) with their links and the width and speed their ports
// enable, and keeps them when a host drops out of a later discovery (a host whose only link
// is down is not discovered). views() then judges each Slurm node from the port table, the
// ports ibwarden disabled and the active host_down incidents:
//   - cut_off: every link of the node's CAs down, disabled by ibwarden, or an active host_down
//     incident of one of its CAs with links still down (an incident stays active for a quiet
//     time after its links are back: the links decide then);
//   - degraded: some of its links (not all) down or disabled by ibwarden -- a multi-rail host
//     short of a rail hangs or slows the jobs that use it, and `ibwarden check --nodes` fails it
//     the same way -- or a link up at fewer lanes or a lower speed than its ports enable;
//   - whole otherwise.
// Not thread-safe: one owner (the Slurm worker thread).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actions/slurm_drain.h"
#include "daemon/port_table.h"
#include "fabric/host_map.h"
#include "fabric/model.h"
#include "rules/incidents.h"

namespace ibw::daemon {

class SlurmHosts {
 public:
  // Learns the mapped CAs of `fabric` and their linked ports (kept across discoveries).
  void learn(const fabric::Fabric& fabric, const fabric::HostMapFile& map);
  // Every learned Slurm node, judged now. `disabled`: ports ibwarden disabled (either end of
  // a host link); `incidents`: incidents as IncidentTracker::list gives them.
  std::vector<actions::SlurmHostView> views(const PortTable& ports,
                                            const std::set<std::pair<uint64_t, int>>& disabled,
                                            const std::vector<rules::Incident>& incidents) const;
  size_t size() const { return cas_.size(); }

 private:
  struct CaPort {
    core::LinkEnd ca, peer;
    int width = 0;  // enabled lanes (0 unknown)
    fabric::Speed speed = fabric::Speed::unknown;
  };
  struct Ca {
    std::string node;  // Slurm node
    std::map<int, CaPort> ports;
  };
  std::map<uint64_t, Ca> cas_;  // by CA GUID
};

}  // namespace ibw::daemon
