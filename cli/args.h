// Minimal long-option parser for the CLI commands: `--name value`, `--name=value`, flags,
// repeatable options. Unknown options and missing values are usage errors (exit 2).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ibw::cli {

struct OptionSpec {
  std::string name;  // without leading dashes
  bool takes_value = true;
  bool repeatable = false;
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
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

// Prints "ibwarden CMD: MSG" and the command's help on stderr; returns exit code 2.
int usage_error(const char* cmd, const std::string& msg, const char* help);
// --format: text (default) or json. Throws UsageError.
std::string format_arg(const Args& args);

// --since: a duration back from now ("10m") or an ISO-8601 UTC time
// ("2026-11-22T01:00:00Z", fraction optional). Throws UsageError.
int64_t parse_since_arg(const std::string& text);

}  // namespace ibw::cli
