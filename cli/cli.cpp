// Top-level command dispatch and help.
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "daemon/topology.h"

namespace ibw::cli {

using daemon::cmd_discover_cache;
namespace {

constexpr const char* kUsage = R"(usage: ibwarden COMMAND [OPTIONS]

Keeps InfiniBand fabrics healthy.

Commands:
  audit         compare the cabling plan with the discovered fabric and list every difference
  run           run the event watcher daemon (OpenSM log, port counters, store)
  check-config  validate a configuration file (unknown keys included)
  events        print stored events
  ports         print the last known state and counters of every port
  route         trace a static route, or list the LID pairs whose route crosses a port
  rules         validate a rules file (ibwarden rules validate FILE)
  decisions     print what the automation and operators decided, and why
  workorders    print repair work orders (or update one: --update ID)
  disable       disable a port through the guard (--port NODE/PORT --reason TEXT)
  enable        re-enable a port and resolve its work order
  replay        evaluate the rules over recorded history, dry-run, and print the decisions
  localize      rank the links behind lost or slow route observations (cursed routes)
  probe         one round of loss/RTT probes to every LID and through every link

Run `ibwarden COMMAND --help` for the options of a command.
)";

}  // namespace

int run_cli(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (cmd == "--version") {
    std::cout << "ibwarden 0.1.0\n";
    return 0;
  }
  if (cmd == "audit") return cmd_audit(argc, argv, 2);
  if (cmd == "run") return cmd_run(argc, argv, 2);
  if (cmd == "check-config") return cmd_check_config(argc, argv, 2);
  if (cmd == "events") return cmd_events(argc, argv, 2);
  if (cmd == "ports") return cmd_ports(argc, argv, 2);
  if (cmd == "route") return cmd_route(argc, argv, 2);
  if (cmd == "rules") return cmd_rules(argc, argv, 2);
  if (cmd == "decisions") return cmd_decisions(argc, argv, 2);
  if (cmd == "workorders") return cmd_workorders(argc, argv, 2);
  if (cmd == "disable") return cmd_disable(argc, argv, 2);
  if (cmd == "enable") return cmd_enable(argc, argv, 2);
  if (cmd == "replay") return cmd_replay(argc, argv, 2);
  if (cmd == "localize") return cmd_localize(argc, argv, 2);
  if (cmd == "probe") return cmd_probe(argc, argv, 2);
  if (cmd == "discover-cache") return cmd_discover_cache(argc, argv, 2);  // the daemon's child
  std::cerr << "ibwarden: unknown command \"" << cmd << "\"\n\n" << kUsage;
  return 2;
}

}  // namespace ibw::cli
