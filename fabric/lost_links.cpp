// Links a discovery lost to a lossy cable (fabric/lost_links.h).
#include "fabric/lost_links.h"

#include "fabric/port_info.h"

namespace ibw::fabric {

namespace {

// A port of `now` that could take a lost link back: known Active without a peer, or (far end
// only) not answered at all.
bool free_port(const Fabric& now, uint32_t node, int number, bool may_be_unknown) {
  const Port* p = now.node(node).port(number);
  if (!p || !p->present) return may_be_unknown && (!p || !p->has_peer());
  return !p->has_peer() && (p->state == kPortActive || (may_be_unknown && p->state == 0));
}
}  // namespace

std::vector<std::string> keep_lost_links(Fabric& now, const Fabric& before) {
  std::vector<std::string> kept;
  for (uint32_t i = 0; i < now.size(); ++i) {
    const uint64_t guid = now.node(i).guid;
    if (guid == 0) continue;
    const uint32_t old = before.find_guid(guid);
    if (old == kNoNode) continue;
    for (const Port& was : before.node(old).ports) {
      if (!was.number || !was.has_peer()) continue;
      if (!free_port(now, i, was.number, false)) continue;
      const uint64_t far_guid = before.node(was.peer_node).guid;
      const uint32_t far = far_guid ? now.find_guid(far_guid) : kNoNode;
      if (far == kNoNode || (far == i && was.peer_port == was.number)) continue;
      if (!free_port(now, far, was.peer_port, true)) continue;
      now.connect(i, was.number, far, was.peer_port);
      kept.push_back(now.port_label(i, was.number) + " - " + now.port_label(far, was.peer_port));
    }
  }
  return kept;
}

}  // namespace ibw::fabric
