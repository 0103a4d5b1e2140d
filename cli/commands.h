// CLI command entry points. Each returns the process exit code:
// 0 success / nothing found, 1 findings, 2 usage or input error.
#pragma once

namespace ibw::cli {

int run_cli(int argc, char** argv);
int cmd_audit(int argc, char** argv, int first);
int cmd_run(int argc, char** argv, int first);
int cmd_check_config(int argc, char** argv, int first);
int cmd_events(int argc, char** argv, int first);
int cmd_ports(int argc, char** argv, int first);
int cmd_route(int argc, char** argv, int first);
int cmd_rules(int argc, char** argv, int first);
int cmd_decisions(int argc, char** argv, int first);
int cmd_workorders(int argc, char** argv, int first);
int cmd_disable(int argc, char** argv, int first);
int cmd_enable(int argc, char** argv, int first);
int cmd_replay(int argc, char** argv, int first);
int cmd_localize(int argc, char** argv, int first);
int cmd_probe(int argc, char** argv, int first);

}  // namespace ibw::cli
