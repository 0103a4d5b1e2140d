// `ibwarden jobs --link NODE/PORT [--config FILE] [--host-map FILE] [--format text|json]`
// (issue 33): the hosts whose routes cross a link, from the daemon's stored fabric and the
// configured routing (cli/daemon_view.h, fabric/link_hosts.h), with their Slurm node names
// (unmapped CAs listed as such), the CA-to-CA pairs, and the running jobs on those nodes
// (actions/affected_jobs.h, as on the daemon's work orders; one squeue; "not available"
// without slurm.enabled).
// Exit 0 on an answer, 2 on a usage or input error (unknown link, no daemon state).
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "actions/affected_jobs.h"
#include "cli/commands.h"
#include "cli/daemon_view.h"
#include "core/hostlist.h"

namespace ibw::cli {

int cmd_jobs(const CmdArgs& args) {
  return run_command(args, "jobs", [&] {
    if (!args.has("link")) return args.usage_error("--link is required");
    std::string format = args.choice("format", "text");
    DaemonView v = load_daemon_view(args);
    auto [node, port] = resolve_link(v.fab, *args.get("link"), "--link");
    std::string link = v.fab.port_label(node, port);
    if (const fabric::Port* p = v.fab.node(node).port(port); p->has_peer())
      link += " - " + v.fab.port_label(p->peer_node, p->peer_port);
    bool asked_up = false;  // the link is down: the hosts it carried when up
    fabric::LinkHosts hosts = v.crossing(node, port, nullptr, &asked_up);
    const char* routes = asked_up ? "adaptive" : v.routes();

    actions::LinkNodes mapped = actions::link_nodes(*v.hosts, hosts);
    auto listed = nlohmann::ordered_json::array();
    auto unmapped = nlohmann::ordered_json::array();
    for (const auto& [ca, slurm] : mapped.mapped)
      listed.push_back({{"host", v.fab.node(ca).name}, {"node", slurm}});
    for (uint32_t ca : mapped.unmapped) unmapped.push_back(v.fab.node(ca).name);
    const std::vector<std::string>& nodes = mapped.nodes;
    std::optional<std::vector<actions::AffectedJob>> jobs;  // nullopt: Slurm not configured
    if (v.cfg.slurm.enabled) {
      std::vector<actions::SlurmJob> running;  // none for no nodes (squeue would list all)
      if (!nodes.empty())
        running =
            actions::CommandSlurmClient(actions::slurm_commands(v.cfg.slurm)).running_jobs(nodes);
      jobs = actions::JobIndex(running).on_nodes(nodes);
    }
    if (format == "json") {
      nlohmann::ordered_json out;
      out["link"] = link;
      out["routes"] = routes;
      out["link_up"] = !asked_up;
      out["hosts"] = listed;
      out["unmapped"] = unmapped;
      out["pairs"] = hosts.pairs;
      out["jobs"] = jobs ? actions::jobs_json(*jobs) : nlohmann::ordered_json(nullptr);
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::cout << "link: " << link << " (routes: " << routes << ")\n";
    if (asked_up)
      std::cout << "note: the link is down or disabled: the hosts of every minimal route over it "
                   "when up\n";
    else if (!v.routes_note.empty())
      std::cout << "note: " << v.routes_note << "\n";
    std::cout << "hosts: " << hosts.cas.size() << " (" << hosts.pairs
              << " CA-to-CA pairs cross it), nodes: "
              << (nodes.empty() ? "none" : core::compress_hostlist(nodes)) << "\n";
    for (const auto& h : listed)
      std::cout << "  " << h["host"].get<std::string>() << "  " << h["node"].get<std::string>()
                << "\n";
    if (!unmapped.empty()) {
      std::cout << "unmapped: " << unmapped.size() << " (no Slurm node: no `hostname hca` "
                << "description and not in --host-map)\n";
      for (const auto& u : unmapped) std::cout << "  " << u.get<std::string>() << "\n";
    }
    if (!jobs) {
      std::cout << "jobs: not available (slurm section not configured)\n";
      return 0;
    }
    std::cout << "jobs: " << jobs->size() << "\n";
    for (const actions::AffectedJob& j : *jobs)
      std::cout << "  " << j.id << "  " << j.user << "  " << j.nodes << " nodes\n";
    return 0;
  });
}

}  // namespace ibw::cli
