// Fabrics and tables built in code for the route check's unit tests (fabric/route_check.h):
// a Net of named switches and hosts with consecutive LIDs, a ring of switches, min-hop tables
// as OpenSM's minhop builds them, and cut() to forget a link.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fabric/routing.h"
#include "tests/unit/fabric/test_net.h"

namespace route_check_test {

using namespace ibw::fabric;  // NOLINT: test helpers

struct Net : ibw::test_net::NetBase {
  std::vector<uint32_t> switches, hosts;
  uint16_t next_lid = 1;
  uint32_t sw(const std::string& name, int ports) {
    uint32_t i = add_node(NodeType::sw, name, ports);
    fab.node(i).name = name;
    fab.node(i).ports[0].lid = next_lid++;
    switches.push_back(i);
    return i;
  }
  uint32_t host(const std::string& name, uint32_t leaf, int leaf_port) {
    uint32_t i = add_node(NodeType::ca, name, 1);
    fab.node(i).name = name;
    fab.node(i).ports[1].lid = next_lid++;
    link(i, 1, leaf, leaf_port);
    hosts.push_back(i);
    return i;
  }
};

// Switch-hop distances from every switch to every switch over links that are up.
inline std::map<uint32_t, std::map<uint32_t, int>> switch_distances(
    const Fabric& f, const std::vector<uint32_t>& sws) {
  std::map<uint32_t, std::map<uint32_t, int>> dist;
  for (uint32_t s : sws) {
    auto& d = dist[s];
    d[s] = 0;
    std::vector<uint32_t> q = {s};
    for (size_t h = 0; h < q.size(); ++h) {
      const Node& n = f.node(q[h]);
      for (int p = 1; p <= n.num_ports; ++p) {
        const Port* port = n.port(p);
        if (!port->has_peer() || f.node(port->peer_node).type != NodeType::sw) continue;
        if (d.count(port->peer_node)) continue;
        d[port->peer_node] = d[q[h]] + 1;
        q.push_back(port->peer_node);
      }
    }
  }
  return dist;
}

// The switch a LID belongs to (its own, or a host's leaf).
inline uint32_t home_switch(const Fabric& f, const LidIndex& lids, uint16_t lid) {
  auto at = lids.find(lid);
  const Node& n = f.node(at->first);
  if (n.type == NodeType::sw) return at->first;
  return n.port(at->second)->peer_node;
}

// Min-hop tables as OpenSM's minhop builds them: among the ports on a shortest path, the one
// with the fewest LIDs routed through it so far (then the lowest), over the model's links.
inline RoutingTables minhop(const Fabric& f, const std::vector<uint32_t>& sws) {
  auto dist = switch_distances(f, sws);
  LidIndex lids(f);
  RoutingTables t;
  for (uint32_t s : sws) {
    Lft lft;
    lft.switch_guid = f.node(s).guid;
    lft.out_port.assign(size_t{lids.lids().back()} + 1, kNoLftEntry);
    const Node& n = f.node(s);
    std::vector<int> used(static_cast<size_t>(n.num_ports) + 1, 0);
    for (uint16_t lid : lids.lids()) {
      auto at = lids.find(lid);
      uint32_t home = home_switch(f, lids, lid);
      if (home == s) {
        lft.out_port[lid] = static_cast<uint8_t>(
            at->first == s ? 0 : f.node(at->first).port(at->second)->peer_port);
        continue;
      }
      int best = 0, best_d = 1 << 20;
      for (int p = 1; p <= n.num_ports; ++p) {
        const Port* port = n.port(p);
        if (!port->has_peer() || f.node(port->peer_node).type != NodeType::sw) continue;
        auto it = dist[port->peer_node].find(home);
        if (it == dist[port->peer_node].end()) continue;
        if (it->second < best_d || (it->second == best_d && used[p] < used[best]))
          best = p, best_d = it->second;
      }
      if (best) {
        lft.out_port[lid] = static_cast<uint8_t>(best);
        ++used[best];
      }
    }
    t.by_switch[lft.switch_guid] = lft;
  }
  return t;
}

// Forgets the link at (node, port) on both ends.
inline void cut(Fabric& f, uint32_t node, int port) {
  Port* p = f.node(node).port(port);
  Port* far = f.node(p->peer_node).port(p->peer_port);
  far->peer_node = kNoNode, far->peer_port = 0;
  p->peer_node = kNoNode, p->peer_port = 0;
}

// A ring of n switches (port 2 to the next, port 3 to the previous), one host each; the
// switches' GUIDs from first_guid on (the ibsim ring lab's are 0x0002c90300000101...).
inline Net ring(int n, uint64_t first_guid = 0x0002c90300001000ULL) {
  Net net;
  net.next_guid = first_guid;
  for (int i = 0; i < n; ++i) net.sw("sw" + std::to_string(i + 1), 3);
  for (int i = 0; i < n; ++i) net.link(net.switches[i], 2, net.switches[(i + 1) % n], 3);
  for (int i = 0; i < n; ++i) net.host("h" + std::to_string(i + 1), net.switches[i], 1);
  return net;
}

}  // namespace route_check_test
