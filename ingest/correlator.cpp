#include "ingest/correlator.h"

namespace ibw::ingest {

Correlator::Correlator(const fabric::Fabric& fab, const fabric::Plan* plan) {
  for (uint32_t i = 0; i < fab.size(); ++i) {
    const fabric::Node& n = fab.node(i);
    names_[n.guid] = n.name;
    for (const fabric::Port& p : n.ports) {
      if (!p.present) continue;
      if (p.lid) lids_.emplace(p.lid, n.guid);
      if (p.number == 0) continue;
      PortContext ctx;
      ctx.node = n.name;
      ctx.lid = p.lid;
      if (p.has_peer()) {
        const fabric::Node& peer = fab.node(p.peer_node);
        ctx.peer_guid = peer.guid;
        ctx.peer_node = peer.name;
        ctx.peer_port = p.peer_port;
      }
      ports_[key(n.guid, p.number)] = std::move(ctx);
    }
  }
  if (!plan) return;
  cables_ = fabric::planned_cables(fab, *plan);
  ports_.for_each([&](uint64_t k, PortContext& ctx) {
    auto it = cables_.find(k);
    if (it != cables_.end()) ctx.cable_id = it->second;
  });
}

std::optional<PortContext> Correlator::port(uint64_t guid, int port) const {
  const PortContext* ctx = ports_.find(key(guid, port));
  if (!ctx) return std::nullopt;
  return *ctx;
}

std::string Correlator::cable_at(uint64_t guid, int port) const {
  auto it = cables_.find(key(guid, port));
  return it == cables_.end() ? std::string() : it->second;
}

std::string Correlator::node_name(uint64_t guid) const {
  auto it = names_.find(guid);
  return it == names_.end() ? std::string() : it->second;
}

uint64_t Correlator::guid_of_lid(uint16_t lid) const {
  auto it = lids_.find(lid);
  return it == lids_.end() ? 0 : it->second;
}

void Correlator::enrich(Event& e) const {
  if (!e.node_guid && e.lid) e.node_guid = guid_of_lid(e.lid);
  if (e.node.empty()) e.node = node_name(e.node_guid);
  if (e.port == 0) return;
  if (auto ctx = port(e.node_guid, e.port)) {
    if (e.peer_node.empty() && ctx->peer_guid) {
      e.peer_guid = ctx->peer_guid;
      e.peer_node = ctx->peer_node;
      e.peer_port = ctx->peer_port;
    }
    if (e.cable_id.empty()) e.cable_id = ctx->cable_id;
  }
  if (e.cable_id.empty()) e.cable_id = cable_at(e.node_guid, e.port);
}

}  // namespace ibw::ingest
