// Integration: routing tables on a generated fat tree running on real ibsim + OpenSM.
//  - The LFTs read live over SMPs equal OpenSM's own opensm-lfts.dump, switch by switch.
//  - trace_path equals `ibtracert` hop by hop (ports, LIDs, names, switch GUIDs) on a sample
//    of pairs, including switch LIDs and a pair OpenSM left unrouted.
//  - pairs_crossing equals tracing every pair, on a leaf uplink, a spine port and a host port.
// The live part needs umad2sim, so this binary runs itself under the simulator (SimLab::run)
// with the hidden test "[routing-live-child]", which writes its traces for the parent.
// Also, without the simulator: pairs_crossing on a 1,024-host fat tree (from to_ibnetdiscover
// text and min-hop tables computed here) is checked against tracing and timed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "fabric/diagnostics.h"
#include "fabric/ibnd_loader.h"
#include "fabric/ibnetdiscover_parser.h"
#include "fabric/node_name_map.h"
#include "fabric/routing.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"

using namespace ibw::fabric;
using namespace ibw::lab;

namespace routing_lab {

using Pairs = std::vector<std::pair<uint16_t, uint16_t>>;

// Every ordered pair of `ends` whose traced hops leave through (node, port) or its peer.
Pairs traced_pairs(const Fabric& fab, const RoutingTables& tables, const LidIndex& lids,
                   const std::vector<uint16_t>& sources, const std::vector<uint16_t>& ends,
                   uint32_t node, int port) {
  const Port* p = fab.node(node).port(port);
  Pairs out;
  for (uint16_t s : sources)
    for (uint16_t d : ends) {
      if (s == d) continue;
      for (const Hop& h : trace_path(fab, tables, lids, s, d).hops)
        if ((h.node == node && h.out_port == port) ||
            (p->has_peer() && h.node == p->peer_node && h.out_port == p->peer_port)) {
          out.emplace_back(s, d);
          break;
        }
    }
  return out;
}

std::vector<uint16_t> endpoint_lids(const Fabric& fab, const LidIndex& lids, bool switches) {
  std::vector<uint16_t> out;
  for (uint16_t l : lids.lids())
    if (switches || fab.node(lids.find(l)->first).type != NodeType::sw) out.push_back(l);
  return out;
}

// One traced path as the child writes it and the parent reads it.
struct TraceHop {
  bool is_switch = false;
  uint64_t guid = 0;
  int in_port = 0, out_port = 0, lid = 0;
  std::string desc;
};
struct TraceRecord {
  std::string error;
  std::vector<TraceHop> hops;
};
using TraceFile = std::map<std::pair<int, int>, TraceRecord>;

// path SRC DST [error text]
// hop sw|ca GUID IN OUT LID DESC
void write_trace(std::ostream& out, const Fabric& fab, uint16_t s, uint16_t d,
                 const PathResult& p) {
  out << "path " << s << " " << d << (p.ok() ? "" : " ") << p.error << "\n";
  for (size_t i = 0; i < p.hops.size(); ++i) {
    const Hop& h = p.hops[i];
    const Node& n = fab.node(h.node);
    bool sw = n.type == NodeType::sw;
    int lid = sw                       ? n.ports[0].lid
              : i == 0                 ? s
              : i + 1 == p.hops.size() ? d
                                       : n.ports[h.in_port].lid;
    out << "hop " << (sw ? "sw " : "ca ") << format_guid(n.guid) << " " << h.in_port << " "
        << h.out_port << " " << lid << " " << n.description << "\n";
  }
}

TraceFile read_traces(const std::string& path) {
  TraceFile out;
  std::ifstream in(path);
  TraceRecord* current = nullptr;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    std::string kind;
    ls >> kind;
    if (kind == "path") {
      int s = 0, d = 0;
      ls >> s >> d;
      current = &out[{s, d}];
      std::getline(ls >> std::ws, current->error);
    } else if (kind == "hop" && current) {
      TraceHop h;
      std::string type, guid;
      ls >> type >> guid >> h.in_port >> h.out_port >> h.lid;
      std::getline(ls >> std::ws, h.desc);
      h.is_switch = type == "sw";
      h.guid = std::stoull(guid, nullptr, 16);
      current->hops.push_back(h);
    }
  }
  return out;
}

// ibtracert output: `From ca {0xGUID} portnum 1 lid 1-1 "desc"`, then per hop
// `[out] -> switch port {0xGUID}[in] lid 2-2 "desc"`, then `To ...`.
void check_same_as_tracert(const TraceRecord& ours, const std::string& text) {
  static const std::regex end_re(
      R"re(^(From|To) (\w+) \{0x([0-9a-f]+)\} portnum \d+ lid (\d+)-\d+ "(.*)"$)re");
  static const std::regex hop_re(
      R"re(^\[(\d+)\] -> (\w+) port \{0x([0-9a-f]+)\}\[(\d+)\] lid (\d+)-\d+ "(.*)"$)re");
  std::vector<std::smatch> hops;
  std::smatch from, to;
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (const auto& line : lines) {
    std::smatch m;
    if (std::regex_match(line, m, end_re))
      (m[1] == "From" ? from : to) = m;
    else if (std::regex_match(line, m, hop_re))
      hops.push_back(m);
  }
  REQUIRE(!from.empty());
  REQUIRE(!to.empty());
  REQUIRE(ours.hops.size() == hops.size() + 1);
  CHECK(ours.hops.front().guid == std::stoull(from[3], nullptr, 16));
  CHECK(ours.hops.front().lid == std::stoi(from[4]));
  CHECK(ours.hops.back().guid == std::stoull(to[3], nullptr, 16));
  CHECK(ours.hops.back().lid == std::stoi(to[4]));
  for (size_t k = 0; k < hops.size(); ++k) {
    const std::smatch& m = hops[k];
    const TraceHop& next = ours.hops[k + 1];
    INFO("hop " << k << ": " << m[0]);
    CHECK(ours.hops[k].out_port == std::stoi(m[1]));
    CHECK(next.is_switch == (m[2] == "switch"));
    if (next.is_switch) CHECK(next.guid == std::stoull(m[3], nullptr, 16));
    CHECK(next.in_port == std::stoi(m[4]));
    CHECK(next.lid == std::stoi(m[5]));
    CHECK(next.desc == m[6].str());
  }
}

// Waits until OpenSM has written the LFTs of all `switches` (it writes the dump after routing).
bool wait_for_lft_dump(const std::string& path, size_t switches) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      if (load_lft_dump(path).by_switch.size() == switches) return true;
    } catch (const InputError&) {  // missing, or caught half written
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

FatTreeSpec small_tree() {
  FatTreeSpec spec;
  spec.leaves = 4, spec.spines = 2, spec.hosts_per_leaf = 4;
  return spec;
}

// Min-hop LFTs for any fabric: per destination LID, a breadth-first search over the switches
// from the one owning it (or attached to its CA port); every other switch picks, by LID modulo
// their number, one of its ports towards a switch one hop closer (like OpenSM's minhop).
RoutingTables min_hop_tables(const Fabric& fab, const LidIndex& lids) {
  RoutingTables tables;
  size_t top = lids.lids().empty() ? 0 : lids.lids().back();
  for (const Node& n : fab.nodes())
    if (n.type == NodeType::sw)
      tables.by_switch[n.guid] =
          Lft{n.guid, n.ports[0].lid, std::vector<uint8_t>(top + 1, kNoLftEntry)};
  std::vector<int> dist(fab.size());
  std::vector<uint32_t> queue;
  for (uint16_t lid : lids.lids()) {
    auto [owner, owner_port] = *lids.find(lid);
    std::fill(dist.begin(), dist.end(), -1);
    queue.clear();
    if (fab.node(owner).type == NodeType::sw) {
      tables.by_switch[fab.node(owner).guid].out_port[lid] = 0;
      queue.push_back(owner);
      dist[owner] = 0;
    } else {
      const Port& p = fab.node(owner).ports[owner_port];
      if (!p.has_peer() || fab.node(p.peer_node).type != NodeType::sw) continue;
      tables.by_switch[fab.node(p.peer_node).guid].out_port[lid] =
          static_cast<uint8_t>(p.peer_port);
      queue.push_back(p.peer_node);
      dist[p.peer_node] = 0;
    }
    for (size_t head = 0; head < queue.size(); ++head) {
      const Node& n = fab.node(queue[head]);
      for (const Port& p : n.ports)
        if (p.has_peer() && fab.node(p.peer_node).type == NodeType::sw && dist[p.peer_node] < 0) {
          dist[p.peer_node] = dist[queue[head]] + 1;
          queue.push_back(p.peer_node);
        }
    }
    for (size_t i = 1; i < queue.size(); ++i) {
      const Node& n = fab.node(queue[i]);
      std::vector<int> closer;
      for (const Port& p : n.ports)
        if (p.has_peer() && dist[p.peer_node] == dist[queue[i]] - 1 &&
            fab.node(p.peer_node).type == NodeType::sw)
          closer.push_back(p.number);
      tables.by_switch[n.guid].out_port[lid] = static_cast<uint8_t>(closer[lid % closer.size()]);
    }
  }
  return tables;
}

}  // namespace routing_lab

using namespace routing_lab;

TEST_CASE("routing: live LFTs - ibtracert paths and pairs on a fat tree",
          "[integration][routing]") {
  Lab lab = make_fat_tree(small_tree());
  size_t switches = 0;
  for (const auto& n : lab.nodes) switches += n.is_switch;
  SimLabOptions options;
  options.net_text = to_ibsim_net(lab);
  options.opensm_args = {"-D", "0x43"};  // ERROR + INFO + ROUTING: writes opensm-lfts.dump
  SimLab sim(options);
  REQUIRE(wait_for_lft_dump(sim.dir() + "/opensm-lfts.dump", switches));

  // The live half, under umad2sim: this binary again, running only the hidden child test.
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  auto child = sim.run({self, "[routing-live-child]"});
  INFO("child output:\n" << child.out << child.err);
  REQUIRE(child.status == 0);
  TraceFile traces = read_traces(sim.dir() + "/traces.txt");
  REQUIRE(traces.size() == 22 * 21 + 22);  // every ordered pair of 16 CA + 6 switch LIDs

  // A sample of pairs against ibtracert: a spread of CA pairs, switch ends, a self pair.
  std::vector<std::pair<int, int>> sample;
  std::vector<int> ca_lids, sw_lids;
  for (const auto& [key, rec] : traces)
    if (key.first == key.second)
      (rec.hops.front().is_switch ? sw_lids : ca_lids).push_back(key.first);
  REQUIRE(ca_lids.size() == 16);
  for (size_t i = 0; i < ca_lids.size(); ++i)
    for (size_t j = 0; j < ca_lids.size(); ++j)
      if (i != j && (i * 7 + j) % 8 == 0) sample.emplace_back(ca_lids[i], ca_lids[j]);
  sample.emplace_back(ca_lids[3], ca_lids[3]);
  for (size_t k = 0; k < sw_lids.size(); ++k) {
    sample.emplace_back(sw_lids[k], ca_lids[(5 * k) % 16]);
    sample.emplace_back(ca_lids[(3 * k + 1) % 16], sw_lids[k]);
  }
  for (const auto& [s, d] : sample) {
    const TraceRecord& ours = traces.at({s, d});
    auto r = sim.run({"ibtracert", std::to_string(s), std::to_string(d)});
    INFO("ibtracert " << s << " " << d << "\n" << r.out << r.err);
    REQUIRE(r.status == 0);
    REQUIRE(ours.error.empty());
    check_same_as_tracert(ours, r.out);
  }

  // OpenSM's ftree routing leaves spine-to-spine LIDs unrouted: both must fail the same way.
  int broken = 0;
  for (const auto& [key, rec] : traces) {
    if (rec.error.empty() || broken++ > 0) continue;  // compare the first one
    INFO("pair " << key.first << " " << key.second << ": " << rec.error);
    CHECK(rec.error.find("has no forwarding entry") != std::string::npos);
    auto r = sim.run({"ibtracert", std::to_string(key.first), std::to_string(key.second)});
    CHECK(r.status != 0);
    CHECK(r.err.find("Bad forwarding table entry") != std::string::npos);
  }
  CHECK(broken > 0);
}

// Runs only under the simulator, started by the test above (cwd = the lab directory).
TEST_CASE("routing: live half of the routing lab test", "[.][routing-live-child]") {
  if (!std::getenv("IBSIM_SOCKNAME")) {
    WARN("runs only under ibsim, started by \"routing: live LFTs, ibtracert paths ...\"");
    return;
  }
  MadLocks mad;
  Fabric fab = discover_live(mad, {});
  apply_node_names(fab, nullptr);
  RoutingTables live = read_lfts_live(mad, fab);
  RoutingTables dump = load_lft_dump("opensm-lfts.dump");
  size_t switches = 0;
  for (const Node& n : fab.nodes()) switches += n.type == NodeType::sw;
  REQUIRE(switches == 6);
  REQUIRE(live.by_switch.size() == switches);
  REQUIRE(dump.by_switch.size() == switches);
  for (const auto& [guid, lft] : live.by_switch) {
    INFO("switch " << format_guid(guid));
    const Lft* theirs = dump.find(guid);
    REQUIRE(theirs);
    CHECK(lft.out_port == theirs->out_port);  // LinearFDBTop is OpenSM's max LID: same size
    CHECK(lft.switch_lid == theirs->switch_lid);
  }

  // Switches the model gives no LID are read by directed route: the same tables again.
  std::vector<uint16_t> saved;
  for (uint32_t i = 0; i < fab.size(); ++i)
    if (fab.node(i).type == NodeType::sw) {
      saved.push_back(fab.node(i).ports[0].lid);
      for (Port& p : fab.node(i).ports) p.lid = 0;
    }
  RoutingTables by_route = read_lfts_live(mad, fab);
  for (uint32_t i = 0, k = 0; i < fab.size(); ++i)
    if (fab.node(i).type == NodeType::sw) {
      for (Port& p : fab.node(i).ports) p.lid = saved[k];
      ++k;
    }
  REQUIRE(by_route.by_switch.size() == switches);
  for (const auto& [guid, lft] : by_route.by_switch) {
    INFO("switch " << format_guid(guid) << " by directed route");
    CHECK(lft.out_port == live.find(guid)->out_port);
    CHECK(lft.switch_lid == 0);
  }

  LidIndex lids(fab);
  std::ofstream out("traces.txt");
  for (uint16_t s : lids.lids())
    for (uint16_t d : lids.lids()) write_trace(out, fab, s, d, trace_path(fab, live, lids, s, d));
  out.close();

  std::vector<uint16_t> cas = endpoint_lids(fab, lids, false);
  std::vector<uint16_t> all = endpoint_lids(fab, lids, true);
  uint32_t leaf = fab.resolve("leaf001"), spine = fab.resolve("spine002");
  uint32_t host = fab.resolve("node0006 mlx5_0");
  REQUIRE(leaf != kNoNode);
  REQUIRE(fab.node(fab.node(leaf).ports[5].peer_node).description == "spine001");
  for (auto [node, port] : {std::pair{leaf, 5}, std::pair{spine, 3}, std::pair{host, 1}}) {
    INFO(fab.port_label(node, port));
    Pairs fast = pairs_crossing(fab, live, lids, node, port);
    CHECK(!fast.empty());
    CHECK(fast == traced_pairs(fab, live, lids, cas, cas, node, port));
    CHECK(pairs_crossing(fab, live, lids, node, port, true) ==
          traced_pairs(fab, live, lids, all, all, node, port));
  }
}

TEST_CASE("routing: pairs_crossing on a 1024-host fat tree agrees with tracing",
          "[integration][routing][perf]") {
  Lab lab = two_tier_lab(32, 16, 32);
  Fabric fab = parse_ibnetdiscover(to_ibnetdiscover(lab), "fat-tree-1024");
  apply_node_names(fab, nullptr);
  LidIndex lids(fab);
  std::vector<uint16_t> cas = endpoint_lids(fab, lids, false);
  REQUIRE(cas.size() == 1024);
  RoutingTables tables = min_hop_tables(fab, lids);
  REQUIRE(tables.by_switch.size() == 48);

  uint32_t leaf = fab.resolve("leaf001"), spine = fab.resolve("spine009");
  uint32_t host = fab.resolve("node0100 mlx5_0");
  int uplink = 0;
  for (const Port& p : fab.node(leaf).ports)
    if (!uplink && p.has_peer() && fab.node(p.peer_node).type == NodeType::sw) uplink = p.number;
  REQUIRE(uplink > 0);

  // Sources: every 31st CA plus leaf001's own hosts; destinations: every CA.
  std::vector<uint16_t> sources;
  for (size_t i = 0; i < cas.size(); ++i)
    if (i % 31 == 0 || i < 32) sources.push_back(cas[i]);
  for (auto [node, port] : {std::pair{leaf, uplink}, std::pair{spine, 5}, std::pair{host, 1}}) {
    INFO(fab.port_label(node, port));
    auto start = std::chrono::steady_clock::now();
    Pairs fast = pairs_crossing(fab, tables, lids, node, port);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    auto start_all = std::chrono::steady_clock::now();
    Pairs with_switches = pairs_crossing(fab, tables, lids, node, port, true);
    double ms_all =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_all)
            .count();
    std::cout << "pairs_crossing " << fab.port_label(node, port)
              << " on 1,024 hosts: " << fast.size() << " pairs in " << ms
              << " ms; with switch LIDs " << with_switches.size() << " pairs in " << ms_all
              << " ms\n";
    CHECK(!fast.empty());  // speed is reported above, not asserted (a benchmark's job)
    Pairs sampled;
    for (const auto& pr : fast)
      if (std::binary_search(sources.begin(), sources.end(), pr.first)) sampled.push_back(pr);
    CHECK(sampled == traced_pairs(fab, tables, lids, sources, cas, node, port));
  }
  // Every host pair is routed, in at most 4 switch hops.
  for (size_t i = 0; i < cas.size(); i += 97)
    for (size_t j = 0; j < cas.size(); j += 13) {
      PathResult p = trace_path(fab, tables, lids, cas[i], cas[j]);
      REQUIRE(p.ok());
      CHECK(p.hops.size() <= (i == j ? 1u : 5u));
    }
}
