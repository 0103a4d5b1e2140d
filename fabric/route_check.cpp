// check_routes: one pass over the destinations builds the channel-dependency graph, counts
// unreachable pairs and the routes per link; then Tarjan's algorithm finds the credit loops
// (fabric/route_check_cdg.cpp).
#include "fabric/route_check.h"

#include <algorithm>
#include <memory>
#include <thread>

#include "fabric/route_check_cdg.h"
#include "fabric/routing_step.h"

namespace ibw::fabric {
namespace route_check_detail {

using routing_detail::Destination;
using routing_detail::Step;
using routing_detail::StepStatus;

constexpr uint32_t kNone = UINT32_MAX;
constexpr int kPathSl = 0;  // the SL of every path (fabric/route_check.h)

// The VL of a hop through a switch (compact index): its SL-to-VL table for kPathSl, VL 0
// without one; vls = 1 + the highest VL any table gives kPathSl.
class VlLookup {
 public:
  VlLookup(const Fabric& fab, const std::vector<uint32_t>& switch_nodes, const Sl2VlTables* t) {
    for (uint32_t node : switch_nodes) {
      const SwitchSl2Vl* sw = t ? t->find(fab.node(node).guid) : nullptr;
      tables_.push_back(sw);
      if (!sw) continue;
      ++switches;
      for (int in = 0; in <= sw->max_port; ++in)
        for (int out = 0; out <= sw->max_port; ++out)
          vls = std::max(vls, sw->vl(in, out, kPathSl) + 1);
    }
  }
  int operator()(uint32_t sw, int in, int out) const {
    return tables_[sw] ? tables_[sw]->vl(in, out, kPathSl) : 0;
  }
  int vls = 1;
  size_t switches = 0;  // with a table

 private:
  std::vector<const SwitchSl2Vl*> tables_;
};

// The per-destination walker: the switches in compact order, and per destination each
// visited switch's out port, next switch, outcome and distance to the end of its path.
class DestinationWalker {
 public:
  DestinationWalker(const Fabric& fabric, const RoutingTables& tables, const ChannelIndex& chans)
      : chans_(chans), sw_index_(fabric.size(), kNone) {
    for (uint32_t i = 0; i < fabric.size(); ++i) {
      if (fabric.node(i).type != NodeType::sw) continue;
      sw_index_[i] = static_cast<uint32_t>(nodes_.size());
      nodes_.push_back(i);
      lfts_.push_back(tables.find(fabric.node(i).guid));
      ports_.push_back(fabric.node(i).num_ports);
    }
    size_t n = nodes_.size();
    epoch_.assign(n, 0), walking_.assign(n, 0), ok_.assign(n, 0), out_.assign(n, 0);
    next_.assign(n, kNone), depth_.assign(n, 0);
  }

  uint32_t switch_index(uint32_t node) const { return sw_index_[node]; }
  size_t switches() const { return nodes_.size(); }
  const std::vector<uint32_t>& switch_nodes() const { return nodes_; }

  // Starts destination number `epoch` (1, 2, ...): all[i], of the walker's share [.., end).
  // The LFT entries of every switch for the next kChunk destinations are copied first into
  // one destination-major block: walking a destination then reads one row of bytes instead
  // of one cache line (and often a page) of every switch's LFT -- the walk was memory-bound.
  void begin(const Destination& d, uint32_t epoch, const std::vector<uint16_t>& all, size_t i,
             size_t end) {
    dst_ = d;
    cur_ = epoch;
    visited_.clear();
    if (i < chunk_from_ || i >= chunk_from_ + kChunk) {
      const size_t n = std::min(kChunk, end - i), nsw = nodes_.size();
      chunk_.resize(kChunk * nsw);
      for (size_t x = 0; x < nsw; ++x) {
        const Lft* lft = lfts_[x];
        for (size_t k = 0; k < n; ++k)
          chunk_[k * nsw + x] = lft ? lft->port_for(all[i + k]) : kNoLftEntry;
      }
      chunk_from_ = i;
    }
    row_ = chunk_.data() + (i - chunk_from_) * nodes_.size();
  }

  // Walks from switch s until a switch already walked for this destination, the end of the
  // path, or a loop; returns whether s's path reaches the destination.
  bool walk(uint32_t s) {
    stack_.clear();
    bool ok = false;
    uint32_t depth = 0;
    uint32_t x = s;
    while (true) {
      if (epoch_[x] == cur_) {
        ok = ok_[x];
        depth = depth_[x] + 1;
        break;
      }
      if (walking_[x] == cur_) break;  // a routing loop
      walking_[x] = cur_;
      stack_.push_back(x);
      // step_from's switch step (fabric/routing_step.h) on the precomputed channels: arrived,
      // or forward through a usable link, else broken (the unit tests hold the two equal).
      out_[x] = 0;
      next_[x] = kNone;
      uint32_t node = nodes_[x];
      if (node == dst_.node) {
        ok = true;
        break;
      }
      uint8_t entry = row_[x];  // lfts_[x]->port_for(dst_.lid), from the chunk (begin())
      if (entry == kNoLftEntry || entry == 0 || entry > ports_[x]) break;
      uint32_t chan = chans_.id(node, entry);
      uint32_t peer = chans_.live_head(chan);
      if (peer == kNoNode) break;
      out_[x] = entry;
      uint32_t y = sw_index_[peer];
      if (y == kNone) {  // handed to a CA: the end, right or wrong
        ok = peer == dst_.node && chans_.head_port(chan) == dst_.port;
        break;
      }
      next_[x] = y;
      x = y;
    }
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
      epoch_[*it] = cur_;
      ok_[*it] = ok;
      depth_[*it] = depth++;
      visited_.push_back(*it);
    }
    return ok;
  }

  // The CDG edges of this destination's paths: every walked switch x leaving through a
  // channel to a switch y that leaves again.
  void add_dependencies(ChannelGraph& cdg) const {
    for (uint32_t x : visited_) {
      uint32_t y = next_[x];
      if (y == kNone || out_[y] == 0) continue;
      cdg.add(chans_.id(nodes_[x], out_[x]), out_[y]);
    }
  }

  // The same per VL: each walked switch's out channel is used on one VL per port its paths
  // enter by (a CA source's port, or the link from a switch forwarding to it), and feeds the
  // next switch's out channel on the VL of that hop.
  void add_dependencies(ChannelGraph& cdg, const VlLookup& vl,
                        const std::vector<std::vector<int>>& ca_in_ports) {
    if (mask_.size() != nodes_.size()) mask_.assign(nodes_.size(), 0);
    for (uint32_t x : visited_)
      if (out_[x])
        for (int p : ca_in_ports[x]) mask_[x] |= 1u << vl(x, p, out_[x]);
    for (uint32_t x : visited_) {
      uint32_t y = next_[x];
      if (y == kNone || out_[y] == 0) continue;
      mask_[y] |= 1u << vl(y, chans_.head_port(chans_.id(nodes_[x], out_[x])), out_[y]);
    }
    for (uint32_t x : visited_) {
      uint32_t y = next_[x];
      if (y == kNone || out_[y] == 0) continue;
      uint32_t chan = chans_.id(nodes_[x], out_[x]);
      int next_vl = vl(y, chans_.head_port(chan), out_[y]);
      for (uint32_t m = mask_[x]; m; m &= m - 1) cdg.add(chan, __builtin_ctz(m), out_[y], next_vl);
    }
    for (uint32_t x : visited_) mask_[x] = 0;
  }

  // Adds this destination's routes to `load` (per channel): flow[x] = sources at x plus the
  // flow of the switches forwarding to x, pushed in order of decreasing depth.
  void add_routes(std::vector<uint32_t>& flow, std::vector<uint64_t>& load) {
    uint32_t max_depth = 0;
    for (uint32_t x : visited_)
      if (ok_[x]) max_depth = std::max(max_depth, depth_[x]);
    if (buckets_.size() <= max_depth) buckets_.resize(size_t{max_depth} + 1);
    for (size_t d = 0; d <= max_depth; ++d) buckets_[d].clear();  // keeps their memory
    for (uint32_t x : visited_)
      if (ok_[x]) buckets_[depth_[x]].push_back(x);
    for (size_t d = size_t{max_depth} + 1; d-- > 0;)
      for (uint32_t x : buckets_[d]) {
        uint32_t y = next_[x];
        if (y == kNone || flow[x] == 0) continue;
        load[chans_.id(nodes_[x], out_[x])] += flow[x];
        flow[y] += flow[x];
      }
    for (uint32_t x : visited_) flow[x] = 0;
  }

 private:
  const ChannelIndex& chans_;
  std::vector<uint32_t> sw_index_, nodes_;
  std::vector<const Lft*> lfts_;
  std::vector<int> ports_;
  std::vector<uint32_t> epoch_, walking_, next_, depth_;
  std::vector<uint8_t> ok_, out_;
  std::vector<uint32_t> stack_, visited_, mask_;
  std::vector<std::vector<uint32_t>> buckets_;
  Destination dst_;
  uint32_t cur_ = 0;
  static constexpr size_t kChunk = 64;  // destinations per block: 64 x 5,120 switches = 320 KB
  std::vector<uint8_t> chunk_;          // [destination - chunk_from_][switch]
  size_t chunk_from_ = SIZE_MAX;
  const uint8_t* row_ = nullptr;
};

struct Source {
  uint16_t lid = 0;
  uint32_t node = kNoNode;
  int port = 0;
  uint32_t first_switch = kNone;  // compact index; kNone: the first hop is not to a switch
};

RouteBalance balance_of(const Fabric& fab, const ChannelIndex& chans,
                        const std::vector<uint64_t>& load, size_t max_worst) {
  RouteBalance b;
  std::vector<LinkRoutes> all;
  for (uint32_t i = 0; i < fab.size(); ++i) {
    const Node& n = fab.node(i);
    if (n.type != NodeType::sw) continue;
    for (int p = 1; p <= n.num_ports; ++p) {
      DirectedLink l = chans.link(i, p);
      if (l.to_node == kNoNode || fab.node(l.to_node).type != NodeType::sw) continue;
      if (!chans.usable(i, p)) continue;
      uint64_t r = load[chans.id(i, p)];
      ++b.links;
      if (r == 0) {
        ++b.idle_links;
        continue;
      }
      b.max_routes = std::max(b.max_routes, r);
      b.min_routes = b.min_routes == 0 ? r : std::min(b.min_routes, r);
      all.push_back({l, r});
    }
  }
  if (b.min_routes) b.ratio = static_cast<double>(b.max_routes) / b.min_routes;
  size_t keep = std::min(max_worst, all.size());
  std::partial_sort(all.begin(), all.begin() + keep, all.end(),
                    [](const LinkRoutes& x, const LinkRoutes& y) { return x.routes > y.routes; });
  b.worst.assign(all.begin(), all.begin() + keep);
  return b;
}

}  // namespace route_check_detail

RouteCheck check_routes(const Fabric& fab, const RoutingTables& tables,
                        const RouteCheckOptions& options) {
  using namespace route_check_detail;
  RouteCheck out;
  LidIndex lids(fab);
  ChannelIndex chans(fab);
  DestinationWalker walker(fab, tables, chans);

  // CA sources grouped by the switch their link leads to (weight = CA LIDs there; the first
  // two LIDs name an example pair).
  std::vector<Source> odd;  // sources whose first hop is not to a switch
  size_t nsw = walker.switches();
  std::vector<uint32_t> weight(nsw, 0), source_switches;
  std::vector<std::pair<uint16_t, uint16_t>> example(nsw, {0, 0});
  size_t top_lid = lids.lids().empty() ? 0 : lids.lids().back();
  std::vector<uint32_t> switch_of_lid(top_lid + 1, kNone);
  // Per VL only where a table maps SL 0 off VL 0; else the one-VL graph (the same result).
  VlLookup vl(fab, walker.switch_nodes(), options.sl2vl);
  std::vector<std::vector<int>> ca_in_ports(vl.vls > 1 ? nsw : 0);
  for (uint16_t lid : lids.lids()) {
    auto at = lids.find(lid);
    if (fab.node(at->first).type == NodeType::sw) continue;
    ++out.sources;
    Source s{lid, at->first, at->second};
    Step st = routing_detail::step_from(fab, nullptr, s.node, 0, s.port, Destination{});
    if (st.status == StepStatus::forward) s.first_switch = walker.switch_index(st.next_node);
    if (s.first_switch == kNone) {
      odd.push_back(s);
      continue;
    }
    switch_of_lid[lid] = s.first_switch;
    if (vl.vls > 1) {
      auto& in = ca_in_ports[s.first_switch];
      int port = chans.head_port(chans.id(s.node, s.port));
      if (std::find(in.begin(), in.end(), port) == in.end()) in.push_back(port);
    }
    uint32_t& w = weight[s.first_switch];
    if (w == 0) source_switches.push_back(s.first_switch);
    if (w == 0) example[s.first_switch].first = lid;
    if (w == 1) example[s.first_switch].second = lid;
    ++w;
  }

  // The destinations in contiguous shares, one per thread (each with its own walker, graph
  // and loads, merged in order): the walk is memory-bound and the shares are independent.
  struct Share {
    ChannelGraph cdg;
    DestinationWalker walker;
    std::vector<uint64_t> load;
    std::vector<uint32_t> flow;
    std::vector<std::pair<uint16_t, uint16_t>> listed;
    uint64_t unreachable = 0;
  };
  const std::vector<uint16_t>& all = lids.lids();
  size_t threads = options.threads;
  if (!threads)
    threads = all.size() < 4096 ? 1 : std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
  threads = std::min(threads, std::max<size_t>(all.size(), 1));
  std::vector<std::unique_ptr<Share>> shares;
  for (size_t t = 0; t < threads; ++t)
    shares.push_back(std::make_unique<Share>(Share{ChannelGraph(chans, vl.vls),
                                                   DestinationWalker(fab, tables, chans),
                                                   std::vector<uint64_t>(chans.size(), 0),
                                                   std::vector<uint32_t>(nsw, 0),
                                                   {},
                                                   0}));
  auto run = [&](Share& sh, size_t from, size_t to) {
    auto note = [&](uint16_t src, uint16_t dst, uint64_t count) {
      sh.unreachable += count;
      if (count && sh.listed.size() < options.max_unreachable_listed)
        sh.listed.emplace_back(src, dst);
    };
    uint32_t epoch = 0;
    for (size_t i = from; i < to; ++i) {
      uint16_t dlid = all[i];
      auto at = lids.find(dlid);
      Destination d{dlid, at->first, at->second};
      bool to_ca = fab.node(d.node).type != NodeType::sw;
      sh.walker.begin(d, ++epoch, all, i, to);
      for (uint32_t s : source_switches) {
        bool ok = sh.walker.walk(s);
        uint32_t w = weight[s] - (switch_of_lid[dlid] == s ? 1 : 0);  // no pair with itself
        if (!ok) {
          auto [a, b] = example[s];
          note(a == dlid ? b : a, dlid, w);
        } else if (to_ca) {
          sh.flow[s] = w;
        }
      }
      if (to_ca) sh.walker.add_routes(sh.flow, sh.load);
      if (vl.vls > 1)
        sh.walker.add_dependencies(sh.cdg, vl, ca_in_ports);
      else
        sh.walker.add_dependencies(sh.cdg);
      for (const Source& src : odd)
        if (src.lid != dlid && !trace_path(fab, tables, lids, src.lid, dlid).ok())
          note(src.lid, dlid, 1);
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t)
    pool.emplace_back(run, std::ref(*shares[t]), all.size() * t / threads,
                      all.size() * (t + 1) / threads);
  run(*shares[0], 0, all.size() / threads);
  for (auto& th : pool) th.join();
  out.destinations = all.size();
  out.vls = vl.vls;
  out.sl2vl_switches = vl.switches;
  if (options.sl2vl && !options.sl2vl->empty()) out.vl_source = options.sl2vl->source;
  ChannelGraph& cdg = shares[0]->cdg;
  std::vector<uint64_t>& load = shares[0]->load;
  std::vector<std::pair<uint16_t, uint16_t>> listed;
  for (size_t t = 0; t < threads; ++t) {
    Share& sh = *shares[t];
    if (t) {
      cdg.merge(sh.cdg);
      for (size_t c = 0; c < load.size(); ++c) load[c] += sh.load[c];
    }
    out.unreachable_pairs += sh.unreachable;
    for (auto pr : sh.listed)
      if (listed.size() < options.max_unreachable_listed) listed.push_back(pr);
  }
  std::sort(listed.begin(), listed.end());
  for (auto [s, d] : listed)
    out.unreachable.push_back({s, d, trace_path(fab, tables, lids, s, d).error});
  out.credit_loops = cdg.cycles();
  out.balance = balance_of(fab, chans, load, options.max_worst_links);
  return out;
}

std::string format_link(const Fabric& fabric, const DirectedLink& link) {
  return fabric.port_label(link.from_node, link.from_port) + " -> " +
         fabric.port_label(link.to_node, link.to_port);
}

}  // namespace ibw::fabric
