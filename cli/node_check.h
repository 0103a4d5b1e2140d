// The pre-job check of `ibwarden check --nodes HOSTLIST` (issue 33 item 5), answered from the
// daemon's state (cli/daemon_view.h: the stored ports, disabled ports, work orders, decisions):
//  - hosts: every CA of every listed Slurm node has its links Active at full width and speed
//    (full: the width and speed most Active host links of the fabric run at), none disabled;
//  - routes: no route between two listed hosts crosses a bad link: disabled by ibwarden or
//    down (switch-to-switch), suspect (an active work order), or error-rising (a rule
//    decision in the last hour, or error counters that rose over the last sweep). Down and
//    disabled links are asked over every minimal route of the fabric with them up (the LFTs
//    route around a link once OpenSM has swept, so they cannot tell what it cut); the others
//    by the configured routing (DaemonView::crossing).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/daemon_view.h"

namespace ibw::cli {

struct NodeProblem {
  std::string host;  // Slurm node, or a compressed hostlist of those a bad link affects
  std::string link;  // "node0001 mlx5_0/1 - leaf001/1"
  std::string why;
};

struct NodeCheck {
  std::vector<std::string> unknown;  // names no CA of the fabric maps to
  std::vector<NodeProblem> problems;
  size_t nodes = 0, cas = 0;  // listed nodes, and their CAs
  size_t bad_links = 0;       // bad links of the fabric that were asked
};

// `names`: the expanded hostlist. now_us: the end of the decision window (the last hour).
NodeCheck check_nodes(const DaemonView& v, const std::vector<std::string>& names, int64_t now_us);

}  // namespace ibw::cli
