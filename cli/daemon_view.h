// The fabric as the running daemon last stored it, for `ibwarden jobs` and `ibwarden check`
// (issue 33): the configuration, the store opened read-only, the recorded ports and the graph
// rebuilt from them (cli/store_fabric.h), the Slurm node of each CA (fabric/host_map.h: from
// `hostname hca` descriptions, or --host-map FILE), and the routing to ask: `probes.routes`
// of the configuration; static routes read OpenSM's opensm-lfts.dump in opensm.dump_dir and
// fall back to every minimal route (adaptive) when it is missing, saying so in `routes_note`.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "config/config.h"
#include "fabric/host_map.h"
#include "fabric/link_hosts.h"
#include "fabric/routing.h"
#include "store/store.h"

namespace ibw::cli {

struct DaemonView {
  config::Config cfg;
  std::unique_ptr<store::Store> db;
  std::vector<store::PortRecord> ports;
  fabric::Fabric fab;
  std::optional<fabric::RoutingTables> tables;  // set: static routes from the LFTs
  std::string routes_note;                      // why static routes were not used, if so
  std::unique_ptr<fabric::HostMap> hosts;

  const char* routes() const { return tables ? "static" : "adaptive"; }
  // The hosts whose routes cross the link at (node, port), by the view's routing
  // (fabric::hosts_of_link: a link that is not up is asked as if up, and *asked_up says so).
  fabric::LinkHosts crossing(uint32_t node, int port, const std::vector<uint8_t>* among = nullptr,
                             bool* asked_up = nullptr) const;
};

// Reads --config (default /etc/ibwarden/ibwarden.yaml) and --host-map. Throws
// std::runtime_error "no daemon state: ..." when the store holds no ports.
DaemonView load_daemon_view(const CmdArgs& args);

// The fabric node of `NODE/PORT` or `0xGUID/PORT`; throws UsageError naming `option`.
std::pair<uint32_t, int> resolve_link(const fabric::Fabric& fab, const std::string& text,
                                      const std::string& option);

}  // namespace ibw::cli
