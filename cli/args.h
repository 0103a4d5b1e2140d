// What a command was given on its command line, as plain values: CmdArgs is filled by the CLI11
// tree (cli/app.cpp) and read by the cmd_* functions, which never see argv or CLI11. Also the
// minimal long-option parser `Args` that small tools (tests/lab's ibw-labgen) use, and helpers
// shared by the commands.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ibw::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One command's parsed options (by long name without dashes) and positionals (by their name,
// e.g. "FILE"). Flags have one empty value per occurrence.
class CmdArgs {
 public:
  CmdArgs(std::string command, std::string help, int argc, char** argv)
      : command_(std::move(command)), help_(std::move(help)), argc_(argc), argv_(argv) {}

  // `choices`: the fixed values the option accepts (empty: any).
  void set(const std::string& name, std::vector<std::string> values,
           std::vector<std::string> choices = {});

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::optional<std::string> get(const std::string& name) const;
  std::vector<std::string> all(const std::string& name) const;
  // Integer value within [lo, hi]; throws UsageError naming the option.
  std::optional<int> get_int(const std::string& name, int lo, int hi) const;
  // The value of an option with fixed values, or `fallback` when not given; throws UsageError
  // ("--format must be text or json, got \"xml\"").
  std::string choice(const std::string& name, const std::string& fallback) const;

  // "audit", "rules validate": the command path after `ibwarden`.
  const std::string& command() const { return command_; }
  // What `ibwarden COMMAND --help` prints.
  const std::string& help() const { return help_; }
  // Prints "ibwarden COMMAND: MSG", a blank line and the help on stderr; returns exit code 2.
  int usage_error(const std::string& msg) const;
  // The process's own command line (for a command that re-executes itself).
  int argc() const { return argc_; }
  char** argv() const { return argv_; }

 private:
  std::string command_, help_;
  int argc_;
  char** argv_;
  std::map<std::string, std::vector<std::string>> values_;
  std::map<std::string, std::vector<std::string>> choices_;
};

// The minimal parser of small tools: `--name value`, `--name=value`, flags, repeatable options.
struct OptionSpec {
  std::string name;  // without leading dashes
  bool takes_value = true;
  bool repeatable = false;
};

class Args {
 public:
  // Parses argv[first..argc); throws UsageError.
  Args(const std::vector<OptionSpec>& specs, int argc, char** argv, int first);

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::optional<std::string> get(const std::string& name) const;
  std::vector<std::string> all(const std::string& name) const;
  // Integer value within [lo, hi]; throws UsageError naming the option.
  std::optional<int> get_int(const std::string& name, int lo, int hi) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
};

// For objects a command deliberately never frees (the process exits right after, and freeing
// a million small objects costs more than the work): allocates T and keeps it reachable from a
// global until exit, so that leak checkers (LeakSanitizer) do not report it.
void keep_until_exit(const void* p);
template <typename T, typename... A>
T& never_freed(A&&... args) {
  T* p = new T(std::forward<A>(args)...);
  keep_until_exit(p);
  return *p;
}

// A command's body, with what it throws turned into the exit code: a UsageError prints the
// usage (args.usage_error, 2); any other error "ibwarden NAME: WHAT" on stderr (2).
int run_command(const CmdArgs& args, const std::string& name, const std::function<int()>& body);

// --since: a duration back from now ("10m") or an ISO-8601 UTC time
// ("2026-11-22T01:00:00Z", fraction optional). Throws UsageError.
int64_t parse_since_arg(const std::string& text);

}  // namespace ibw::cli
