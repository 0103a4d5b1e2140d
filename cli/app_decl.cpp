// The declaration of every command of `ibwarden` (see cli/app.h): options, value names, fixed
// values, descriptions, and the cmd_* function each command runs. A command's description is
// its one-line summary, a blank line, then the paragraphs that explain it; its footer is what
// follows the options in --help (exit status, notes). The remedy, route and cursed-route
// commands are declared in cli/app_decl_ops.cpp.
#include <CLI/CLI.hpp>

#include "cli/app.h"
#include "cli/app_decl_detail.h"
#include "cli/commands.h"
#include "cli/help_doc.h"
#include "daemon/topology.h"

namespace ibw::cli {
namespace app_decl_detail {

CLI::App* command(CLI::App& parent, const std::string& name, const std::string& description,
                  const std::string& footer) {
  CLI::App* c = parent.add_subcommand(name, description);
  c->footer(footer);
  c->set_help_flag("--help", "print this help and exit");
  c->allow_extras();  // unknown options and stray arguments get today's messages (cli/app.cpp)
  return c;
}

CLI::Option* option(CLI::App* c, const std::string& name, const std::string& value_name,
                    const std::string& description) {
  return c->add_option("--" + name)
      ->description(description)
      ->type_name(value_name)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // twice: refused in app.cpp
}

CLI::Option* repeatable(CLI::App* c, const std::string& name, const std::string& value_name,
                        const std::string& description) {
  return option(c, name, value_name, description)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

CLI::Option* flag(CLI::App* c, const std::string& name, const std::string& description) {
  return c->add_flag("--" + name)
      ->description(description)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option* config_option(CLI::App* c) {
  return option(c, "config", "FILE", "the configuration file (ibwarden.yaml)")->required();
}

CLI::Option* text_json_option(CLI::App* c) {
  return option(c, "format", "text|json", "output format (default text)");
}

CLI::Option* since_option(CLI::App* c) {
  return option(c, "since", "DURATION|TIME",
                "a duration back from now (10m, 2h, 1d) or an ISO time (2026-11-22T01:00:00Z)");
}

void declare_watch(CliTree& t) {
  CLI::App& root = *t.root;
  CLI::App* c = command(
      root, "audit",
      "compare the cabling plan with the discovered fabric and list every difference\n\n"
      "Compares the cabling plan with the fabric and classifies every difference: missing, "
      "miswired, swapped, unexpected, degraded, missing_node, unknown_node, partition. Give "
      "exactly one of --topology or --live.",
      "Exit status: 0 no findings, 1 findings, 2 usage or input error.");
  option(c, "plan", "FILE",
         "cabling plan: CSV (cable_id,a_node,a_port,b_node,b_port[,...]), YAML (cables: [...]) "
         "or UFM NDT (#StartDevice,...); detected by content")
      ->required();
  repeatable(c, "topology", "FILE",
             "ibnetdiscover output or an ibnetdiscover --cache file; repeat it to merge views of "
             "several separate networks");
  flag(c, "live", "discover the fabric now over SMPs (libibnetdisc)");
  option(c, "ca", "NAME", "local CA for --live (default: first)");
  option(c, "ca-port", "N", "local port for --live (default: first active)");
  option(c, "node-name-map", "FILE", "0xGUID \"name\" lines; names are matched against the plan");
  option(c, "format", "text|json|csv", "report format (default text)");
  option(c, "output", "FILE", "write the report there instead of standard output");
  t.handlers[c] = &cmd_audit;

  c = command(root, "run",
              "run the event watcher daemon (OpenSM log, port counters, store)\n\n"
              "Runs the event watcher: tails the OpenSM log, re-discovers the fabric on "
              "link-state traps, polls port counters, and stores events, samples and port state "
              "in SQLite. SIGTERM/SIGINT stop it cleanly; SIGHUP reloads the configuration (a new "
              "file that does not validate is rejected and the running one kept). Logs are JSON "
              "lines on stderr.",
              "");
  config_option(c);
  t.handlers[c] = &cmd_run;

  c = command(root, "check-config",
              "validate a configuration file (unknown keys included)\n\n"
              "Validates the configuration (unknown keys included) and the plan, node-name-map "
              "and rules file it names, and that the webhook secret is readable when one is "
              "configured. Prints every problem as file:line: key: message.",
              "Exit status: 0 valid, 2 invalid.");
  config_option(c);
  t.handlers[c] = &cmd_check_config;

  c = command(root, "events",
              "print stored events\n\n"
              "Prints stored events, oldest first. JSON: an array of {id, time, source, kind, "
              "severity, node, node_guid, port, peer_node, peer_port, cable_id, message}.",
              "");
  config_option(c);
  since_option(c);
  option(c, "port", "NODE/PORT",
         "keep the events of that port (or 0xGUID/PORT), at either end of its link");
  option(c, "limit", "N", "print at most N events (default 100000)");
  text_json_option(c);
  t.handlers[c] = &cmd_events;

  c = command(root, "incidents",
              "print incidents: one cause behind a burst of link events\n\n"
              "Prints the incidents in the stored events, oldest first: a switch that lost most "
              "of its links at once (switch_reboot; switch_down while they stay down), a host "
              "whose every link went down (host_down), a subnet-manager re-sweep "
              "(sm_resweep), the hosts behind one switch whose counter queries fail "
              "(hosts_unreachable). The ports of an incident give no rule verdicts of their own "
              "while it lasts; a switch that keeps rebooting or stays down gets one work order. "
              "JSON: an array of {id, kind, node, node_guid, ports, first, last, events, cycles, "
              "state}; state is active or resolved.",
              "");
  config_option(c);
  option(c, "since", "DURATION|TIME",
         "incidents with an event since a duration back from now (10m, 2h, 1d) or an ISO "
         "time (default 24h; active ones are always listed)");
  text_json_option(c);
  t.handlers[c] = &cmd_incidents;

  c = command(root, "ports",
              "print the last known state and counters of every port\n\n"
              "Prints the last known state and counters of every port (or of one node's ports). "
              "JSON: an array of {node, node_guid, port, lid, peer_node, peer_port, cable_id, "
              "state, phys_state, width, speed, counters: {...}, rates: {...}, last_change} (+ "
              "ufm: UFM's view of the port, when UFM reports it; the text format then ends with "
              "ufm:STATE [high_ber=SEVERITY]).",
              "");
  config_option(c);
  option(c, "node", "NODE", "only the ports of this node");
  text_json_option(c);
  t.handlers[c] = &cmd_ports;
}

void declare_store(CliTree& t) {
  CLI::App* store = command(*t.root, "store",
                            "back up the store (ibwarden store backup FILE)\n\n"
                            "Maintenance of the SQLite store the daemon writes (store.path).",
                            "");
  store->require_subcommand(0, 1);
  CLI::App* c = command(
      *store, "backup",
      "write a consistent copy of the store to FILE\n\n"
      "Copies the store named by the configuration (store.path) to FILE with SQLite's online "
      "backup, while the daemon keeps writing: the copy holds every transaction committed "
      "before it started. FILE must not exist; it is written beside its final name and renamed "
      "into place, so a failed backup leaves nothing behind. Prints the pages and bytes "
      "written.",
      "Exit status: 0 written, 2 usage error or failure (bad configuration, missing store, "
      "existing FILE, I/O error).");
  c->add_option("FILE")->description("where to write the copy")->type_name("FILE")->required();
  option(c, "config", "FILE", "the configuration file")->default_str("/etc/ibwarden/ibwarden.yaml");
  t.handlers[c] = &cmd_store_backup;

  c = command(*t.root, "status",
              "print this instance's role on its fabric (leader or standby) and the lease\n\n"
              "Reads the fabric's lease from the store the configuration names. With ha: "
              "(store.backend postgres) the role is leader when the lease is held by this "
              "instance (ha.instance) and not expired, standby otherwise; without ha: the daemon "
              "watches its fabric alone and is its leader. JSON: {fabric, role, instance, "
              "backend, ha, holder, epoch, lease_expires, lease_expires_in_s}.",
              "Exit status: 0 answered, 2 usage error or the store cannot be read.");
  config_option(c);
  text_json_option(c);
  t.handlers[c] = &cmd_status;
}

}  // namespace app_decl_detail

CliTree::CliTree() = default;
CliTree::CliTree(CliTree&&) noexcept = default;
CliTree::~CliTree() = default;

CliTree build_app() {
  using namespace app_decl_detail;
  CliTree t;
  t.root = std::make_unique<CLI::App>("Keeps InfiniBand fabrics healthy.", "ibwarden");
  CLI::App& root = *t.root;
  root.footer(
      std::string("Run `ibwarden COMMAND --help` for the options of a command.\nThe manual: ") +
      kManualDir + " (README.md, then a page per subject: rules.md, web.md, ...)");
  root.set_help_flag("-h,--help", "print this help and exit");
  root.set_version_flag("--version", std::string("ibwarden ") + IBW_VERSION,
                        "print the version and exit");
  root.require_subcommand(0, 1);  // a second command name is an unexpected argument
  declare_watch(t);
  declare_ops(t);
  declare_store(t);
  // The daemon's child for an isolated live discovery: hidden, its arguments passed as they are.
  CLI::App* c = root.add_subcommand("discover-cache", "internal: live discovery to a cache file");
  c->group("")->prefix_command()->allow_extras();
  c->set_help_flag();
  t.handlers[c] = [](const CmdArgs& a) {
    return daemon::cmd_discover_cache(a.argc(), a.argv(), 2);
  };
  return t;
}

std::vector<std::string> fixed_values(const std::string& value_name) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : value_name + "|") {
    if (ch != '|') {
      if (!(ch >= 'a' && ch <= 'z') && ch != '_' && !(ch >= '0' && ch <= '9')) return {};
      cur += ch;
    } else if (cur.empty()) {
      return {};
    } else {
      out.push_back(cur);
      cur.clear();
    }
  }
  return out;
}

bool file_valued(const std::string& value_name) {
  return value_name == "FILE" || value_name == "STORE";
}

}  // namespace ibw::cli
