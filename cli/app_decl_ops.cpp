// The declaration of the route, rules, remediation, replay, cursed-route and Slurm commands (see
// cli/app_decl.cpp for the conventions).
#include <CLI/CLI.hpp>

#include "cli/app_decl_detail.h"
#include "cli/commands.h"

namespace ibw::cli::app_decl_detail {
namespace {

void declare_route_rules(CliTree& t) {
  CLI::App& root = *t.root;
  CLI::App* c = command(
      root, "route",
      "trace a static route, or list the LID pairs whose route crosses a port\n\n"
      "Static routes from the LFTs: traces the path between two LIDs hop by hop (as ibtracert), "
      "or lists the CA-to-CA (source LID, destination LID) pairs whose path uses a link. Give "
      "either --from and --to, or --crossing. The fabric comes from the configured discovery; "
      "the LFTs from OpenSM's opensm-lfts.dump in opensm.dump_dir when present, else live over "
      "SMPs.",
      "Exit status: 0 success, 1 the traced route is broken, 2 usage or input error.");
  // Not required by CLI11: a required option of `route` would also be demanded of `route
  // check`; cmd_route checks it itself, with the same message.
  config_option(c)->required(false);
  option(c, "from", "LID", "trace the static path from this LID (with --to)");
  option(c, "to", "LID", "trace the static path to this LID (with --from)");
  option(c, "crossing", "NODE/PORT",
         "list the CA-to-CA (source LID, destination LID) pairs whose path uses the link at "
         "NODE/PORT, in either direction");
  flag(c, "live-lfts", "read the LFTs over SMPs even when opensm-lfts.dump exists");
  option(c, "limit", "N", "list at most N pairs of --crossing");
  text_json_option(c);
  t.handlers[c] = &cmd_route;
  c->require_subcommand(0, 1);
  CLI::App* route = c;
  c = command(
      *route, "check",
      "check every static route: credit loops, unreachable pairs, balance, OpenSM's engine\n\n"
      "Checks the LFTs (opensm-lfts.dump in opensm.dump_dir when present, else live over SMPs) "
      "on the configured fabric: credit loops (cycles of the channel-dependency graph over "
      "every path from a CA port, per virtual lane with the SL-to-VL tables of "
      "opensm-sl2vl.dump or read live with live LFTs, one lane without; every path on SL 0), "
      "CA-to-CA and CA-to-switch LID pairs with "
      "no route or a route that loops or dead-ends, routes per directed switch-to-switch link "
      "(max/min ratio, the worst links), and the routing engine OpenSM used and whether it fell "
      "back from the configured one (from opensm.log). JSON: {credit_loops: [{channels, vls, "
      "links: [{from: {node, port, guid}, to, vl}]}], unreachable_pairs, unreachable, balance, "
      "engine, configured_engine, fallback, fallback_reason, sources, destinations, "
      "virtual_lanes: {count, source, switches, sl_source}}.",
      "Exit status: 0 clean, 1 problems found (a credit loop, an unreachable pair or an engine "
      "fallback), 2 usage or input error.");
  config_option(c);
  flag(c, "live-lfts", "read the LFTs over SMPs even when opensm-lfts.dump exists");
  text_json_option(c);
  t.handlers[c] = &cmd_route_check;

  CLI::App* rules = command(root, "rules", "validate a rules file (ibwarden rules validate FILE)",
                            "Exit status: 0 valid, 2 invalid or unreadable.");
  rules->set_help_flag("-h,--help", "print this help and exit");
  rules->require_subcommand(0, 1);
  c = command(*rules, "validate",
              "check a rules file and name every problem\n\n"
              "Loads a rules file (YAML: rules: [{name, type, action, ...}]) and reports every "
              "problem as file:line: field: message. Rule types: symbol_errors, link_flap, "
              "link_degraded, error_counters, ufm_high_ber, cursed_path, congestion (report "
              "only: PortXmitWait and PortXmitDiscards may not lead to work_order, disable or "
              "isolate). The shipped defaults are config/rules.yaml.",
              "Exit status: 0 valid, 2 invalid or unreadable.");
  c->add_option("FILE")->description("the rules file")->type_name("FILE")->required();
  t.handlers[c] = &cmd_rules_validate;
}

void declare_remedy(CliTree& t) {
  CLI::App& root = *t.root;
  CLI::App* c = command(
      root, "decisions",
      "print what the automation and operators decided, and why\n\n"
      "Prints what the automation and operators decided, oldest first. JSON: an array of {id, "
      "time, rule, node, node_guid, port, peer_node, peer_port, cable_id, action, status, "
      "reason, evidence}; action is disable, enable, work_order or none; status is executed, "
      "dry_run, refused, failed or pending (a port request whose outcome is not recorded yet, "
      "or was not known: no answer to the Set nor to the read-back; the daemon reconciles "
      "those from the ports' state when it starts, and every minute those 10 minutes old or "
      "left by an earlier run; ibwarden_port_actions_pending counts them).",
      "");
  config_option(c);
  since_option(c);
  option(c, "limit", "N", "print at most N decisions (default 100000)");
  text_json_option(c);
  t.handlers[c] = &cmd_decisions;

  c = command(root, "workorders",
              "print repair work orders (or update one: --update ID)\n\n"
              "Prints repair work orders (one per link). JSON: an array of {id, cable_id, a, b, "
              "locations, status, rule, summary, offences, opened, updated, ...}. Status: open, "
              "in_progress, resolved, verified, reopened; \"active\" lists open, in_progress and "
              "reopened.\n\n"
              "--update changes one order: a technician takes it (in_progress), or closes an "
              "order whose link was never disabled (resolved; a disabled link is resolved by "
              "`ibwarden enable`).",
              "");
  config_option(c);
  option(c, "status", "STATUS",
         "list the orders in this status (or active); with --update, set it: in_progress, "
         "resolved or open");
  option(c, "update", "ID", "change the work order ID");
  option(c, "assignee", "NAME", "with --update: who works on it");
  option(c, "note", "TEXT", "with --update: a note on the order");
  text_json_option(c);
  t.handlers[c] = &cmd_workorders;

  const std::string port_text =
      "Disables or re-enables a port over SMPs (or through UFM with actions.via: ufm, which also "
      "posts the reason to UFM's event log), through the same guard as the automation (with "
      "actions.mode dry-run nothing changes). --force overrides the guard's budgets and "
      "min_up_links, never the hard rules (a host's last link, the SM's link, a leaf's last "
      "uplink); the override is recorded. With sm_watch on, disable asks for --force when no "
      "master "
      "subnet manager answers SMInfo (nothing would re-route around the port) and records "
      "that it was forced. enable re-enables the end ibwarden disabled and "
      "resolves the link's work order. Prints the decision.";
  const std::string port_footer =
      "Exit status: 0 executed or dry-run, 1 refused, failed or pending (the outcome unknown: "
      "the port did not answer; the daemon reads it back), 2 usage.";
  struct PortCommand {
    const char* name;
    const char* summary;
    Handler handler;
  };
  for (auto [name, summary, handler] :
       {PortCommand{"disable", "disable a port through the guard (--port NODE/PORT --reason TEXT)",
                    &cmd_disable},
        PortCommand{"enable", "re-enable a port and resolve its work order", &cmd_enable}}) {
    c = command(root, name, std::string(summary) + "\n\n" + port_text, port_footer);
    config_option(c);
    option(c, "port", "NODE/PORT", "the port (or 0xGUID/PORT)")->required();
    option(c, "reason", "TEXT", "why; recorded with the decision")->required();
    flag(c, "force",
         "override the guard's budgets and min_up_links, and disable without a master SM "
         "(recorded)");
    text_json_option(c);
    t.handlers[c] = handler;
  }
}

void declare_cursed(CliTree& t) {
  CLI::App& root = *t.root;
  CLI::App* c = command(
      root, "replay",
      "evaluate the rules over recorded history, dry-run, and print the decisions\n\n"
      "Evaluates the rules over recorded history (counter samples, link events and UFM's "
      "high_ber events of a store file, e.g. a copy of the daemon's store) in dry-run and prints "
      "the decisions that would have been made, oldest first: the same JSON shape as `ibwarden "
      "decisions`. The guard's budgets apply as in enforce mode; nothing is sent to the fabric.",
      "Exit status: 0 no decisions, 1 decisions, 2 usage or input error.");
  config_option(c);
  option(c, "from", "STORE", "the store file to replay")->required();
  option(c, "rules", "FILE", "the rules to evaluate (overrides rules.file)");
  option(c, "since", "DURATION|TIME",
         "replay from a duration back from now (10m, 2h, 1d) or an ISO time");
  text_json_option(c);
  t.handlers[c] = &cmd_replay;

  c = command(
      root, "localize",
      "rank the links behind lost or slow route observations (cursed routes)\n\n"
      "Reads route observations (ibwarden probe output, ib_write_bw/lat matrices, nccl-tests, "
      "burn-in results) and ranks the suspect links. Suspects are links, or groups of links no "
      "observation can tell apart; `from -> to` is the direction loss was seen in (`to` "
      "receives).",
      "Exit status: 0 no suspects, 1 suspects, 2 usage or input error (bad lines as file:line: "
      "field: message).");
  config_option(c);
  repeatable(c, "probes", "FILE",
             "observations, JSONL or CSV with a header (src, dst, sent, lost; optional slow, "
             "gbps + expected_gbps, rtt_us, routing, path, time, roundtrip: one-way unless "
             "true); repeat for several files")
      ->required();
  option(c, "routes", "static|adaptive",
         "the routing of records that do not say (default adaptive: every minimal route, as "
         "adaptive routing sprays them); `ibwarden probe` output says static or directed");
  text_json_option(c);
  t.handlers[c] = &cmd_localize;

  c = command(
      root, "probe",
      "one round of loss/RTT probes to every LID and through every link\n\n"
      "Sends one round of SubnGet(NodeInfo) SMPs from the local port (fabric.ca, "
      "fabric.ca_port): LID-routed to every switch and CA LID, and by directed route through "
      "every link (the request crosses it one way, the reply the other). Writes one route "
      "observation per target with sent, lost and RTT p50/p99 (microseconds). Limits come from "
      "the probes: section. A summary goes to standard error.",
      "Exit status: 0 the round ran, 2 usage, input or port error.");
  config_option(c);
  option(c, "output", "FILE", "where to write (default or \"-\": standard output)");
  option(c, "count", "N", "MADs per target (default: probes.count)");
  option(c, "format", "jsonl|csv", "jsonl (default) or csv (with a header)");
  t.handlers[c] = &cmd_probe;
}

// `jobs --link` and `check --nodes` (issue 33): the daemon's stored fabric seen from Slurm.
void declare_slurm(CliTree& t) {
  CLI::App& root = *t.root;
  auto daemon_options = [](CLI::App* c) {
    option(c, "config", "FILE", "the configuration file")
        ->default_str("/etc/ibwarden/ibwarden.yaml");
    option(c, "host-map", "FILE",
           "Slurm node of each CA: `KEY NODE` lines, KEY a 0xGUID or a CA name (default: the "
           "host name of `hostname hca` node descriptions)");
    text_json_option(c);
  };
  CLI::App* c = command(
      root, "jobs",
      "list the hosts (and Slurm nodes) whose routes cross a link\n\n"
      "From the fabric the running daemon last stored: the CA hosts whose routes use the link "
      "at NODE/PORT in either direction (static routes from opensm-lfts.dump with probes.routes "
      "static; else every minimal route between two leaves, as adaptive routing may spray), "
      "their Slurm node names (CAs without one are listed as unmapped), the CA-to-CA pairs, and "
      "the running jobs on those nodes once Slurm is configured. A link that is down or disabled "
      "is asked as if up, over every minimal route: the hosts it cut off. JSON: {link, routes, "
      "link_up, hosts: [{host, node}], unmapped, pairs, jobs: [{id, user, nodes}] or null}.",
      "Exit status: 0 answered, 2 usage or input error (unknown link, no daemon state).");
  option(c, "link", "NODE/PORT", "the link, by either end (leaf001/17, 0xGUID/3)");
  daemon_options(c);
  t.handlers[c] = &cmd_jobs;

  c = command(
      root, "check",
      "check a Slurm hostlist before a job: hosts whole, no route over a bad link\n\n"
      "Answers from the daemon's state whether every host of HOSTLIST (Slurm syntax: "
      "node[001-128],login1) has its links Active at full width and speed (the width and speed "
      "most host links run at) and none disabled, and whether any route between two of them "
      "crosses a link that is disabled, down, suspect (an active work order) or error-rising "
      "(a rule decision in the last hour, error counters rising). For a Slurm Prolog or "
      "HealthCheckProgram: docs/slurm-check.md. JSON: {nodes, hosts, cas, routes, bad_links, "
      "ok, problems: [{host, link, why}]}.",
      "Exit status: 0 good, 1 problems (each named: host, link, why), 2 error (a bad hostlist "
      "with its offset, unknown node names, no daemon state).");
  option(c, "nodes", "HOSTLIST", "the Slurm nodes to check (node[001-128])");
  daemon_options(c);
  t.handlers[c] = &cmd_check;
}

}  // namespace

void declare_ops(CliTree& t) {
  declare_route_rules(t);
  declare_remedy(t);
  declare_cursed(t);
  declare_slurm(t);
}

}  // namespace ibw::cli::app_decl_detail
