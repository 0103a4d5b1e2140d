// ibw-bench-route_check: the route check on the audit bench's 3-tier k-ary fat tree
// (ibw::lab::make_fat_tree, k=64: 65,536 hosts, 5,120 switches) with generated LFTs.
//   ibw-bench-route_check K check        times fabric::check_routes in process (the LFTs of
//                                        k=64 as dump text would be ~10 GB)
//   ibw-bench-route_check K standin      the stand-in for ibdmchk (not packaged in Debian):
//                                        trace_path for every (CA, LID) pair, the CDG as a
//                                        hash set of edges, a recursive Tarjan
//   ibw-bench-route_check K dump DIR     writes DIR/topology.txt and DIR/opensm-lfts.dump (for
//                                        `ibwarden route check` end to end on smaller k)
//   ibw-bench-route_check K link         times fabric::hosts_crossing (the hosts one link
//                                        carries, `ibwarden jobs --link`, issue 33) on a leaf
//                                        uplink, an aggregation-core link and a host link,
//                                        static (LFTs) and adaptive (minimal routes)
//   ibw-bench-route_check K jobs         times the affected jobs of a link as the daemon asks
//                                        them (issue 33): fabric::hosts_of_link over the LFTs,
//                                        then actions::affected_jobs against 10,000 synthetic
//                                        running jobs (the HostMap and JobIndex built once,
//                                        as the daemon keeps them); prints a RESULT-ready line
// The LFTs are ftree-like: CA LIDs up/down (up ports chosen by destination index mod the
// number of up ports, down by the port towards the destination's leaf); switch LIDs min-hop.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <unordered_set>
#include <vector>

#include "actions/affected_jobs.h"
#include "fabric/ibnetdiscover_parser.h"
#include "fabric/link_hosts.h"
#include "fabric/node_name_map.h"
#include "fabric/route_check.h"
#include "fabric/routing.h"
#include "tests/lab/fat_tree.h"

using namespace ibw::fabric;

namespace {

// Levels: leaves (a CA neighbour) 0, then by switch hops from the nearest leaf.
std::vector<int> levels(const Fabric& f) {
  std::vector<int> level(f.size(), -1);
  std::vector<uint32_t> q;
  for (uint32_t i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    if (n.type != NodeType::sw) continue;
    for (int p = 1; p <= n.num_ports; ++p)
      if (n.port(p)->has_peer() && f.node(n.port(p)->peer_node).type != NodeType::sw) {
        level[i] = 0;
        q.push_back(i);
        break;
      }
  }
  for (size_t h = 0; h < q.size(); ++h)
    for (const Port& p : f.node(q[h]).ports)
      if (p.has_peer() && f.node(p.peer_node).type == NodeType::sw && level[p.peer_node] < 0) {
        level[p.peer_node] = level[q[h]] + 1;
        q.push_back(p.peer_node);
      }
  return level;
}

RoutingTables generate(const Fabric& f) {
  std::vector<int> level = levels(f);
  LidIndex lids(f);
  size_t top = lids.lids().back();
  std::vector<uint32_t> sws;
  for (uint32_t i = 0; i < f.size(); ++i)
    if (f.node(i).type == NodeType::sw) sws.push_back(i);
  RoutingTables t;
  for (uint32_t s : sws) {
    Lft& l = t.by_switch[f.node(s).guid];
    l.switch_guid = f.node(s).guid;
    l.switch_lid = f.node(s).ports[0].lid;
    l.out_port.assign(top + 1, kNoLftEntry);
  }
  // CA LIDs: per destination leaf, the down port of every switch above it (breadth first up).
  std::vector<uint16_t> ca_lids;
  std::vector<uint32_t> leaf_of(top + 1, kNoNode), ca_index(top + 1, 0);
  for (uint16_t lid : lids.lids()) {
    auto at = lids.find(lid);
    const Node& n = f.node(at->first);
    if (n.type == NodeType::sw) continue;
    const Port* p = n.port(at->second);
    leaf_of[lid] = p->peer_node;
    t.by_switch[f.node(p->peer_node).guid].out_port[lid] = static_cast<uint8_t>(p->peer_port);
    ca_index[lid] = static_cast<uint32_t>(ca_lids.size());
    ca_lids.push_back(lid);
  }
  std::vector<std::vector<uint16_t>> by_leaf(f.size());
  for (uint16_t lid : ca_lids) by_leaf[leaf_of[lid]].push_back(lid);
  std::vector<uint8_t> down(f.size(), 0);
  std::vector<uint32_t> above;
  for (uint32_t leaf : sws) {
    if (by_leaf[leaf].empty()) continue;
    std::fill(down.begin(), down.end(), 0);
    above = {leaf};
    for (size_t h = 0; h < above.size(); ++h) {
      const Node& n = f.node(above[h]);
      for (int p = 1; p <= n.num_ports; ++p) {
        const Port* port = n.port(p);
        if (!port->has_peer() || level[port->peer_node] != level[above[h]] + 1) continue;
        if (down[port->peer_node]) continue;
        down[port->peer_node] = static_cast<uint8_t>(port->peer_port);
        above.push_back(port->peer_node);
      }
    }
    for (uint32_t s : sws) {
      if (s == leaf) continue;
      Lft& l = t.by_switch[f.node(s).guid];
      std::vector<int> ups;
      if (!down[s])
        for (int p = 1; p <= f.node(s).num_ports; ++p) {
          const Port* port = f.node(s).port(p);
          if (port->has_peer() && level[port->peer_node] == level[s] + 1) ups.push_back(p);
        }
      // d-mod-k: level L picks up port (d / n_up^L) mod n_up, d the destination's index
      size_t div = 1;
      for (int i = 0; i < level[s] && !ups.empty(); ++i) div *= ups.size();
      for (uint16_t lid : by_leaf[leaf])
        l.out_port[lid] =
            static_cast<uint8_t>(down[s] ? down[s] : ups[(ca_index[lid] / div) % ups.size()]);
    }
  }
  // Switch LIDs: min-hop, breadth first from each switch (the port towards the parent).
  std::vector<int> dist(f.size());
  for (uint32_t d : sws) {
    std::fill(dist.begin(), dist.end(), -1);
    uint16_t lid = f.node(d).ports[0].lid;
    t.by_switch[f.node(d).guid].out_port[lid] = 0;
    std::vector<uint32_t> q = {d};
    dist[d] = 0;
    for (size_t h = 0; h < q.size(); ++h) {
      const Node& n = f.node(q[h]);
      for (int p = 1; p <= n.num_ports; ++p) {
        const Port* port = n.port(p);
        if (!port->has_peer() || f.node(port->peer_node).type != NodeType::sw) continue;
        if (dist[port->peer_node] >= 0) continue;
        dist[port->peer_node] = dist[q[h]] + 1;
        t.by_switch[f.node(port->peer_node).guid].out_port[lid] =
            static_cast<uint8_t>(port->peer_port);
        q.push_back(port->peer_node);
      }
    }
  }
  return t;
}

// The stand-in: every pair traced, the CDG as a hash set, Tarjan by recursion.
size_t standin_loops(const Fabric& f, const RoutingTables& t, uint64_t* broken) {
  LidIndex lids(f);
  std::unordered_set<uint64_t> edges;
  auto chan = [](uint32_t node, int port) { return uint64_t{node} << 8 | uint64_t(port); };
  for (uint16_t s : lids.lids()) {
    if (f.node(lids.find(s)->first).type == NodeType::sw) continue;
    for (uint16_t d : lids.lids()) {
      if (s == d) continue;
      PathResult p = trace_path(f, t, lids, s, d);
      if (!p.ok()) ++*broken;
      for (size_t i = 2; i < p.hops.size(); ++i)
        if (p.hops[i].out_port && p.hops[i - 1].out_port)
          edges.insert(chan(p.hops[i - 1].node, p.hops[i - 1].out_port) << 32 |
                       chan(p.hops[i].node, p.hops[i].out_port));
    }
  }
  std::unordered_map<uint64_t, std::vector<uint64_t>> adj;
  for (uint64_t e : edges) adj[e >> 32].push_back(e & 0xffffffff);
  std::unordered_map<uint64_t, int> index, low;
  std::unordered_set<uint64_t> on;
  std::vector<uint64_t> stack;
  int counter = 0;
  size_t sccs = 0;
  std::function<void(uint64_t)> visit = [&](uint64_t v) {
    index[v] = low[v] = counter++;
    stack.push_back(v), on.insert(v);
    for (uint64_t w : adj[v]) {
      if (!index.count(w)) {
        visit(w);
        low[v] = std::min(low[v], low[w]);
      } else if (on.count(w)) {
        low[v] = std::min(low[v], index[w]);
      }
    }
    if (low[v] != index[v]) return;
    size_t size = 0;
    uint64_t w = 0;
    do {
      w = stack.back();
      stack.pop_back(), on.erase(w), ++size;
    } while (w != v);
    if (size > 1) ++sccs;
  };
  for (auto& [v, _] : adj)
    if (!index.count(v)) visit(v);
  return sccs;
}

void write_dump(const Fabric& f, const RoutingTables& t, const std::string& path) {
  FILE* out = std::fopen(path.c_str(), "w");
  for (uint32_t i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    if (n.type != NodeType::sw) continue;
    const Lft& l = t.by_switch.at(n.guid);
    std::fprintf(out, "Unicast lids [0x0-0x%zx] of switch Lid %u guid 0x%016llx ('%s'):\n",
                 l.out_port.size() - 1, l.switch_lid, static_cast<unsigned long long>(n.guid),
                 n.description.c_str());
    for (size_t lid = 1; lid < l.out_port.size(); ++lid)
      if (l.out_port[lid] != kNoLftEntry) std::fprintf(out, "0x%04zx %03u\n", lid, l.out_port[lid]);
  }
  std::fclose(out);
}

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One link of each kind: a leaf's first uplink, an aggregation switch's first uplink (to a
// core), a host's link; each timed static and adaptive (the model built once, as a daemon
// keeps it).
int time_link_hosts(const Fabric& fab, const RoutingTables& tables, int k) {
  std::vector<int> level = levels(fab);
  auto uplink = [&](int lvl) -> std::pair<uint32_t, int> {
    for (uint32_t i = 0; i < fab.size(); ++i)
      if (level[i] == lvl)
        for (int p = 1; p <= fab.node(i).num_ports; ++p) {
          const Port* q = fab.node(i).port(p);
          if (q->has_peer() && level[q->peer_node] == lvl + 1) return {i, p};
        }
    return {kNoNode, 0};
  };
  std::pair<uint32_t, int> host{kNoNode, 1};
  for (uint32_t i = 0; i < fab.size() && host.first == kNoNode; ++i)
    if (fab.node(i).type == NodeType::ca) host.first = i;
  LidIndex lids(fab);
  auto t0 = std::chrono::steady_clock::now();
  RouteModel model(fab, &tables);
  std::printf("link k=%d: adaptive route model built in %.3f s\n", k, since(t0));
  const std::pair<const char*, std::pair<uint32_t, int>> links[] = {
      {"leaf uplink", uplink(0)}, {"aggregation-core", uplink(1)}, {"host link", host}};
  // Process CPU seconds beside the wall time: on a shared machine the wall time grows with the
  // load, the CPU time (all threads) much less.
  auto cpu = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  };
  for (const auto& [what, at] : links) {
    auto t1 = std::chrono::steady_clock::now();
    double c1 = cpu();
    LinkHosts st = hosts_crossing(fab, tables, lids, at.first, at.second);
    double s1 = since(t1), u1 = cpu() - c1;
    auto t2 = std::chrono::steady_clock::now();
    double c2 = cpu();
    LinkHosts ar = hosts_crossing_adaptive(model, at.first, at.second);
    double s2 = since(t2), u2 = cpu() - c2;
    std::printf(
        "link k=%d %s %s: static %.3f s (cpu %.3f s; %zu hosts, %llu pairs), adaptive %.3f s "
        "(cpu %.3f s; %zu hosts, %llu pairs)\n",
        k, what, fab.port_label(at.first, at.second).c_str(), s1, u1, st.cas.size(),
        static_cast<unsigned long long>(st.pairs), s2, u2, ar.cas.size(),
        static_cast<unsigned long long>(ar.pairs));
  }
  return 0;
}

// 10,000 running jobs over the hosts' Slurm nodes (node descriptions "hostname hca": the
// generated CA names), 1 to 16 nodes each, then the affected jobs of a leaf uplink, an
// aggregation-core link and a host link, each timed end to end (hosts, nodes, jobs).
int time_affected_jobs(const Fabric& fab, const RoutingTables& tables, int k) {
  Fabric named = fab;
  std::vector<std::string> nodes;
  for (uint32_t i = 0; i < named.size(); ++i)
    if (named.node(i).type == NodeType::ca) {
      nodes.push_back("node" + std::to_string(nodes.size() + 1));
      named.node(i).description = nodes.back() + " mlx5_0";
    }
  auto t0 = std::chrono::steady_clock::now();
  HostMap hosts(named, nullptr);
  std::vector<ibw::actions::SlurmJob> jobs(10'000);
  for (size_t j = 0; j < jobs.size(); ++j) {
    jobs[j].id = std::to_string(1000 + j);
    jobs[j].user = "user" + std::to_string(j % 97);
    jobs[j].node_count = 1 + static_cast<int>(j % 16);
    for (int n = 0; n < jobs[j].node_count; ++n)
      jobs[j].nodes.push_back(nodes[(j * 7 + static_cast<size_t>(n)) % nodes.size()]);
  }
  ibw::actions::JobIndex index(jobs);
  std::printf("jobs k=%d: host map (%zu mapped) and 10,000-job index in %.3f s\n", k,
              hosts.mapped().size(), since(t0));
  std::vector<int> level = levels(named);
  auto uplink = [&](int lvl) -> std::pair<uint32_t, int> {
    for (uint32_t i = 0; i < named.size(); ++i)
      if (level[i] == lvl)
        for (int p = 1; p <= named.node(i).num_ports; ++p)
          if (const Port* q = named.node(i).port(p);
              q->has_peer() && level[q->peer_node] == lvl + 1)
            return {i, p};
    return {kNoNode, 0};
  };
  std::pair<uint32_t, int> host{kNoNode, 1};
  for (uint32_t i = 0; i < named.size() && host.first == kNoNode; ++i)
    if (named.node(i).type == NodeType::ca) host.first = i;
  const std::pair<const char*, std::pair<uint32_t, int>> links[] = {
      {"leaf uplink", uplink(0)}, {"aggregation-core", uplink(1)}, {"host link", host}};
  for (const auto& [what, at] : links) {
    auto t1 = std::chrono::steady_clock::now();
    LinkHosts crossing = hosts_of_link(named, &tables, at.first, at.second);
    ibw::actions::AffectedJobs a = ibw::actions::affected_jobs(hosts, crossing, index);
    std::printf("jobs k=%d %s %s: %.3f s (%zu hosts, %zu nodes, %zu of 10000 jobs)\n", k, what,
                named.port_label(at.first, at.second).c_str(), since(t1), a.hosts, a.nodes.size(),
                a.jobs.size());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: ibw-bench-route_check K check|standin|link|jobs|dump [DIR]\n";
    return 2;
  }
  ibw::lab::FatTreeSpec spec;
  spec.tiers = 3;
  spec.k = std::stoi(argv[1]);
  spec.spare_ports = 0;
  std::string mode = argv[2];
  auto t0 = std::chrono::steady_clock::now();
  auto lab = ibw::lab::make_fat_tree(spec);
  std::string text = ibw::lab::to_ibnetdiscover(lab);
  Fabric fab = parse_ibnetdiscover(text, "generated");
  apply_node_names(fab, nullptr);
  RoutingTables tables = generate(fab);
  std::fprintf(stderr, "k=%d: %zu nodes, LFTs generated in %.2f s\n", spec.k,
               static_cast<size_t>(fab.size()), since(t0));
  if (mode == "dump" && argc > 3) {
    std::ofstream(std::string(argv[3]) + "/topology.txt") << text;
    write_dump(fab, tables, std::string(argv[3]) + "/opensm-lfts.dump");
    return 0;
  }
  auto t1 = std::chrono::steady_clock::now();
  if (mode == "standin") {
    uint64_t broken = 0;
    size_t loops = standin_loops(fab, tables, &broken);
    std::printf("standin k=%d: %.3f s, credit loops (SCCs) %zu, broken pairs %llu\n", spec.k,
                since(t1), loops, static_cast<unsigned long long>(broken));
    return 0;
  }
  if (mode == "link") return time_link_hosts(fab, tables, spec.k);
  if (mode == "jobs") return time_affected_jobs(fab, tables, spec.k);
  RouteCheck c = check_routes(fab, tables);
  std::printf(
      "check k=%d: %.3f s, %zu sources x %zu destinations, credit loops %zu, "
      "unreachable %llu, balance %llu/%llu (ratio %.2f)\n",
      spec.k, since(t1), c.sources, c.destinations, c.credit_loops.size(),
      static_cast<unsigned long long>(c.unreachable_pairs),
      static_cast<unsigned long long>(c.balance.max_routes),
      static_cast<unsigned long long>(c.balance.min_routes), c.balance.ratio);
  return 0;
}
