// CLI command entry points. Each returns the process exit code:
// 0 success / nothing found, 1 findings, 2 usage or input error.
// run_cli parses the command line with the declared tree (cli/app.h) and calls one cmd_*
// function with the parsed options; run_command runs one command through the same parser.
#pragma once

#include "cli/args.h"
#include "fabric/link_recovery.h"

namespace ibw::cli {

int run_cli(int argc, char** argv);
// `ibwarden NAME argv[first..argc)`, through run_cli.
int run_command(const char* name, int argc, char** argv, int first);
// Tells on stderr ("WHO: warning: ...") which links the discovery lost and found again (each
// is evidence of loss), the Active ports still without a peer, and a one-line summary.
void print_recovery(const fabric::RecoveryReport& report, const char* who);

int cmd_audit(const CmdArgs& args);
int cmd_run(const CmdArgs& args);
int cmd_check_config(const CmdArgs& args);
int cmd_events(const CmdArgs& args);
int cmd_incidents(const CmdArgs& args);
int cmd_ports(const CmdArgs& args);
int cmd_route(const CmdArgs& args);
int cmd_route_check(const CmdArgs& args);
int cmd_rules_validate(const CmdArgs& args);
int cmd_decisions(const CmdArgs& args);
int cmd_workorders(const CmdArgs& args);
int cmd_disable(const CmdArgs& args);
int cmd_enable(const CmdArgs& args);
int cmd_replay(const CmdArgs& args);
int cmd_localize(const CmdArgs& args);
int cmd_probe(const CmdArgs& args);
int cmd_store_backup(const CmdArgs& args);
int cmd_status(const CmdArgs& args);
int cmd_jobs(const CmdArgs& args);
int cmd_check(const CmdArgs& args);

}  // namespace ibw::cli
