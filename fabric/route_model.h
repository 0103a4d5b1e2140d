// RouteModel: which directed links the traffic between two endpoints can cross, and each
// link's share of that traffic, for the cursed-route localizer (rules/localize.h).
//
// A directed link is named by its transmitting port (node, port); the receiving port is that
// port's peer. Every route is asked for one way (src -> dst only: a one-way test's packets) or
// as a round trip (a probe out and its answer back: both ways). Three kinds of route:
//  - static: the LFT path (fabric/routing.h trace_path): the request src -> dst and, for a
//    round trip, the reply dst -> src (a different route); every link on them has share 1;
//  - adaptive: every minimal-hop route between the two ends over the switches (what adaptive
//    routing may spray a flow over on a fat tree), src -> dst and for a round trip back, each
//    directed link weighted by
//    the fraction of those routes that use it (as ib_burn assumes). Routes are counted, never
//    enumerated: per destination switch b one BFS gives dist(x, b) and N(x, b), the number of
//    minimal routes from x to b; a link x -> y lies on a minimal route from a iff
//    dist(a, b) = dist(a, x) + 1 + dist(y, b), and its share is M(a, x) * N(y, b) / N(a, b)
//    (M counted the same way from a). Flows over many sources share one pass per destination
//    (spray()), so a 65,536-endpoint fat tree costs O(switch links) per destination switch;
//  - directed: an explicit directed route (out ports, "0,1,5,3" as smpquery -D: entry 0 is
//    the start node itself), share 1: the links out and, for a round trip (an SMP and its
//    answer), the same links back.
// Host links (CA <-> its switch) are part of every route that starts or ends at a CA, in the
// direction(s) the route goes.
// Links that are down (no peer, PortState Down, PhysState Disabled) or marked down with
// set_down() are not part of any route.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fabric/model.h"
#include "fabric/routing.h"

namespace ibw::fabric {

struct Endpoint {
  uint32_t node = kNoNode;  // a CA (with its port) or a switch (port 0)
  int port = 0;
  bool operator==(const Endpoint&) const = default;
};

struct LinkShare {
  uint32_t node = kNoNode;  // transmitting end
  int port = 0;
  double share = 1;
};

inline uint64_t dir_link_key(uint32_t node, int port) {
  return static_cast<uint64_t>(node) << 8 | static_cast<uint64_t>(port & 0xff);
}

class RouteModel {
 public:
  // tables may be null (then static routes are unknown); both must outlive the model.
  RouteModel(const Fabric& fabric, const RoutingTables* tables);

  const Fabric& fabric() const { return fabric_; }
  // "12" (LID), "0xGUID" (node or port GUID) or a name as Fabric::resolve takes it, each
  // optionally "/port". A CA without a port takes its first connected port. nullopt and
  // *error ("no node \"x\" in the fabric", ...) when it cannot be resolved.
  std::optional<Endpoint> resolve(std::string_view text, std::string* error) const;
  // The switch an endpoint's traffic enters the switch fabric at (its own node for a switch)
  // and the host link's switch-side port (0 for a switch); nullopt when a CA has no link.
  std::optional<std::pair<uint32_t, int>> attach(const Endpoint& e) const;

  // Takes the link at (node, port) out of every route, both directions.
  void set_down(uint32_t node, int port);
  bool link_up(uint32_t node, int port) const;

  // Appends the route's links, both ways when `roundtrip` (src -> dst only otherwise); false
  // and *error when there is no route.
  bool static_route(const Endpoint& src, const Endpoint& dst, std::vector<LinkShare>* out,
                    std::string* error, bool roundtrip = true) const;
  bool adaptive_route(const Endpoint& src, const Endpoint& dst, std::vector<LinkShare>* out,
                      std::string* error, bool roundtrip = true) const;
  bool directed_route(const Endpoint& start, const std::vector<int>& path,
                      std::vector<LinkShare>* out, std::string* error, bool roundtrip = true) const;

  // Minimal-route distances and counts toward one destination switch (index = node; -1 /
  // 0 for nodes that cannot reach it, and for CAs).
  struct Toward {
    uint32_t dest = kNoNode;
    std::vector<int16_t> dist;
    std::vector<double> count;
    std::vector<uint32_t> order;  // reachable switches by increasing dist
  };
  Toward toward(uint32_t dest_switch) const;
  // Spreads per-source weights over every minimal route to t.dest: calls fn(node, port,
  // flow) for every switch-to-switch directed link with the summed weight * share of the
  // sources (weights indexed by node; sources with 0 weight cost nothing but the pass).
  void spray(const Toward& t, const std::vector<double>& weight,
             const std::function<void(uint32_t, int, double)>& fn) const;
  // The expected loss of a probe from every switch x to t.dest when adaptive routing sprays it
  // evenly over the minimal routes: V(x) = sum over steps x -> y of N(y)/N(x) *
  // (loss(x, port) + V(y)) (index = node; 0 where unreachable). loss: a link's loss rate.
  std::vector<double> expected_loss(const Toward& t,
                                    const std::function<double(uint32_t, int)>& loss) const;
  // True when some minimal route from switch a to t.dest crosses the link (node, port).
  bool on_minimal_route(const Toward& t, uint32_t a, uint32_t node, int port,
                        const Toward& from_node) const;

  // The same counts over switches only, indexed by switch ordinal (ordinal(node); UINT32_MAX
  // for a CA): ~70 KB per destination on a 5,120-switch fabric, so a caller can keep them
  // (fabric/dest_tables.h keeps one per destination class) instead of a BFS each.
  uint32_t switches() const { return static_cast<uint32_t>(sw_.size()); }
  uint32_t ordinal(uint32_t node) const { return ord_[node]; }
  uint32_t switch_node(uint32_t ordinal) const { return sw_[ordinal]; }
  static constexpr uint32_t kVirtual = UINT32_MAX;  // Table::dest of a class table
  struct Table {
    uint32_t dest = 0;            // ordinal, or kVirtual (class_table)
    std::vector<int8_t> dist;     // -1: cannot reach dest (capped at 127)
    std::vector<double> count;    // minimal routes to dest
    std::vector<uint32_t> order;  // reachable ordinals by increasing dist
  };
  Table table(uint32_t dest_switch) const;
  // Destination classes: switches linked to the same switches (the same multiset of
  // neighbours over links that are up), such as a fat tree's leaves of one pod. Every minimal
  // route toward a member ends with a hop from one of those neighbours, and no route toward
  // one member passes through another (their neighbours are all one hop from each), so one
  // table serves the whole class: minimal routes toward a virtual node linked to each
  // neighbour as a member is (dist 1 at the neighbours). For a member b and any switch x != b,
  // dist(x, b) and N(x, b) are the class table's; b itself is 0 and 1. Returns the class of
  // each ordinal; *members lists each class's ordinals.
  std::vector<uint32_t> dest_classes(std::vector<std::vector<uint32_t>>* members) const;
  Table class_table(uint32_t member) const;  // member: ordinal
  // The directed switch-to-switch links (edge ids) into a switch (ordinal) that are up.
  std::vector<uint32_t> last_hops(uint32_t ordinal) const;
  // Switch-to-switch directed links as edge ids [0, edges()): transmitting ordinal and port.
  uint32_t edges() const { return static_cast<uint32_t>(edges_.size()); }
  uint32_t edge_from(uint32_t e) const { return from_[e]; }
  int edge_port(uint32_t e) const { return edges_[e].port; }
  // Marks of switch-to-switch links given by their transmitting end (node, port), per edge.
  std::vector<uint8_t> edge_mask(const std::vector<std::pair<uint32_t, int>>& links) const;
  // out[ordinal] = 1 when some minimal route from that switch to t.dest crosses a marked link:
  // one pass over the table, for many observations toward one destination at once. For a
  // class table, the hops into the members are not part of it (see DestTables::Crossing).
  void crossing(const Table& t, const std::vector<uint8_t>& mask, std::vector<uint8_t>& out) const;
  // spray() for K weights at once: w[ordinal * K + k]; calls fn(edge, k, flow) for each
  // switch-to-switch directed link (edge id) and weight with a flow. f: scratch of
  // switches() * K zeros, left zeroed. Over a class table, the flow stops at the neighbours
  // (the hops into the members are left to the caller: DestTables::spray).
  template <typename Fn>
  void spray_k(const Table& t, const double* w, int K, std::vector<double>& f, Fn&& fn) const {
    for (uint32_t x : t.order)
      if (t.count[x] > 0)
        for (int k = 0; k < K; ++k) f[x * K + k] = w[x * K + k] / t.count[x];
    for (size_t i = t.order.size(); i-- > 0;) {
      uint32_t x = t.order[i];
      double* fx = &f[x * K];
      bool any = false;
      for (int k = 0; k < K; ++k) any |= fx[k] != 0;
      if (!any) continue;
      if (t.dist[x] > 1 || (t.dist[x] == 1 && t.dest != kVirtual)) {
        const uint32_t node = sw_[x];
        for (uint32_t e = first_[node]; e < first_[node + 1]; ++e) {
          uint32_t y = ord_[edges_[e].to];
          if (down_[e] || t.dist[y] != t.dist[x] - 1) continue;
          double* fy = &f[y * K];
          for (int k = 0; k < K; ++k)
            if (fx[k] != 0) fn(e, k, fx[k] * t.count[y]), fy[k] += fx[k];
        }
      }
      for (int k = 0; k < K; ++k) fx[k] = 0;
    }
  }

 private:
  struct Edge {
    uint32_t to;
    uint8_t port;  // out port at the edge's source
  };
  const Fabric& fabric_;
  const RoutingTables* tables_;
  LidIndex lids_;
  std::vector<uint32_t> first_;  // CSR over switches: edges of node i are [first_[i], first_[i+1])
  std::vector<Edge> edges_;
  std::vector<uint32_t> from_;                      // per edge: transmitting ordinal
  std::vector<uint8_t> down_;                       // per edge: taken out by set_down()
  std::unordered_map<uint64_t, uint32_t> edge_of_;  // dir_link_key -> edge index
  std::unordered_map<uint64_t, bool> down_links_;   // host links taken out
  std::vector<uint32_t> ord_;                       // node -> switch ordinal (UINT32_MAX: CA)
  std::vector<uint32_t> sw_;                        // switch ordinal -> node
  bool usable(const Port& p) const;
  void append_lft_path(uint16_t from, uint16_t to, std::vector<LinkShare>* out, std::string* error,
                       bool* ok) const;
};

}  // namespace ibw::fabric
