// CLI command entry points. Each returns the process exit code:
// 0 success / nothing found, 1 findings, 2 usage or input error.
// run_cli parses the command line with the declared tree (cli/app.h) and calls one cmd_*
// function with the parsed options; the argv forms run one command through the same parser.
#pragma once

#include "cli/args.h"

namespace ibw::cli {

int run_cli(int argc, char** argv);
// `ibwarden NAME argv[first..argc)`, through run_cli.
int run_command(const char* name, int argc, char** argv, int first);

int cmd_audit(const CmdArgs& args);
int cmd_run(const CmdArgs& args);
int cmd_check_config(const CmdArgs& args);
int cmd_events(const CmdArgs& args);
int cmd_ports(const CmdArgs& args);
int cmd_route(const CmdArgs& args);
int cmd_rules_validate(const CmdArgs& args);
int cmd_decisions(const CmdArgs& args);
int cmd_workorders(const CmdArgs& args);
int cmd_disable(const CmdArgs& args);
int cmd_enable(const CmdArgs& args);
int cmd_replay(const CmdArgs& args);
int cmd_localize(const CmdArgs& args);
int cmd_probe(const CmdArgs& args);
int cmd_store_backup(const CmdArgs& args);

inline int cmd_audit(int argc, char** argv, int first) {
  return run_command("audit", argc, argv, first);
}
inline int cmd_run(int argc, char** argv, int first) {
  return run_command("run", argc, argv, first);
}
inline int cmd_check_config(int argc, char** argv, int first) {
  return run_command("check-config", argc, argv, first);
}
inline int cmd_events(int argc, char** argv, int first) {
  return run_command("events", argc, argv, first);
}
inline int cmd_ports(int argc, char** argv, int first) {
  return run_command("ports", argc, argv, first);
}
inline int cmd_route(int argc, char** argv, int first) {
  return run_command("route", argc, argv, first);
}
inline int cmd_rules(int argc, char** argv, int first) {
  return run_command("rules", argc, argv, first);
}
inline int cmd_decisions(int argc, char** argv, int first) {
  return run_command("decisions", argc, argv, first);
}
inline int cmd_workorders(int argc, char** argv, int first) {
  return run_command("workorders", argc, argv, first);
}
inline int cmd_disable(int argc, char** argv, int first) {
  return run_command("disable", argc, argv, first);
}
inline int cmd_enable(int argc, char** argv, int first) {
  return run_command("enable", argc, argv, first);
}
inline int cmd_replay(int argc, char** argv, int first) {
  return run_command("replay", argc, argv, first);
}
inline int cmd_localize(int argc, char** argv, int first) {
  return run_command("localize", argc, argv, first);
}
inline int cmd_probe(int argc, char** argv, int first) {
  return run_command("probe", argc, argv, first);
}

}  // namespace ibw::cli
