// The route check (`ibwarden route check`, and the daemon after every LFT change): pure
// analysis of the LID-routed paths the LFTs give on a fabric model.
//  - credit loops: the channel-dependency graph (CDG) over every path from a CA port to any
//    LID (CA or switch): one vertex per directed link, an edge c1 -> c2 when some path leaves
//    through c2 right after arriving over c1. Each strongly connected component with a cycle
//    is one credit loop, reported as one cycle of directed links. Per virtual lane where
//    SL-to-VL tables are given (fabric/sl2vl.h): a vertex is then (directed link, VL), and a
//    path leaving switch q through port o after entering at port i uses VL SL2VL_q(i, o)[SL]
//    on that link. The SL of a path is 0 for every path: OpenSM dumps no per-path SL (the
//    SLs of dfsssp, lash and torus-2QoS reach hosts through SA PathRecords only; the dump_pr
//    plugin that would write them is not part of OpenSM's packages), so loops those engines
//    break with SLs other than 0 are still listed (RouteCheck::sl_source says so). Without
//    tables the graph has one VL, as before: the LFTs are per LID, so every VL carries the
//    same graph. A CA's own table does not matter: nothing feeds a CA's outgoing link.
//  - unreachable pairs: (CA LID, CA or switch LID) pairs whose route has no entry, dead-ends,
//    reaches the wrong node or loops (trace_path's errors).
//  - balance: CA-to-CA routes per directed switch-to-switch link, max/min and the worst links.
// Cost: O(D * S) steps for D destination LIDs and S switches, O(C * R) bits for C directed
// links and R ports per node: per destination the LFTs form a functional graph over the
// switches, walked once with memoisation (as pairs_crossing does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fabric/model.h"
#include "fabric/routing.h"
#include "fabric/sl2vl.h"

namespace ibw::fabric {

struct DirectedLink {
  uint32_t from_node = kNoNode;
  int from_port = 0;
  uint32_t to_node = kNoNode;
  int to_port = 0;
  bool operator==(const DirectedLink&) const = default;
};

struct CreditLoop {
  std::vector<DirectedLink> links;  // one cycle of the CDG, in order; the last feeds the first
  std::vector<uint8_t> vls;         // per link, the VL it is used on there (0 with one VL)
  size_t channels = 0;              // (link, VL) vertices in its strongly connected component
};

struct UnreachablePair {
  uint16_t src_lid = 0, dst_lid = 0;
  std::string reason;  // trace_path's error
};

struct LinkRoutes {
  DirectedLink link;
  uint64_t routes = 0;  // CA-to-CA (source, destination) pairs whose path uses it
};

struct RouteBalance {
  size_t links = 0;       // directed switch-to-switch links with an Active (or unknown) link
  size_t idle_links = 0;  // of those, carrying no route
  uint64_t max_routes = 0;
  uint64_t min_routes = 0;        // over the links carrying routes (idle ones are counted apart)
  double ratio = 0;               // max_routes / min_routes; 0 when no link carries a route
  std::vector<LinkRoutes> worst;  // the most loaded links, most first
};

struct RouteCheckOptions {
  size_t max_unreachable_listed = 100;  // pairs listed (all are counted)
  size_t max_worst_links = 10;
  // Threads sharing the destinations; 0: one per core (at most 4) above 4,096 LIDs, else 1.
  size_t threads = 0;
  // SL-to-VL tables of the switches; null or empty: one VL. A switch without a table, or a
  // port pair it does not list, counts as VL 0.
  const Sl2VlTables* sl2vl = nullptr;
};

struct RouteCheck {
  std::vector<CreditLoop> credit_loops;
  uint64_t unreachable_pairs = 0;
  std::vector<UnreachablePair> unreachable;  // the first max_unreachable_listed, sorted
  RouteBalance balance;
  size_t destinations = 0, sources = 0;  // LIDs checked
  int vls = 1;                           // VLs in the graph: 1 + the highest VL of SL 0
  std::string vl_source;                 // Sl2VlTables::source; empty: no tables, one VL
  size_t sl2vl_switches = 0;             // switches of the fabric that have a table
  std::string sl_source = "sl0";         // every path on SL 0 (no per-path SL is known)
};

RouteCheck check_routes(const Fabric& fabric, const RoutingTables& tables,
                        const RouteCheckOptions& options = {});

// The routing engine OpenSM used in its last routing pass, from its log
// (ingest/opensm_routing.h reads it): "<engine> tables configured on all switches", and the
// engines of that pass that failed before it ("<engine>: cannot build lid matrices").
struct RoutingEngineInfo {
  std::string in_use;               // empty: no routing pass in the log
  std::vector<std::string> failed;  // engines that failed before in_use, in order
  std::string reason;               // the first failure's log text (e.g. "no root nodes")
  bool fallback() const { return !failed.empty(); }
  // The configured (first) engine when a failure shows it; else in_use (the log does not
  // show the configuration when nothing failed).
  std::string configured() const { return failed.empty() ? in_use : failed.front(); }
};

// "sw1/2 -> sw2/3" (ports by fabric.port_label).
std::string format_link(const Fabric& fabric, const DirectedLink& link);

}  // namespace ibw::fabric
