// Slurm hostlist expressions (issue 33: `ibwarden check --nodes node[001-128]`): a comma-
// separated list of names, each with any number of bracket groups of numbers and ranges,
// zero-padded as written: `node[001-003,7]`, `rack[1-2]-gpu[01-02]`, `a,b[1-2]`. Expansion
// is bounded (max_names) so a typo such as `n[1-99999999]` is an error, not an allocation.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ibw::core {

struct HostlistError {
  size_t offset = 0;    // where in the expression
  std::string message;  // e.g. "range 9-1 runs backwards"
};

// The names, in the order written (duplicates kept once, first place). On a syntax error or
// more than max_names names, returns {} and sets *error.
std::vector<std::string> expand_hostlist(std::string_view expr, HostlistError* error,
                                         size_t max_names = 100000);

// The shortest usual form of `names`: names that differ only in their last number, with the
// same width, folded into ranges (`node[001-003,007],login1`). Order: as first seen.
std::string compress_hostlist(const std::vector<std::string>& names);

}  // namespace ibw::core
