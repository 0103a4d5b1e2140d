// audit_to_json: the machine-readable contract of the cabling audit.
#include <catch2/catch.hpp>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

#include "fabric/audit.h"
#include "fabric/audit_report.h"
#include "fabric/model.h"
#include "fabric/node_name_map.h"
#include "fabric/plan.h"

using namespace ibw::fabric;

namespace audit_json_test {

// Written against whatever audit_to_json returns (nlohmann::json or nlohmann::ordered_json).
using J = decltype(audit_to_json(std::declval<const AuditResult&>()));

std::set<std::string> key_set(const J& obj) {
  std::set<std::string> s;
  for (auto it = obj.begin(); it != obj.end(); ++it) s.insert(it.key());
  return s;
}

uint32_t add(Fabric& fab, NodeType type, const char* name, int ports) {
  Node n;
  n.type = type;
  n.guid = 0x0002c90300002000ULL + fab.size();
  n.description = name;
  n.num_ports = ports;
  return fab.add_node(std::move(n));
}

TEST_CASE("audit JSON: summary and finding keys follow the contract", "[fabric][audit][json]") {
  Fabric fab;
  uint32_t leaf = add(fab, NodeType::sw, "leaf01", 36),
           spine = add(fab, NodeType::sw, "spine01", 36);
  uint32_t h1 = add(fab, NodeType::ca, "h1", 1);
  add(fab, NodeType::ca, "h2", 1);
  fab.connect(leaf, 1, h1, 1);
  fab.connect(leaf, 33, spine, 1);
  fab.connect(leaf, 34, spine, 2);  // unexpected; C2 (leaf01/2 - h2/1) is missing
  apply_node_names(fab, nullptr);
  Plan plan = parse_plan_csv(
      "cable_id,a_node,a_port,b_node,b_port,a_location,b_location\n"
      "C1,leaf01,1,h1,1,R01/U40,R01/U12\n"
      "C2,leaf01,2,h2,1,R01/U40,R01/U10\n"
      "C3,leaf01,33,spine01,1,R01/U40,R02/U40\n",
      "plan.csv");
  auto j = audit_to_json(run_audit(plan, fab));

  CHECK(key_set(j) == std::set<std::string>{"summary", "findings"});
  const auto& s = j.at("summary");
  const std::map<std::string, int> want{
      {"planned_links", 3}, {"found_links", 3},  {"ok", 2},         {"missing", 1},
      {"miswired", 0},      {"swapped", 0},      {"unexpected", 1}, {"degraded", 0},
      {"missing_node", 0},  {"unknown_node", 0}, {"partition", 0}};
  std::set<std::string> want_keys;
  for (const auto& [key, value] : want) {
    want_keys.insert(key);
    CHECK(s.value(key, -1) == value);
  }
  CHECK(key_set(s) == want_keys);

  const auto& fs = j.at("findings");
  REQUIRE(fs.is_array());
  REQUIRE(fs.size() == 2);
  const std::set<std::string> finding_keys{"kind",  "cables",    "planned",
                                           "found", "locations", "advice"};
  for (const auto& f : fs) CHECK(key_set(f) == finding_keys);

  const auto& missing = fs[0];
  CHECK(missing.at("kind") == "missing");
  CHECK(missing.at("cables") == J::array({"C2"}));
  CHECK(missing.at("planned") == J::parse(R"([{"a":"leaf01/2","b":"h2/1"}])"));
  CHECK(missing.at("found") == J::array());
  CHECK(missing.at("locations") == J::array({"R01/U40", "R01/U10"}));
  CHECK(missing.at("advice").is_string());

  const auto& unexpected = fs[1];
  CHECK(unexpected.at("kind") == "unexpected");
  CHECK(unexpected.at("cables") == J::array());
  CHECK(unexpected.at("planned") == J::array());
  CHECK(unexpected.at("found") == J::parse(R"([{"a":"leaf01/34","b":"spine01/2"}])"));
  CHECK(unexpected.at("locations") == J::array({"R01/U40", "R02/U40"}));
}

TEST_CASE("audit JSON: a clean audit has zero counts and an empty findings array",
          "[fabric][audit][json]") {
  Fabric fab;
  uint32_t leaf = add(fab, NodeType::sw, "leaf01", 36), h1 = add(fab, NodeType::ca, "h1", 1);
  fab.connect(leaf, 1, h1, 1);
  apply_node_names(fab, nullptr);
  Plan plan = parse_plan_csv("cable_id,a_node,a_port,b_node,b_port\nC1,leaf01,1,h1,1\n", "p.csv");
  auto j = audit_to_json(run_audit(plan, fab));
  CHECK(j.at("findings").is_array());
  CHECK(j.at("findings").empty());
  const auto& s = j.at("summary");
  CHECK(s.size() == 3 + kFindingKinds);
  CHECK(s.at("planned_links") == 1);
  CHECK(s.at("found_links") == 1);
  CHECK(s.at("ok") == 1);
  for (size_t k = 0; k < kFindingKinds; ++k)
    CHECK(s.at(std::string(finding_kind_name(static_cast<FindingKind>(k)))) == 0);
}

}  // namespace audit_json_test
