// read_lfts_live: every switch's LFT over SMPs with libibmad, as `ibroute` reads one:
// SwitchInfo (LinearFDBTop), then LinearForwardingTable blocks of 64 one-byte entries.
// read_sl2vl_live (fabric/sl2vl.h): SLtoVLMappingTable per pair of linked ports, the same
// switches addressed the same way.
#include <infiniband/mad.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fabric/routing.h"
#include "fabric/sl2vl.h"
#include "fabric/smp_port.h"

namespace ibw::fabric {
namespace routing_detail {

constexpr uint32_t kLftBlockSize = 64;       // LIDs per LinearForwardingTable block
constexpr uint32_t kMaxUnicastLid = 0xbfff;  // the top of the unicast LID range
constexpr size_t kMaxListedFailures = 8;
// SMPs per question: a lossy link on the way drops a share of them (and the discovery
// already had to look again for the links behind it), so one lost SMP is no failure.
constexpr int kAttempts = 8;

ib_portid_t lid_portid(uint16_t lid) {
  ib_portid_t id{};
  ib_portid_set(&id, lid, 0, 0);
  return id;
}

// A directed route: out ports from the local node (p[1..cnt]).
ib_portid_t dr_portid(const std::vector<uint8_t>& path) {
  ib_portid_t id{};
  id.lid = 0;
  id.drpath.cnt = static_cast<int>(path.size());
  for (size_t i = 0; i < path.size(); ++i) id.drpath.p[i + 1] = path[i];
  id.drpath.drslid = 0xffff;
  id.drpath.drdlid = 0xffff;
  return id;
}

// Directed routes from `local` (leaving it through local_port, the port SMPs go out of) to
// every node, breadth first over the fabric model; only switches forward directed-route
// SMPs, so paths continue through switches only. nullopt: not reachable in the model.
using DirectedRoute = std::optional<std::vector<uint8_t>>;
std::vector<DirectedRoute> directed_routes(const Fabric& fabric, uint32_t local, int local_port) {
  std::vector<DirectedRoute> routes(fabric.size());
  routes[local].emplace();
  std::vector<uint32_t> queue = {local};
  for (size_t head = 0; head < queue.size(); ++head) {
    uint32_t at = queue[head];
    const Node& n = fabric.node(at);
    if (at != local && n.type != NodeType::sw) continue;
    if (routes[at]->size() + 1 >= IB_SUBNET_PATH_HOPS_MAX) continue;
    for (size_t p = 1; p < n.ports.size(); ++p) {
      const Port& port = n.ports[p];
      if (at == local && n.type != NodeType::sw && static_cast<int>(p) != local_port) continue;
      if (!port.has_peer() || routes[port.peer_node]) continue;
      routes[port.peer_node] = *routes[at];
      routes[port.peer_node]->push_back(static_cast<uint8_t>(p));
      queue.push_back(port.peer_node);
    }
  }
  return routes;
}

class LftReader {
 public:
  LftReader(MadLocks& locks, const Fabric& fabric, const std::string& ca, int ca_port)
      : fabric_(fabric), smp_lock_(locks.smp), port_(open_smp_port(locks, ca, ca_port)) {
    // The local node (directed route of no hops) anchors the directed routes.
    uint8_t info[IB_SMP_DATA_SIZE] = {};
    ib_portid_t self = dr_portid({});
    if (query(info, &self, IB_ATTR_NODE_INFO, 0)) {
      uint64_t guid = mad_get_field64(info, 0, IB_NODE_GUID_F);
      int local_port = static_cast<int>(mad_get_field(info, 0, IB_NODE_LOCAL_PORT_F));
      uint32_t local = fabric.find_guid(guid);
      if (local != kNoNode) routes_ = directed_routes(fabric, local, local_port);
    }
  }

  RoutingTables read_all() {
    RoutingTables tables;
    std::vector<std::string> failures;
    size_t failed = 0;
    for (uint32_t i = 0; i < fabric_.size(); ++i) {
      const Node& n = fabric_.node(i);
      if (n.type != NodeType::sw) continue;
      std::string why;
      if (auto lft = read_switch(i, &why)) {
        tables.by_switch.emplace(n.guid, std::move(*lft));
      } else if (++failed <= kMaxListedFailures) {
        failures.push_back(fabric_.port_label(i, 0) + " (" + format_guid(n.guid) + "): " + why);
      }
    }
    if (failed) {
      std::string msg = "cannot read the LFTs of " + std::to_string(failed) + " switch(es):";
      for (const auto& f : failures) msg += "\n  " + f;
      if (failed > failures.size()) msg += "\n  ...";
      throw std::runtime_error(msg);
    }
    return tables;
  }

  Sl2VlTables read_all_sl2vl(size_t* failed) {
    Sl2VlTables tables;
    tables.source = "live";
    size_t missing = 0;
    for (uint32_t i = 0; i < fabric_.size(); ++i) {
      if (fabric_.node(i).type != NodeType::sw) continue;
      if (auto t = read_switch_sl2vl(i))
        tables.by_switch.emplace(fabric_.node(i).guid, std::move(*t));
      else
        ++missing;
    }
    if (failed) *failed = missing;
    if (tables.empty()) tables.source.clear();
    return tables;
  }

 private:
  // One SMP question, asked up to kAttempts times.
  bool query(uint8_t* out, ib_portid_t* id, int attr, unsigned mod) {
    for (int a = 0; a < kAttempts; ++a)
      if (smp_query_via(out, id, attr, mod, 0, port_.get())) return true;
    return false;
  }

  // Picks how to address the switch: its LID when NodeInfo there reports its GUID, else the
  // directed route (when the local node is in the model).
  bool address(uint32_t node, ib_portid_t* id, std::string* why) {
    const Node& n = fabric_.node(node);
    uint16_t lid = n.ports.empty() ? 0 : n.ports[0].lid;
    uint8_t info[IB_SMP_DATA_SIZE] = {};
    if (lid) {
      *id = lid_portid(lid);
      if (query(info, id, IB_ATTR_NODE_INFO, 0) &&
          mad_get_field64(info, 0, IB_NODE_GUID_F) == n.guid)
        return true;
    }
    bool has_route = node < routes_.size() && routes_[node].has_value();
    if (has_route) {
      *id = dr_portid(*routes_[node]);
      if (query(info, id, IB_ATTR_NODE_INFO, 0) &&
          mad_get_field64(info, 0, IB_NODE_GUID_F) == n.guid)
        return true;
    }
    *why = lid ? "no answer with its GUID at LID " + std::to_string(lid) +
                     (has_route ? " nor by directed route" : "")
               : "no LID and no directed route";
    return false;
  }

  std::optional<Lft> read_switch(uint32_t node, std::string* why) {
    ib_portid_t id{};
    if (!address(node, &id, why)) return std::nullopt;
    uint8_t info[IB_SMP_DATA_SIZE] = {};
    if (!query(info, &id, IB_ATTR_SWITCH_INFO, 0)) {
      *why = "SwitchInfo query failed";
      return std::nullopt;
    }
    uint32_t top = mad_get_field(info, 0, IB_SW_LINEAR_FDB_TOP_F);
    uint32_t cap = mad_get_field(info, 0, IB_SW_LINEAR_FDB_CAP_F);
    if (cap > 0) top = std::min(top, cap - 1);
    top = std::min(top, kMaxUnicastLid);
    Lft lft;
    lft.switch_guid = fabric_.node(node).guid;
    lft.switch_lid = fabric_.node(node).ports.empty() ? 0 : fabric_.node(node).ports[0].lid;
    lft.out_port.assign(top + 1, kNoLftEntry);
    for (uint32_t block = 0; block <= top / kLftBlockSize; ++block) {
      uint8_t entries[IB_SMP_DATA_SIZE] = {};
      if (!query(entries, &id, IB_ATTR_LINEARFORWTBL, block)) {
        *why = "LinearForwardingTable block " + std::to_string(block) + " query failed";
        return std::nullopt;
      }
      uint32_t first = block * kLftBlockSize;
      uint32_t count = std::min(kLftBlockSize, top + 1 - first);
      std::copy(entries, entries + count, lft.out_port.begin() + first);
    }
    return lft;
  }

  // SLtoVLMappingTable for every (in, out) pair of linked ports 1..N: modifier in << 8 | out;
  // 16 VLs of 4 bits, SL 0 in the high nibble of the first byte (IBA 14.2.5.8).
  std::optional<SwitchSl2Vl> read_switch_sl2vl(uint32_t node) {
    ib_portid_t id{};
    std::string why;
    if (!address(node, &id, &why)) return std::nullopt;
    const Node& n = fabric_.node(node);
    std::vector<int> linked;
    for (int p = 1; p <= n.num_ports; ++p)
      if (const Port* port = n.port(p); port && port->has_peer()) linked.push_back(p);
    SwitchSl2Vl out;
    for (int o : linked)
      for (int i : linked) {
        uint8_t data[IB_SMP_DATA_SIZE] = {};
        if (!query(data, &id, IB_ATTR_SLVL_TABLE, static_cast<unsigned>(i << 8 | o)))
          return std::nullopt;
        uint64_t packed = 0;
        for (int sl = 0; sl < 16; ++sl) {
          uint8_t byte = data[sl / 2];
          packed |= uint64_t{sl % 2 ? byte & 0xfu : byte >> 4u} << (4 * sl);
        }
        out.set(i, o, packed);
      }
    return out;
  }

  const Fabric& fabric_;
  std::unique_lock<std::mutex> smp_lock_;  // before port_: held while the port is open
  SmpPort port_;
  std::vector<DirectedRoute> routes_;  // per node; empty when the local node is unknown
};

}  // namespace routing_detail

RoutingTables read_lfts_live(MadLocks& locks, const Fabric& fabric, const std::string& ca,
                             int ca_port) {
  return routing_detail::LftReader(locks, fabric, ca, ca_port).read_all();
}

Sl2VlTables read_sl2vl_live(MadLocks& locks, const Fabric& fabric, const std::string& ca,
                            int ca_port, size_t* failed) {
  return routing_detail::LftReader(locks, fabric, ca, ca_port).read_all_sl2vl(failed);
}

}  // namespace ibw::fabric
