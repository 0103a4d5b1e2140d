// route_check_json and format_route_check.
#include "fabric/route_check_report.h"

#include <cstdio>
#include <sstream>

namespace ibw::fabric {
namespace route_report_detail {

nlohmann::ordered_json end_json(const Fabric& fab, uint32_t node, int port) {
  if (node == kNoNode) return nullptr;
  const Node& n = fab.node(node);
  return {{"node", n.name.empty() ? format_guid(n.guid) : n.name},
          {"port", port},
          {"guid", format_guid(n.guid)}};
}

nlohmann::ordered_json link_json(const Fabric& fab, const DirectedLink& l) {
  return {{"from", end_json(fab, l.from_node, l.from_port)},
          {"to", end_json(fab, l.to_node, l.to_port)}};
}

}  // namespace route_report_detail

nlohmann::ordered_json route_check_json(const Fabric& fab, const RouteCheck& check,
                                        const RoutingEngineInfo& engine) {
  using namespace route_report_detail;
  auto loops = nlohmann::ordered_json::array();
  for (const CreditLoop& loop : check.credit_loops) {
    auto links = nlohmann::ordered_json::array();
    for (const DirectedLink& l : loop.links) links.push_back(link_json(fab, l));
    loops.push_back({{"channels", loop.channels}, {"links", std::move(links)}});
  }
  auto unreachable = nlohmann::ordered_json::array();
  for (const UnreachablePair& u : check.unreachable)
    unreachable.push_back({{"src_lid", u.src_lid}, {"dst_lid", u.dst_lid}, {"reason", u.reason}});
  const RouteBalance& b = check.balance;
  auto worst = nlohmann::ordered_json::array();
  for (const LinkRoutes& w : b.worst) {
    auto j = link_json(fab, w.link);
    j["routes"] = w.routes;
    worst.push_back(std::move(j));
  }
  return {{"credit_loops", std::move(loops)},
          {"unreachable_pairs", check.unreachable_pairs},
          {"unreachable", std::move(unreachable)},
          {"balance",
           {{"links", b.links},
            {"idle_links", b.idle_links},
            {"max_routes", b.max_routes},
            {"min_routes", b.min_routes},
            {"ratio", b.ratio},
            {"worst", std::move(worst)}}},
          {"engine", engine.in_use.empty() ? "unknown" : engine.in_use},
          {"configured_engine", engine.configured().empty() ? "unknown" : engine.configured()},
          {"fallback", engine.fallback()},
          {"fallback_reason", engine.reason},
          {"sources", check.sources},
          {"destinations", check.destinations}};
}

std::string format_route_check(const Fabric& fab, const RouteCheck& check,
                               const RoutingEngineInfo& engine) {
  std::ostringstream out;
  out << "routing engine: "
      << (engine.in_use.empty() ? "unknown (no routing pass in the log)" : engine.in_use);
  if (engine.fallback()) {
    out << " (FALLBACK from " << engine.configured() << ": " << engine.reason << ")";
  }
  out << "\n" << check.sources << " CA LIDs to " << check.destinations << " LIDs checked\n";
  out << "credit loops: " << check.credit_loops.size() << "\n";
  for (size_t i = 0; i < check.credit_loops.size(); ++i) {
    const CreditLoop& loop = check.credit_loops[i];
    out << "  loop " << i + 1 << " (" << loop.links.size() << " links in a cycle, " << loop.channels
        << " in its component):\n";
    for (const DirectedLink& l : loop.links) out << "    " << format_link(fab, l) << "\n";
  }
  out << "unreachable pairs: " << check.unreachable_pairs << "\n";
  for (const UnreachablePair& u : check.unreachable)
    out << "  " << u.src_lid << " -> " << u.dst_lid << ": " << u.reason << "\n";
  if (check.unreachable.size() < check.unreachable_pairs)
    out << "  ... (" << check.unreachable.size() << " listed)\n";
  const RouteBalance& b = check.balance;
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.2f", b.ratio);
  out << "balance: " << b.links << " switch-to-switch links, routes max " << b.max_routes << " min "
      << b.min_routes << " (ratio " << ratio << "), " << b.idle_links << " idle\n";
  for (const LinkRoutes& w : b.worst)
    out << "  " << w.routes << "  " << format_link(fab, w.link) << "\n";
  return out.str();
}

}  // namespace ibw::fabric
