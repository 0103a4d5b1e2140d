// Compares `ibwarden audit --format json` output with the findings a generated lab expects:
// same number of findings, and each expected one matched by kind, planned links and found
// links (as unordered pairs), and cable IDs when the plan format carries them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ibw::test {

// Empty string when they match; otherwise a readable diff for the assertion message.
std::string compare_findings(const nlohmann::json& expected, const nlohmann::json& actual,
                             bool check_cables);

}  // namespace ibw::test
