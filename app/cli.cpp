// Top-level command dispatch and help.
#include <iostream>
#include <string>

#include "app/commands.h"

namespace ibw::app {
namespace {

constexpr const char* kUsage = R"(usage: ibwarden COMMAND [OPTIONS]

Keeps InfiniBand fabrics healthy.

Commands:
  audit     compare the cabling plan with the discovered fabric and list every difference

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
  std::cerr << "ibwarden: unknown command \"" << cmd << "\"\n\n" << kUsage;
  return 2;
}

}  // namespace ibw::app
