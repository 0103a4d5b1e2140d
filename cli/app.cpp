// Parses the command line with the declared tree (cli/app.h) and runs the chosen command.
// CLI11 does the tokenizing (`--name value`, `--name=value`, positionals, subcommands) and the
// required options; the messages of the errors scripts and tests rely on stay ibwarden's own:
// "unknown option --x", "--x needs a value", "--x given more than once", "--x takes no value".
// Every usage error prints `ibwarden CMD: MESSAGE`, a blank line and the command's help on
// stderr and exits 2; --help prints the help on stdout and exits 0.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/app.h"
#include "cli/commands.h"
#include "cli/help_doc.h"

namespace ibw::cli {
namespace app_detail {

// The deepest (sub)command the parser entered; the root when none.
const CLI::App* selected(const CLI::App& root) {
  const CLI::App* cur = &root;
  while (!cur->get_subcommands().empty()) cur = cur->get_subcommands().front();
  return cur;
}

int usage_error(const CLI::App& cmd, const std::string& msg) {
  std::string path = command_path(cmd);
  std::cerr << "ibwarden" << (path.empty() ? "" : " " + path) << ": " << msg << "\n\n"
            << command_help(cmd);
  return 2;
}

// CLI11's "--plan: 1 required FILE missing" reads "--plan needs a value".
std::string parse_error_message(const CLI::ParseError& e) {
  std::string msg = e.what();
  auto colon = msg.find(": ");
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && colon != std::string::npos &&
      msg.find(" required ", colon) != std::string::npos && msg.ends_with(" missing"))
    return msg.substr(0, colon) + " needs a value";
  return msg;
}

// Leftovers: an unknown option or a stray argument. Throws UsageError.
void check_remaining(const CLI::App& cmd) {
  for (const std::string& arg : cmd.remaining()) {
    if (arg.starts_with("--") && arg.size() > 2)
      throw UsageError("unknown option " + arg.substr(0, arg.find('=')));
    throw UsageError("unexpected argument \"" + arg + "\"");
  }
}

// What CLI11 accepts but ibwarden does not: leftovers, a single option given twice, a flag
// with a value, a group without its subcommand (unless it runs by itself, as `route` does).
// Throws UsageError.
void check_parsed(const CLI::App& cmd, bool runnable) {
  check_remaining(cmd);
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0 || opt->get_lnames().empty()) continue;
    std::string name = "--" + opt->get_lnames().front();
    if (opt->count() > 1 && opt->get_multi_option_policy() != CLI::MultiOptionPolicy::TakeAll)
      throw UsageError(name + " given more than once");
    if (opt->get_items_expected_max() == 0 && opt->results().front() != "true")
      throw UsageError(name + " takes no value");
  }
  CommandDoc d = command_doc(cmd);
  if (!d.subcommands.empty() && !runnable) {  // a group ("rules", "store") without its subcommand
    std::string expected;
    for (const auto& name : d.subcommands) {
      std::string syn = synopsis(command_doc(*cmd.get_subcommand(name)));
      expected += (expected.empty() ? "" : " or ") + syn.substr(9 + d.path.size() + 1);
    }
    throw UsageError("expected `" + expected + "`");
  }
}

CmdArgs to_args(const CLI::App& cmd, int argc, char** argv) {
  CmdArgs args(command_path(cmd), command_help(cmd), argc, argv);
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt == cmd.get_help_ptr()) continue;
    std::string name = opt->get_lnames().empty() ? opt->get_name(true) : opt->get_lnames().front();
    bool is_flag = opt->get_items_expected_max() == 0;
    std::vector<std::string> values = opt->results();
    if (is_flag) values.assign(values.size(), "");
    if (values.empty() && !opt->get_default_str().empty()) values = {opt->get_default_str()};
    if (values.empty()) continue;
    args.set(name, values,
             is_flag ? std::vector<std::string>{} : fixed_values(opt->get_type_name()));
  }
  return args;
}

}  // namespace app_detail

using namespace app_detail;

int run_cli(int argc, char** argv) {
  CliTree tree = build_app();
  CLI::App& root = *tree.root;
  if (argc < 2) {
    std::cerr << command_help(root);
    return 2;
  }
  if (std::string(argv[1]) == "help") {
    std::cout << command_help(root);
    return 0;
  }
  std::vector<std::string> words;
  for (int i = argc - 1; i >= 1; --i) words.emplace_back(argv[i]);  // CLI11 reads them reversed
  const CLI::App* cmd = &root;
  try {
    try {
      root.parse(words);
    } catch (const CLI::CallForHelp&) {
      std::cout << command_help(*selected(root));
      return 0;
    } catch (const CLI::CallForAllHelp&) {
      std::cout << command_help(*selected(root));
      return 0;
    } catch (const CLI::CallForVersion& e) {
      std::cout << e.what() << "\n";
      return 0;
    } catch (const CLI::ParseError& e) {
      cmd = selected(root);
      if (cmd == &root) {
        std::string first = argv[1];
        std::cerr << "ibwarden: unknown command \"" << first << "\"\n\n" << command_help(root);
        return 2;
      }
      check_remaining(*cmd);  // an unknown option is reported before a missing one
      return usage_error(*cmd, parse_error_message(e));
    }
    cmd = selected(root);
    if (!cmd->get_prefix_command())
      check_parsed(*cmd, tree.handlers.count(cmd) > 0);  // discover-cache takes argv as it is
  } catch (const UsageError& e) {
    return usage_error(*cmd, e.what());
  }
  auto handler = tree.handlers.find(cmd);
  if (handler == tree.handlers.end()) return usage_error(*cmd, "expected a command");
  return handler->second(to_args(*cmd, argc, argv));
}

int run_command(const char* name, int argc, char** argv, int first) {
  std::vector<std::string> words = {argc > 0 ? argv[0] : "ibwarden", name};
  for (int i = first; i < argc; ++i) words.emplace_back(argv[i]);
  std::vector<char*> args;
  for (auto& w : words) args.push_back(w.data());
  args.push_back(nullptr);
  return run_cli(static_cast<int>(words.size()), args.data());
}

}  // namespace ibw::cli
