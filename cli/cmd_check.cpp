// `ibwarden check --nodes HOSTLIST [--config FILE] [--host-map FILE] [--format text|json]`
// (issue 33): the pre-job check of a Slurm hostlist (core/hostlist.h) against the daemon's
// state (cli/node_check.h), for a Slurm Prolog or HealthCheckProgram (docs/slurm-check.md).
// Exit 0 every host whole and no route between them over a bad link, 1 problems (each named:
// host, link, why), 2 error (a bad hostlist with its offset, unknown node names, no daemon
// state, an unreadable configuration or store).
#include <chrono>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/node_check.h"
#include "core/hostlist.h"

namespace ibw::cli {

int cmd_check(const CmdArgs& args) {
  return run_command(args, "check", [&] {
    if (!args.has("nodes")) return args.usage_error("--nodes is required");
    std::string format = args.choice("format", "text");
    std::string expr = *args.get("nodes");
    core::HostlistError err;
    std::vector<std::string> names = core::expand_hostlist(expr, &err);
    if (names.empty())
      throw UsageError("--nodes: at offset " + std::to_string(err.offset) + " of \"" + expr +
                       "\": " + (err.message.empty() ? "no node names" : err.message));
    DaemonView v = load_daemon_view(args);
    int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    NodeCheck c = check_nodes(v, names, now);
    if (!c.unknown.empty()) {
      std::cerr << "ibwarden check: " << c.unknown.size()
                << " node name(s) not in the daemon's fabric (no CA maps to them): "
                << core::compress_hostlist(c.unknown) << "\n";
      return 2;
    }
    if (format == "json") {
      nlohmann::ordered_json out;
      out["nodes"] = expr;
      out["hosts"] = c.nodes;
      out["cas"] = c.cas;
      out["routes"] = v.routes();
      out["bad_links"] = c.bad_links;
      out["ok"] = c.problems.empty();
      out["problems"] = nlohmann::ordered_json::array();
      for (const auto& p : c.problems)
        out["problems"].push_back({{"host", p.host}, {"link", p.link}, {"why", p.why}});
      std::cout << out.dump(2) << "\n";
      return c.problems.empty() ? 0 : 1;
    }
    if (!v.routes_note.empty()) std::cout << "note: " << v.routes_note << "\n";
    for (const auto& p : c.problems)
      std::cout << "problem: " << p.host << ": " << p.link << ": " << p.why << "\n";
    if (c.problems.empty())
      std::cout << "ok: " << c.nodes << " nodes (" << c.cas << " CAs) up at full width and "
                << "speed; no route between them crosses a suspect, disabled or error-rising "
                << "link (routes: " << v.routes() << ", " << c.bad_links << " bad links known)\n";
    else
      std::cout << c.problems.size() << " problem(s) for " << expr << "\n";
    return c.problems.empty() ? 0 : 1;
  });
}

}  // namespace ibw::cli
