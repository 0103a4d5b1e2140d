// `ibwarden route`: static routes from the LFTs. Traces the path between two LIDs, or lists
// the (source, destination) LID pairs whose path crosses a port; `route check` checks them
// all (credit loops, unreachable pairs, balance, OpenSM's engine: fabric/route_check.h). The
// fabric comes from the configured discovery (live or a file); the LFTs from OpenSM's
// opensm-lfts.dump in opensm.dump_dir when present, else live over SMPs (--live-lfts forces
// that). `route check` takes the SL-to-VL tables from the same place: opensm-sl2vl.dump beside
// the LFT dump (none when OpenSM wrote none), or live over SMPs with live LFTs.
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "config/config.h"
#include "daemon/topology.h"
#include "fabric/diagnostics.h"
#include "fabric/route_check_report.h"
#include "fabric/routing.h"
#include "fabric/sl2vl.h"
#include "ingest/opensm_routing.h"

namespace ibw::cli {

using daemon::discover_topology;
namespace cmd_route_detail {

nlohmann::ordered_json hops_json(const fabric::Fabric& fab, const fabric::PathResult& path) {
  auto arr = nlohmann::ordered_json::array();
  for (const auto& h : path.hops) {
    const fabric::Node& n = fab.node(h.node);
    arr.push_back({{"node", n.name},
                   {"node_guid", fabric::format_guid(n.guid)},
                   {"in_port", h.in_port},
                   {"out_port", h.out_port}});
  }
  return arr;
}

// The configuration, the discovered fabric and its LFTs (dump or live).
struct RouteInputs {
  config::Config cfg;
  std::shared_ptr<const daemon::Topology> topo;
  fabric::RoutingTables tables;
  bool live = false;  // the LFTs were read over SMPs
};

RouteInputs load_route_inputs(const CmdArgs& args) {
  RouteInputs in;
  in.cfg = config::load_config(*args.get("config"));
  const config::Config& cfg = in.cfg;
  fabric::NodeNameMap names;
  if (cfg.fabric.node_name_map) names = fabric::load_node_name_map(*cfg.fabric.node_name_map);
  fabric::MadLocks mad;  // this process's: discovery and the LFT reads share it
  in.topo = discover_topology(mad, cfg, nullptr, &names, 0);
  std::string dump = cfg.opensm.dump_dir + "/opensm-lfts.dump";
  in.live = args.has("live-lfts") || !std::filesystem::exists(dump);
  in.tables = !in.live
                  ? fabric::load_lft_dump(dump)
                  : fabric::read_lfts_live(mad, in.topo->fabric, cfg.fabric.ca, cfg.fabric.ca_port);
  return in;
}

// The SL-to-VL tables for `route check`: live with live LFTs, else OpenSM's dump when it
// wrote one (it does with QoS or an engine that programs SL2VL: fabric/sl2vl.h).
fabric::Sl2VlTables load_sl2vl(const RouteInputs& in) {
  const config::Config& cfg = in.cfg;
  if (in.live) {
    fabric::MadLocks mad;
    size_t failed = 0;
    auto t =
        fabric::read_sl2vl_live(mad, in.topo->fabric, cfg.fabric.ca, cfg.fabric.ca_port, &failed);
    if (failed)
      std::cerr << "route check: " << failed
                << " switch(es) did not answer SLtoVLMappingTable; their hops count as VL 0\n";
    return t;
  }
  std::string dump = cfg.opensm.dump_dir + "/opensm-sl2vl.dump";
  return std::filesystem::exists(dump) ? fabric::load_sl2vl_dump(dump) : fabric::Sl2VlTables{};
}

}  // namespace cmd_route_detail

int cmd_route_check(const CmdArgs& args) {
  using namespace cmd_route_detail;
  return run_command(args, "route check", [&] {
    if (!args.has("config")) throw UsageError("--config is required");
    std::string format = args.choice("format", "text");
    RouteInputs in = load_route_inputs(args);
    const fabric::Fabric& fab = in.topo->fabric;
    fabric::Sl2VlTables sl2vl = load_sl2vl(in);
    fabric::RouteCheckOptions options;
    options.sl2vl = &sl2vl;
    fabric::RouteCheck check = fabric::check_routes(fab, in.tables, options);
    fabric::RoutingEngineInfo engine = ingest::read_routing_engine(in.cfg.opensm.log);
    if (format == "json")
      std::cout << fabric::route_check_json(fab, check, engine).dump(2) << "\n";
    else
      std::cout << fabric::format_route_check(fab, check, engine);
    return fabric::route_problems(check, engine) ? 1 : 0;
  });
}

int cmd_route(const CmdArgs& args) {
  using namespace cmd_route_detail;
  return run_command(args, "route", [&] {
    if (!args.has("config")) throw UsageError("--config is required");
    bool trace = args.has("from") || args.has("to");
    if (trace == args.has("crossing"))
      throw UsageError("give either --from and --to, or --crossing");
    std::string format = args.choice("format", "text");
    RouteInputs in = load_route_inputs(args);
    const fabric::Fabric& fab = in.topo->fabric;
    const fabric::RoutingTables& tables = in.tables;
    fabric::LidIndex lids(fab);

    if (trace) {
      if (!args.has("from") || !args.has("to")) throw UsageError("--from and --to go together");
      auto from = static_cast<uint16_t>(*args.get_int("from", 1, 0xbfff));
      auto to = static_cast<uint16_t>(*args.get_int("to", 1, 0xbfff));
      fabric::PathResult path = fabric::trace_path(fab, tables, lids, from, to);
      if (format == "json") {
        nlohmann::ordered_json j = {
            {"from", from}, {"to", to}, {"hops", hops_json(fab, path)}, {"error", path.error}};
        std::cout << j.dump(2) << "\n";
      } else {
        std::cout << fabric::format_path(fab, path) << "\n";
      }
      return path.ok() ? 0 : 1;
    }
    std::string err;
    auto spec = fabric::parse_port_spec(*args.get("crossing"), &err);
    if (!spec) throw UsageError("--crossing: " + err);
    uint32_t node = spec->guid ? fab.find_guid(*spec->guid) : fab.resolve(spec->node);
    if (node == fabric::kNoNode)
      throw UsageError("--crossing: no node \"" + spec->node + "\" in the fabric");
    auto pairs = fabric::pairs_crossing(fab, tables, lids, node, spec->port);
    size_t limit = static_cast<size_t>(args.get_int("limit", 1, 100'000'000).value_or(100'000'000));
    if (format == "json") {
      auto arr = nlohmann::ordered_json::array();
      for (size_t i = 0; i < pairs.size() && i < limit; ++i)
        arr.push_back({{"src_lid", pairs[i].first}, {"dst_lid", pairs[i].second}});
      nlohmann::ordered_json j = {
          {"port", *args.get("crossing")}, {"pairs", pairs.size()}, {"crossing", arr}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << pairs.size() << " (source LID, destination LID) pairs cross "
                << *args.get("crossing") << "\n";
      for (size_t i = 0; i < pairs.size() && i < limit; ++i)
        std::cout << pairs[i].first << " -> " << pairs[i].second << "\n";
    }
    return 0;
  });
}

}  // namespace ibw::cli
