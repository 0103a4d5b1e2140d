#include "fabric/link_recovery.h"

#include <infiniband/mad.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>

#include "fabric/diagnostics.h"
#include "fabric/opensm_subnet.h"
#include "fabric/port_info.h"
#include "fabric/smp_port.h"

namespace ibw::fabric {
namespace link_recovery_detail {

using Route = std::vector<uint8_t>;  // out ports from the local node

// Active and physically up: a port ibwarden (or anyone) disabled reports PhysicalState
// Disabled, and some SMAs (ibsim among them) keep its PortState Active: never re-link that.
bool up(const Port& p) {
  return p.state == kPortActive && (p.phys_state == kPhysLinkUp || p.phys_state == 0);
}

// Up to `per_node` shortest directed routes from `local` to every node, each ending through a
// different neighbour or parallel link where there is one, so one lossy hop does not hide a
// node on every try. Only switches (and the local node, through local_port) forward.
std::vector<std::vector<Route>> routes_to_all(const Fabric& f, uint32_t local, int local_port,
                                              unsigned per_node) {
  std::vector<std::vector<Route>> routes(f.size());
  std::vector<int> dist(f.size(), -1);
  dist[local] = 0;
  routes[local].emplace_back();
  std::vector<uint32_t> level = {local};
  while (!level.empty()) {
    std::vector<uint32_t> next;
    for (uint32_t at : level) {
      const Node& n = f.node(at);
      if (at != local && n.type != NodeType::sw) continue;
      for (size_t p = 1; p < n.ports.size(); ++p) {
        const Port& port = n.ports[p];
        if (!port.has_peer()) continue;
        if (at == local && n.type != NodeType::sw && static_cast<int>(p) != local_port) continue;
        uint32_t to = port.peer_node;
        if (dist[to] >= 0 && dist[to] != dist[at] + 1) continue;
        if (dist[to] < 0) dist[to] = dist[at] + 1, next.push_back(to);
        for (const Route& r : routes[at]) {
          if (routes[to].size() >= per_node || r.size() + 1 >= IB_SUBNET_PATH_HOPS_MAX) break;
          routes[to].push_back(r);
          routes[to].back().push_back(static_cast<uint8_t>(p));
          break;  // one route per neighbour link first: variety before depth
        }
      }
    }
    level = std::move(next);
  }
  return routes;
}

class Asker {
 public:
  Asker(MadLocks& locks, const RecoveryOptions& o)
      : o_(o),
        port_(open_smp_port(locks, o.ca, o.ca_port, o.timeout_ms)),
        deadline_(std::chrono::steady_clock::now() + std::chrono::milliseconds(o.budget_ms)) {}

  bool expired() const { return std::chrono::steady_clock::now() >= deadline_; }
  // One attribute along `route`, up to options.attempts SMPs; counts what it sent and lost.
  bool ask(const Route& route, int attr, int mod, uint8_t* out) {
    ib_portid_t id{};
    id.drpath.cnt = static_cast<int>(route.size());
    for (size_t i = 0; i < route.size(); ++i) id.drpath.p[i + 1] = route[i];
    id.drpath.drslid = id.drpath.drdlid = 0xffff;
    for (unsigned a = 0; a < o_.attempts && !expired(); ++a) {
      std::memset(out, 0, IB_SMP_DATA_SIZE);
      ++sent;
      if (smp_query_via(out, &id, attr, mod, o_.timeout_ms, port_.get())) return true;
      ++lost;
    }
    return false;
  }
  unsigned sent = 0, lost = 0;

 private:
  const RecoveryOptions& o_;
  SmpPort port_;
  std::chrono::steady_clock::time_point deadline_;
};

struct NodeAnswer {
  uint64_t guid = 0;
  int local_port = 0, num_ports = 0;
  NodeType type = NodeType::unknown;
};

std::optional<NodeAnswer> node_info(Asker& asker, const Route& route) {
  uint8_t buf[IB_SMP_DATA_SIZE];
  if (!asker.ask(route, IB_ATTR_NODE_INFO, 0, buf)) return std::nullopt;
  NodeAnswer a;
  a.guid = mad_get_field64(buf, 0, IB_NODE_GUID_F);
  a.local_port = static_cast<int>(mad_get_field(buf, 0, IB_NODE_LOCAL_PORT_F));
  a.num_ports = static_cast<int>(mad_get_field(buf, 0, IB_NODE_NPORTS_F));
  int t = static_cast<int>(mad_get_field(buf, 0, IB_NODE_TYPE_F));
  a.type = t == 1   ? NodeType::ca
           : t == 2 ? NodeType::sw
           : t == 3 ? NodeType::router
                    : NodeType::unknown;
  return a;
}

// PortInfo of `number` at the node `route` reaches; `ext` from the switch's port 0 or the port.
bool port_info(Asker& asker, const Route& route, int number, Port& out, bool* ext_speeds) {
  uint8_t buf[IB_SMP_DATA_SIZE];
  if (!asker.ask(route, IB_ATTR_PORT_INFO, number, buf)) return false;
  if (ext_speeds && number == 0)
    *ext_speeds = mad_get_field(buf, 0, IB_PORT_CAPMASK_F) & kCapHasExtSpeeds;
  bool ext =
      ext_speeds ? *ext_speeds : (mad_get_field(buf, 0, IB_PORT_CAPMASK_F) & kCapHasExtSpeeds);
  decode_port_info(out, buf, nullptr, ext);
  out.lid = static_cast<uint16_t>(mad_get_field(buf, 0, IB_PORT_LID_F));
  return true;
}

// Adds the node `route` reaches, as the discovery would have: NodeDescription, and PortInfo of
// every port of a switch (its LID from port 0) or of the CA port we came in by.
uint32_t add_node(Fabric& f, Asker& asker, const Route& route, const NodeAnswer& a) {
  Node n;
  n.guid = a.guid;
  n.type = a.type;
  n.id = format_guid(a.guid);
  n.num_ports = a.num_ports;
  uint8_t desc[IB_SMP_DATA_SIZE];
  if (asker.ask(route, IB_ATTR_NODE_DESC, 0, desc))
    n.description.assign(reinterpret_cast<char*>(desc), strnlen(reinterpret_cast<char*>(desc), 64));
  n.name = n.description;  // until apply_node_names(), so the report reads as on-call knows it
  uint32_t idx = f.add_node(std::move(n));
  Node& node = f.node(idx);
  if (a.type == NodeType::sw) {
    bool ext = false;
    if (port_info(asker, route, 0, node.ports[0], &ext)) node.ports[0].present = true;
    for (int p = 1; p <= a.num_ports; ++p) {
      if (port_info(asker, route, p, node.ports[p], &ext)) node.ports[p].lid = node.ports[0].lid;
    }
  } else if (Port* port = node.port(a.local_port)) {
    port_info(asker, route, a.local_port, *port, nullptr);
  }
  return idx;
}

// Ports the discovery linked but whose PortInfo it never got (state 0, no LID: a lost answer,
// since a PortInfo Get never reports state 0): read again, keeping the link.
void reread_unread_ports(Fabric& f, Asker& asker, uint32_t i, const std::vector<Route>& routes,
                         RecoveryReport& report) {
  const bool sw = f.node(i).type == NodeType::sw;
  for (size_t p = 1; p < f.node(i).ports.size(); ++p) {
    Port& port = f.node(i).ports[p];
    if (!port.present || port.state != 0 || (!sw && !port.has_peer())) continue;
    Port read = port;
    for (const Route& r : routes) {
      if (!port_info(asker, r, static_cast<int>(p), read, nullptr)) continue;
      if (sw) read.lid = f.node(i).ports[0].lid;
      port = read;
      ++report.ports_reread;
      break;
    }
  }
}

}  // namespace link_recovery_detail

RecoveryReport recover_lost_links(MadLocks& locks, Fabric& f, const RecoveryOptions& o) {
  using link_recovery_detail::Asker;
  using link_recovery_detail::Route;
  RecoveryReport report;
  std::lock_guard<std::mutex> smp(locks.smp);
  std::optional<Asker> asker;
  try {
    asker.emplace(locks, o);
  } catch (const std::exception& e) {
    report.warnings.push_back(std::string("cannot re-ask lost links: ") + e.what());
    return report;
  }
  uint8_t self[IB_SMP_DATA_SIZE];
  if (!asker->ask({}, IB_ATTR_NODE_INFO, 0, self)) {
    report.warnings.push_back("cannot re-ask lost links: the local node does not answer");
    return report;
  }
  uint32_t local = f.find_guid(mad_get_field64(self, 0, IB_NODE_GUID_F));
  int local_port = static_cast<int>(mad_get_field(self, 0, IB_NODE_LOCAL_PORT_F));
  if (local == kNoNode) {
    report.warnings.push_back("cannot re-ask lost links: the local node is not in the discovery");
    return report;
  }
  for (int pass = 0; pass < o.passes && !asker->expired(); ++pass) {
    auto routes = link_recovery_detail::routes_to_all(f, local, local_port, o.routes);
    bool progress = false;
    // Nodes added during a pass are looked at in the next one (routes has no entry yet).
    for (uint32_t i = 0; i < routes.size() && !asker->expired(); ++i) {
      if (routes[i].empty()) continue;
      if (f.node(i).description.empty()) {  // NodeDescription lost: on-call knows it by name
        uint8_t desc[IB_SMP_DATA_SIZE];
        for (const Route& r : routes[i]) {
          if (!asker->ask(r, IB_ATTR_NODE_DESC, 0, desc)) continue;
          f.node(i).description.assign(reinterpret_cast<char*>(desc),
                                       strnlen(reinterpret_cast<char*>(desc), 64));
          f.node(i).name = f.node(i).description;
          break;
        }
      }
      link_recovery_detail::reread_unread_ports(f, *asker, i, routes[i], report);
      if (i != local && f.node(i).type != NodeType::sw) continue;
      bool local_ca = i == local && f.node(i).type != NodeType::sw;
      if (f.node(i).type == NodeType::sw && f.node(i).ports[0].lid == 0) {
        // Its port 0 was not read: no LID for any of its ports. Ask again.
        Port zero;
        bool ext = false;
        for (const Route& r : routes[i])
          if (link_recovery_detail::port_info(*asker, r, 0, zero, &ext)) break;
        if (zero.present && zero.lid) {
          zero.number = 0;
          f.node(i).ports[0] = zero;
          for (auto& port : f.node(i).ports) port.lid = zero.lid;
          ++report.lids_recovered;
        }
      }
      for (size_t p = 1; p < f.node(i).ports.size() && !asker->expired(); ++p) {
        if (f.node(i).ports[p].has_peer()) continue;
        if (local_ca && static_cast<int>(p) != local_port) continue;
        unsigned sent0 = asker->sent, lost0 = asker->lost;
        if (!f.node(i).ports[p].present && f.node(i).type == NodeType::sw) {
          Port read;
          for (const Route& r : routes[i])
            if (link_recovery_detail::port_info(*asker, r, static_cast<int>(p), read, nullptr))
              break;
          if (!read.present) continue;
          read.lid = f.node(i).ports[0].lid;
          read.number = static_cast<int>(p);
          f.node(i).ports[p] = read;
        }
        if (!link_recovery_detail::up(f.node(i).ports[p])) continue;
        if (pass == 0) ++report.peerless;
        for (const Route& r : routes[i]) {
          Route through = r;
          through.push_back(static_cast<uint8_t>(p));
          auto a = link_recovery_detail::node_info(*asker, through);
          if (!a) continue;
          uint32_t j = f.find_guid(a->guid);
          if (j == kNoNode) {
            ++report.nodes_added;
            j = link_recovery_detail::add_node(f, *asker, through, *a);
          }
          Port* far = f.node(j).port(a->local_port);
          if (!far || far->has_peer()) break;  // answered by a port taken: leave it
          if (!far->present)
            link_recovery_detail::port_info(*asker, through, a->local_port, *far, nullptr);
          f.connect(i, static_cast<int>(p), j, a->local_port);
          report.links.push_back(
              {f.port_label(i, static_cast<int>(p)) + " - " + f.port_label(j, a->local_port),
               "re-asked", asker->sent - sent0, asker->lost - lost0});
          progress = true;
          break;
        }
      }
    }
    if (!progress) break;
  }
  if (asker->expired())
    report.warnings.push_back("re-asking lost links stopped after " + std::to_string(o.budget_ms) +
                              " ms");
  f.reindex();
  if (!o.subnet_list.empty()) recover_from_subnet_list(f, o.subnet_list, report);
  for (uint32_t i = 0; i < f.size(); ++i)
    for (size_t p = 1; p < f.node(i).ports.size(); ++p) {
      const Port& port = f.node(i).ports[p];
      if (port.present && link_recovery_detail::up(port) && !port.has_peer())
        report.unresolved.push_back(f.port_label(i, static_cast<int>(p)));
    }
  return report;
}

void recover_from_subnet_list(Fabric& f, const std::string& path, RecoveryReport& report) {
  if (!std::ifstream(path)) return;  // OpenSM not writing dumps here: nothing to cross-check
  for (auto& label : connect_subnet_links(f, parse_opensm_subnet(read_file(path))))
    report.links.push_back({std::move(label), "opensm", 0, 0});
}

std::string recovery_summary(const RecoveryReport& r) {
  if (!r.peerless && r.links.empty() && r.unresolved.empty() && !r.lids_recovered &&
      !r.ports_reread)
    return "";
  unsigned sent = 0, lost = 0;
  for (const auto& l : r.links) sent += l.smps_sent, lost += l.smps_lost;
  std::string s = std::to_string(r.links.size()) + " lost link(s) recovered";
  if (r.nodes_added) s += " with " + std::to_string(r.nodes_added) + " node(s)";
  if (r.lids_recovered) s += ", " + std::to_string(r.lids_recovered) + " switch LID(s) read again";
  if (r.ports_reread) s += ", " + std::to_string(r.ports_reread) + " port(s) read again";
  if (sent) s += " (" + std::to_string(lost) + " of " + std::to_string(sent) + " SMPs lost)";
  if (!r.unresolved.empty())
    s += "; " + std::to_string(r.unresolved.size()) + " Active port(s) still without a peer";
  return s;
}

}  // namespace ibw::fabric
