// Everything the user reads about the commands, rendered from the declared CLI11 tree
// (cli/app.h): `ibwarden --help`, `ibwarden COMMAND --help`, the ibwarden(1) man page and the
// bash completion script. ibw-clidoc (cli/clidoc_main.cpp) writes the last two at build time.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ibw::cli {

// Where the package installs the manual (README.md and docs/: packaging/CMakeLists.txt);
// `ibwarden --help` ends with it and the man page's FILES names it.
inline constexpr const char* kManualDir = "/usr/share/doc/ibwarden/";

// One option (or positional) of a command, as the docs show it.
struct OptionDoc {
  std::string name;        // "--plan", or "FILE" for a positional
  std::string value_name;  // "FILE", "text|json"; empty for a flag
  std::string description;
  std::string default_value;
  bool positional = false;
  bool required = false;
  bool repeatable = false;
};

// One command that runs something or groups others ("rules", "rules validate").
struct CommandDoc {
  std::string path;                     // "audit", "rules validate"
  std::string summary;                  // first paragraph of the description
  std::vector<std::string> paragraphs;  // the rest of the description
  std::string footer;
  std::vector<OptionDoc> options;  // --help included, last
  std::vector<std::string> subcommands;
};

// The command path of a node of the tree ("" for the root).
std::string command_path(const CLI::App& cmd);
CommandDoc command_doc(const CLI::App& cmd);
// Every command not hidden, depth first in declaration order (the root excluded).
std::vector<const CLI::App*> visible_commands(const CLI::App& root);
// "ibwarden audit --plan FILE [--topology FILE]... [--live] ..." (one line), and its groups:
// "ibwarden audit", "--plan FILE", "[--topology FILE]...", ...
std::string synopsis(const CommandDoc& doc);
std::vector<std::string> synopsis_groups(const CommandDoc& doc);

// What `ibwarden COMMAND --help` prints; for the root, the top-level usage.
std::string command_help(const CLI::App& cmd);
// ibwarden(1) in troff -man.
std::string man_page(const CLI::App& root);
// A bash completion script defining _ibwarden, registered with `complete -F _ibwarden ibwarden`.
std::string bash_completion(const CLI::App& root);

// Fills words (`fill`) or `text` (`wrap`, split at spaces) into lines of at most `width` columns;
// the first line starts at `first_column` (what precedes it is the caller's), the others with
// `indent`.
std::string fill(const std::vector<std::string>& words, size_t width, const std::string& indent,
                 size_t first_column = 0);
std::string wrap(const std::string& text, size_t width, const std::string& indent,
                 size_t first_column = 0);

}  // namespace ibw::cli
