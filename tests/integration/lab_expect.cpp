#include "tests/integration/lab_expect.h"

#include <algorithm>
#include <set>

namespace ibw::test {
namespace {

using Pair = std::pair<std::string, std::string>;

Pair norm(std::string a, std::string b) {
  if (b < a) std::swap(a, b);
  return {a, b};
}

// Expected files store pairs as [a, b]; audit output as {"a":..., "b":...}.
std::multiset<Pair> pairs(const nlohmann::json& arr) {
  std::multiset<Pair> out;
  for (const auto& p : arr) {
    if (p.is_array())
      out.insert(norm(p[0], p[1]));
    else
      out.insert(norm(p["a"], p["b"]));
  }
  return out;
}

std::multiset<std::string> cables(const nlohmann::json& arr) {
  std::multiset<std::string> out;
  for (const auto& c : arr) out.insert(c.get<std::string>());
  return out;
}

bool same(const nlohmann::json& e, const nlohmann::json& a, bool check_cables) {
  return e["kind"] == a["kind"] && pairs(e["planned"]) == pairs(a["planned"]) &&
         pairs(e["found"]) == pairs(a["found"]) &&
         (!check_cables || cables(e["cables"]) == cables(a["cables"]));
}

}  // namespace

std::string compare_findings(const nlohmann::json& expected, const nlohmann::json& actual,
                             bool check_cables) {
  const auto& want = expected["findings"];
  const auto& got = actual["findings"];
  std::vector<bool> used(got.size(), false);
  std::string diff;
  for (const auto& e : want) {
    bool matched = false;
    for (size_t i = 0; i < got.size() && !matched; ++i) {
      if (!used[i] && same(e, got[i], check_cables)) used[i] = matched = true;
    }
    if (!matched) diff += "expected but not reported: " + e.dump() + "\n";
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (!used[i]) diff += "reported but not expected: " + got[i].dump() + "\n";
  return diff;
}

}  // namespace ibw::test
