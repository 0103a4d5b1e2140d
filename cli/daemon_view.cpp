// load_daemon_view and DaemonView::crossing; see daemon_view.h.
#include "cli/daemon_view.h"

#include <filesystem>

#include "cli/store_fabric.h"
#include "config/store_spec.h"

namespace ibw::cli {

fabric::LinkHosts DaemonView::crossing(uint32_t node, int port, const std::vector<uint8_t>* among,
                                       bool* asked_up) const {
  return fabric::hosts_of_link(fab, tables ? &*tables : nullptr, node, port, among, asked_up);
}

DaemonView load_daemon_view(const CmdArgs& args) {
  DaemonView v;
  v.cfg = config::load_config(*args.get("config"));
  v.db = store::Store::open(config::store_spec(v.cfg), /*read_only=*/true);
  v.ports = v.db->ports();
  if (v.ports.empty())
    throw std::runtime_error("no daemon state: the store of " + *args.get("config") +
                             " holds no ports (is `ibwarden run` running with it?)");
  v.fab = fabric_from_ports(v.ports);
  if (v.cfg.probes.routes == "static") {
    std::string dump = v.cfg.opensm.dump_dir + "/opensm-lfts.dump";
    if (std::filesystem::exists(dump))
      v.tables = fabric::load_lft_dump(dump);
    else
      v.routes_note = "no " + dump + ": every minimal route counts (as adaptive routing)";
  }
  std::optional<fabric::HostMapFile> file;
  if (args.has("host-map")) file = fabric::load_host_map(*args.get("host-map"));
  v.hosts = std::make_unique<fabric::HostMap>(v.fab, file ? &*file : nullptr);
  return v;
}

std::pair<uint32_t, int> resolve_link(const fabric::Fabric& fab, const std::string& text,
                                      const std::string& option) {
  std::string err;
  auto spec = fabric::parse_port_spec(text, &err);
  if (!spec) throw UsageError(option + ": " + err);
  bool ambiguous = false;
  uint32_t node = spec->guid ? fab.find_guid(*spec->guid) : fab.resolve(spec->node, &ambiguous);
  if (ambiguous) throw UsageError(option + ": several nodes are named \"" + spec->node + "\"");
  if (node == fabric::kNoNode)
    throw UsageError(option + ": no node \"" + spec->node + "\" in the daemon's fabric");
  const fabric::Port* p = fab.node(node).port(spec->port);
  if (!p || !p->present)
    throw UsageError(option + ": " + fab.port_label(node, spec->port) + " is not a known port");
  return {node, spec->port};
}

}  // namespace ibw::cli
