// Internal to the declaration of the command tree (cli/app_decl*.cpp): the few builders every
// declaration goes through, so that all commands get the same conventions (--help only, a
// single option given twice is refused, fixed values in the value name).
#pragma once

#include <string>

#include "cli/app.h"

namespace CLI {
class Option;
}

namespace ibw::cli::app_decl_detail {

// A (sub)command with its description (summary, blank line, explanation) and footer.
CLI::App* command(CLI::App& parent, const std::string& name, const std::string& description,
                  const std::string& footer);
// `--name VALUE`, once.
CLI::Option* option(CLI::App* c, const std::string& name, const std::string& value_name,
                    const std::string& description);
// `--name VALUE`, any number of times.
CLI::Option* repeatable(CLI::App* c, const std::string& name, const std::string& value_name,
                        const std::string& description);
// `--name`, no value.
CLI::Option* flag(CLI::App* c, const std::string& name, const std::string& description);
// The required `--config FILE` of most commands.
CLI::Option* config_option(CLI::App* c);
// `--format text|json`, text by default: the query commands' output switch.
CLI::Option* text_json_option(CLI::App* c);
// `--since DURATION|TIME`: a duration back from now or an ISO time (parse_since_arg).
CLI::Option* since_option(CLI::App* c);

// The remediation, route, replay and cursed-route commands (cli/app_decl_ops.cpp).
void declare_ops(CliTree& t);

}  // namespace ibw::cli::app_decl_detail
