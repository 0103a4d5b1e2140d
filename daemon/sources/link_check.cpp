// The link check (daemon/sources/link_check.h).
#include "daemon/sources/link_check.h"

#include "actions/link_view.h"
#include "actions/port_control.h"
#include "daemon/logger.h"
#include "daemon/remedy_setup.h"
#include "fabric/smp_port.h"

namespace ibw::daemon {

namespace {

// Reads every present port (>= 1) of the switch at `lid` into *out; throws on a lost SMP.
void read_switch(actions::PortController& pc, const Topology& topo,
                 const actions::RemedyContext& ctx, uint16_t lid,
                 std::vector<LinkStateReading>* out) {
  actions::PortKey at = find_lid_port(topo.fabric, lid);
  uint32_t n = at.guid ? topo.fabric.find_guid(at.guid) : fabric::kNoNode;
  if (n == fabric::kNoNode || topo.fabric.node(n).type != fabric::NodeType::sw) return;
  actions::PortAddress where = actions::node_address(ctx, at.guid, 0, {});
  for (const fabric::Port& p : topo.fabric.node(n).ports) {
    if (p.number == 0 || !p.present) continue;
    actions::PortReading r = pc.query(where, p.number);
    out->push_back({at.guid, p.number, r.link_state, r.phys_state});
  }
}

// The topology with the link changes of `changed` applied to its fabric: a port record
// without a peer is disconnected (both ends), one with a peer the fabric lacks is connected,
// with the state read and width and speed unknown until the next discovery measures them.
std::shared_ptr<const Topology> patched(const Topology& topo,
                                        const std::vector<store::PortRecord>& changed,
                                        const fabric::Plan* plan) {
  fabric::Fabric fab = topo.fabric;
  fab.reindex();  // the copy's name index must point into its own nodes
  bool any = false;
  for (const store::PortRecord& r : changed) {
    uint32_t n = fab.find_guid(r.node_guid);
    fabric::Port* p = n == fabric::kNoNode ? nullptr : fab.node(n).port(r.port);
    if (!p) continue;
    if (!r.peer_guid && p->has_peer()) {
      if (fabric::Port* far = fab.node(p->peer_node).port(p->peer_port);
          far && far->peer_node == n && far->peer_port == r.port)
        far->peer_node = fabric::kNoNode, far->peer_port = 0, far->state = 1;
      p->peer_node = fabric::kNoNode, p->peer_port = 0;
      p->state = 1, p->phys_state = static_cast<uint8_t>(r.phys_state);
      any = true;
    } else if (r.peer_guid && !p->has_peer()) {
      uint32_t m = fab.find_guid(r.peer_guid);
      fabric::Port* far = m == fabric::kNoNode ? nullptr : fab.node(m).port(r.peer_port);
      if (!far || far->has_peer()) continue;
      fab.connect(n, r.port, m, r.peer_port);
      for (fabric::Port* end : {fab.node(n).port(r.port), fab.node(m).port(r.peer_port)}) {
        end->state = static_cast<uint8_t>(r.state);
        end->phys_state = static_cast<uint8_t>(r.phys_state);
        end->width_active = 0;
        end->speed_active = fabric::Speed::unknown;
      }
      any = true;
    }
  }
  return any ? make_topology(std::move(fab), plan, topo.discovered_us) : nullptr;
}

}  // namespace

size_t check_links(SourceContext& ctx, const std::set<uint16_t>& lids) {
  const config::Config& cfg = ctx.cfg();
  auto topo = ctx.topology();
  if (!topo || lids.empty() || cfg.fabric.discovery != "live") return 0;
  actions::RemedyContext rctx = remedy_context(*topo, nullptr, local_lids(ctx.mad(), cfg));
  std::vector<LinkStateReading> readings;
  size_t unread = 0;
  std::string error;
  try {
    std::lock_guard<std::mutex> smp(ctx.mad().smp);
    actions::PortController pc(ctx.mad(), cfg.fabric.ca, cfg.fabric.ca_port,
                               cfg.counters.timeout_ms);
    for (uint16_t lid : lids) {
      size_t had = readings.size();
      try {
        read_switch(pc, *topo, rctx, lid, &readings);
      } catch (const std::exception& e) {  // a half-read switch tells nothing reliable
        readings.resize(had);
        ++unread;
        error = e.what();
      }
    }
  } catch (const std::exception& e) {  // the local port could not be opened
    unread = lids.size();
    error = e.what();
  }
  if (unread)
    log(LogLevel::warning, "link check: switch not read; the re-discovery will tell",
        {{"switches", unread}, {"error", error}});
  if (readings.empty()) return 0;
  int64_t now = ctx.clock().now_us();
  FabricState& fab = ctx.fabric();
  size_t changes = 0;
  ctx.publish(
      topo, {},
      [&](store::WriteBatch& batch) {
        batch.ports = fab.ports.apply_link_states(readings, now, &batch.events);
        enrich_all(topo.get(), batch.events);
        changes = batch.events.size();
        // The rules and the guard see links through the topology: apply the changes to it
        // now, unless a discovery replaced it meanwhile (that one is as new; the next one
        // settles it).
        if (auto next = changes ? patched(*topo, batch.ports, fab.plan.get()) : nullptr)
          if (fab.replace_topology(topo, next)) topo = next;
        if (changes)
          log(LogLevel::info, "link check",
              {{"switches", lids.size() - unread},
               {"ports_read", readings.size()},
               {"link_changes", changes}});
      },
      Evaluate::with_events);
  return changes;
}

}  // namespace ibw::daemon
