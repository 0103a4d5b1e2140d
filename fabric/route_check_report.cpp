// route_check_json and format_route_check.
#include "fabric/route_check_report.h"

#include <algorithm>
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

// Every path is checked on SL 0; these engines give paths other SLs to break credit loops.
bool engine_sets_sls(const std::string& engine) {
  return engine == "dfsssp" || engine == "lash" || engine == "torus-2QoS";
}

}  // namespace route_report_detail

nlohmann::ordered_json route_check_json(const Fabric& fab, const RouteCheck& check,
                                        const RoutingEngineInfo& engine) {
  using namespace route_report_detail;
  auto loops = nlohmann::ordered_json::array();
  for (const CreditLoop& loop : check.credit_loops) {
    auto links = nlohmann::ordered_json::array();
    for (size_t i = 0; i < loop.links.size(); ++i) {
      links.push_back(link_json(fab, loop.links[i]));
      links.back()["vl"] = i < loop.vls.size() ? loop.vls[i] : 0;
    }
    std::vector<uint8_t> vls(loop.vls);
    std::sort(vls.begin(), vls.end());
    vls.erase(std::unique(vls.begin(), vls.end()), vls.end());
    loops.push_back({{"channels", loop.channels}, {"vls", vls}, {"links", std::move(links)}});
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
          {"destinations", check.destinations},
          {"virtual_lanes",
           {{"count", check.vls},
            {"source", check.vl_source.empty() ? "none" : check.vl_source},
            {"switches", check.sl2vl_switches},
            {"sl_source", check.sl_source}}}};
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
  if (check.vl_source.empty())
    out << "virtual lanes: one (no SL-to-VL tables)\n";
  else
    out << "virtual lanes: " << check.vls << " (SL-to-VL tables: " << check.vl_source << ", "
        << check.sl2vl_switches << " switches; every path on SL 0)\n";
  out << "credit loops: " << check.credit_loops.size() << "\n";
  bool per_vl = !check.vl_source.empty();
  for (size_t i = 0; i < check.credit_loops.size(); ++i) {
    const CreditLoop& loop = check.credit_loops[i];
    out << "  loop " << i + 1 << " (" << loop.links.size() << " links in a cycle, " << loop.channels
        << " in its component):\n";
    for (size_t k = 0; k < loop.links.size(); ++k) {
      out << "    " << format_link(fab, loop.links[k]);
      if (per_vl && k < loop.vls.size()) out << " (VL " << int{loop.vls[k]} << ")";
      out << "\n";
    }
  }
  if (!check.credit_loops.empty() && route_report_detail::engine_sets_sls(engine.in_use))
    out << "  note: " << engine.in_use
        << " gives paths their own SLs to break loops; those are not known here (every path is "
           "checked on SL 0), so loops it breaks that way are listed too\n";
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
