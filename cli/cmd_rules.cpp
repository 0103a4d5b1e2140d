// `ibwarden rules validate FILE`: checks a rules file in all its passes and prints every
// problem as file:line: field: message. Exit 0 valid, 2 invalid.
#include <iostream>

#include "cli/commands.h"
#include "fabric/diagnostics.h"
#include "rules/rules.h"

namespace ibw::cli {

int cmd_rules_validate(const CmdArgs& args) {
  std::string file = args.get("FILE").value_or("");
  auto diags = rules::validate_rules_file(file);
  if (diags.empty()) {
    std::cout << file << ": ok\n";
    return 0;
  }
  for (const auto& d : diags) std::cerr << fabric::format_diagnostic(d) << "\n";
  return 2;
}

}  // namespace ibw::cli
