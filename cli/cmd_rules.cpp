// `ibwarden rules validate FILE`: checks a rules file in all its passes and prints every
// problem as file:line: field: message. Exit 0 valid, 2 invalid.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "fabric/diagnostics.h"
#include "rules/rules.h"

namespace ibw::cli {
namespace cmd_rules_detail {

constexpr const char* kRulesHelp = R"(usage: ibwarden rules validate FILE

Loads a rules file (YAML: rules: [{name, type, action, ...}]) and reports every problem as
file:line: field: message. Rule types: symbol_errors, link_flap, link_degraded,
error_counters, ufm_high_ber. The shipped defaults are config/rules.yaml.
Exit status: 0 valid, 2 invalid or unreadable.
)";

}  // namespace cmd_rules_detail

int cmd_rules(int argc, char** argv, int first) {
  using cmd_rules_detail::kRulesHelp;
  if (argc <= first || std::string(argv[first]) == "--help" || std::string(argv[first]) == "-h") {
    std::cout << kRulesHelp;
    return argc <= first ? 2 : 0;
  }
  std::string sub = argv[first];
  if (sub != "validate" || argc != first + 2 || std::string(argv[first + 1]).rfind("--", 0) == 0) {
    std::cerr << "ibwarden rules: expected `validate FILE`\n\n" << kRulesHelp;
    return 2;
  }
  std::string file = argv[first + 1];
  auto diags = rules::validate_rules_file(file);
  if (diags.empty()) {
    std::cout << file << ": ok\n";
    return 0;
  }
  for (const auto& d : diags) std::cerr << fabric::format_diagnostic(d) << "\n";
  return 2;
}

}  // namespace ibw::cli
