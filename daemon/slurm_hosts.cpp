#include "daemon/slurm_hosts.h"

#include "fabric/speed.h"

namespace ibw::daemon {

namespace {

using Health = actions::SlurmHostView::Health;

std::string lanes(int width, fabric::Speed speed) {
  return std::to_string(width) + "x " + std::string(fabric::speed_name(speed));
}

}  // namespace

void SlurmHosts::learn(const fabric::Fabric& fabric, const fabric::HostMapFile& map) {
  fabric::HostMap hosts(fabric, &map);
  for (const auto& e : hosts.mapped()) {
    const fabric::Node& n = fabric.node(e.ca);
    Ca& ca = cas_[n.guid];
    ca.node = e.node;
    for (const fabric::Port& p : n.ports) {
      if (p.number == 0 || !p.has_peer()) continue;
      const fabric::Node& peer = fabric.node(p.peer_node);
      CaPort& cp = ca.ports[p.number];
      cp.ca = {n.guid, n.name, p.number, ""};
      cp.peer = {peer.guid, peer.name, p.peer_port, ""};
      // Both ends, as the link-width rule judges it: a switch port enabling 2x on a 4x HCA is
      // configured so, not degraded.
      const fabric::EnabledRate enabled = fabric::enabled_rate(p, peer.port(p.peer_port));
      if (enabled.width) cp.width = enabled.width;
      if (enabled.speed != fabric::Speed::unknown) cp.speed = enabled.speed;
    }
  }
}

std::vector<actions::SlurmHostView> SlurmHosts::views(
    const PortTable& ports, const std::set<std::pair<uint64_t, int>>& disabled,
    const std::vector<rules::Incident>& incidents) const {
  struct Judged {
    actions::SlurmHostView first, bad, degraded;
    int known = 0, down = 0;
    bool has_degraded = false, has_disabled = false;
    std::string incident;
    core::LinkEnd incident_ca;
  };
  std::map<std::string, Judged> by_node;
  for (const auto& [guid, ca] : cas_) {
    Judged& j = by_node[ca.node];
    for (const auto& inc : incidents)
      if (inc.kind == "host_down" && inc.node_guid == guid && inc.state == "active" &&
          inc.down > 0 && j.incident.empty()) {
        j.incident = inc.id;
        j.incident_ca =
            ca.ports.empty() ? core::LinkEnd{guid, inc.node, 0, ""} : ca.ports.begin()->second.ca;
      }
    for (const auto& [num, cp] : ca.ports) {
      actions::SlurmHostView v;
      v.node = ca.node;
      v.ca = cp.ca;
      v.peer = cp.peer;
      v.link_key = core::link_key(cp.ca.guid, cp.ca.port, cp.peer.guid, cp.peer.port);
      if (j.known == 0 && j.first.node.empty()) j.first = v;
      auto rec = ports.get(cp.ca.guid, cp.ca.port);
      const bool off =
          disabled.count({cp.ca.guid, cp.ca.port}) || disabled.count({cp.peer.guid, cp.peer.port});
      if (!rec && !off) continue;  // not in the port table yet: unknown, not judged
      ++j.known;
      if (off || rec->state != 4) {
        ++j.down;
        if (j.bad.node.empty() || (off && !j.has_disabled)) {
          j.bad = v;
          j.bad.why = off ? "link disabled" : "link down";
          j.has_disabled = j.has_disabled || off;
        }
        continue;
      }
      auto speed = fabric::parse_speed(rec->speed).value_or(fabric::Speed::unknown);
      bool narrow = cp.width && rec->width && rec->width < cp.width;
      bool slow =
          cp.speed != fabric::Speed::unknown && speed != fabric::Speed::unknown && speed < cp.speed;
      if ((narrow || slow) && !j.has_degraded) {
        j.has_degraded = true;
        j.degraded = v;
        j.degraded.why =
            "up at " + lanes(rec->width, speed) + " (expected " + lanes(cp.width, cp.speed) + ")";
      }
    }
  }
  std::vector<actions::SlurmHostView> out;
  for (auto& [node, j] : by_node) {
    if (!j.incident.empty()) {
      actions::SlurmHostView v = j.first.node.empty() ? actions::SlurmHostView{} : j.first;
      v.node = node;
      v.ca = j.incident_ca;
      v.health = Health::cut_off;
      v.why = "host down";
      v.incident = j.incident;
      out.push_back(std::move(v));
    } else if (j.known && j.down == j.known) {
      j.bad.health = Health::cut_off;
      out.push_back(std::move(j.bad));
    } else if (j.down) {  // some links lost, not all: a rail short, its jobs hang or crawl
      j.bad.health = Health::degraded;
      j.bad.why += " (" + std::to_string(j.down) + " of " + std::to_string(j.known) + " links)";
      out.push_back(std::move(j.bad));
    } else if (j.has_degraded) {
      j.degraded.health = Health::degraded;
      out.push_back(std::move(j.degraded));
    } else if (j.known) {
      out.push_back(std::move(j.first));  // whole
    }
  }
  return out;
}

}  // namespace ibw::daemon
