// The CLI's one declaration: the CLI11 tree of every command, its options (value names, fixed
// values, descriptions) and the cmd_* function each command runs. The parser (cli/app.cpp),
// `--help`, the man page and the bash completion (cli/help_doc.h) all read this tree, so they
// cannot drift apart. CLI11 itself stays out of this header: only the files that build or
// walk the tree include it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ibw::cli {

class CmdArgs;
using Handler = int (*)(const CmdArgs&);

struct CliTree {
  CliTree();
  CliTree(CliTree&&) noexcept;
  ~CliTree();
  std::unique_ptr<CLI::App> root;
  std::map<const CLI::App*, Handler> handlers;  // the (sub)commands that run something
};

// Builds the tree of every command (discover-cache included, hidden).
CliTree build_app();

// Value-name conventions, shared by the parser and the generators: a value name whose
// alternatives are all lowercase words ("text|json") lists the option's fixed values; FILE and
// STORE name files (completed as file names).
std::vector<std::string> fixed_values(const std::string& value_name);
bool file_valued(const std::string& value_name);

}  // namespace ibw::cli
