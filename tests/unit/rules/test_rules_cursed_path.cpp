// rules/eval_cursed_path.h and the cursed_path rule type in the rule file.
#include <catch2/catch.hpp>

#include "rules/eval_cursed_path.h"
#include "tests/test_paths.h"

using namespace ibw::rules;

namespace {

RuleSet one_rule(const std::string& confirm, const std::string& extra = "") {
  return parse_rules(
      "rules:\n  - name: cursed\n    type: cursed_path\n    action: disable\n"
      "    severity: error\n    confirm: " +
          confirm + "\n    min_loss: 0.05\n    min_observations: 3\n" + extra,
      "r.yaml");
}

PathFinding finding(double loss, int64_t bad, size_t group = 1) {
  PathFinding f;
  f.node_guid = 0x42;
  f.port = 18;
  f.last_time_us = 1'000;
  f.evidence.link = "spine001/3 -> leaf003/18";
  f.evidence.loss = loss;
  f.evidence.bad_observations = bad;
  f.evidence.good_observations = 100;
  f.evidence.group_size = group;
  return f;
}

}  // namespace

TEST_CASE("cursed_path: the shipped rule file loads with the rule enabled", "[cursed_path]") {
  RuleSet set = load_rules(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  const Rule* r = set.find("cursed_path");
  REQUIRE(r);
  CHECK(r->type == RuleType::cursed_path);
  CHECK(r->enabled);
  CHECK(r->action == Action::disable);
  CHECK(r->confirm == Confirm::dr_probe);
  CHECK(r->min_loss == Approx(0.01));
  CHECK(r->min_observations == 3);
}

TEST_CASE("cursed_path: thresholds and the confirm kinds", "[cursed_path]") {
  RuleSet none = one_rule("none");
  CHECK(evaluate_cursed_paths(none, {finding(0.04, 10)}, 5).empty());  // below min_loss
  CHECK(evaluate_cursed_paths(none, {finding(0.2, 2)}, 5).empty());    // too few bad
  auto v = evaluate_cursed_paths(none, {finding(0.2, 3)}, 5);
  REQUIRE(v.size() == 1);
  CHECK(v[0].confirmed);
  CHECK(v[0].port == 18);
  CHECK(v[0].evidence.path->loss == Approx(0.2));
  CHECK(v[0].explanation.find("spine001/3 -> leaf003/18") != std::string::npos);

  RuleSet dr = one_rule("dr_probe");
  PathFinding f = finding(0.2, 5);
  CHECK_FALSE(evaluate_cursed_paths(dr, {f}, 5).at(0).confirmed);  // no DR probes yet
  f.evidence.dr_sent = 100, f.evidence.dr_lost = 3;                // 3% < min_loss 5%
  CHECK_FALSE(evaluate_cursed_paths(dr, {f}, 5).at(0).confirmed);
  f.evidence.dr_lost = 20;
  CHECK(evaluate_cursed_paths(dr, {f}, 5).at(0).confirmed);

  RuleSet counters = one_rule("counters");
  PathFinding c = finding(0.2, 5);
  c.evidence.counters_known = true;
  CHECK_FALSE(evaluate_cursed_paths(counters, {c}, 5).at(0).confirmed);
  c.evidence.rcv_errors_delta = 7;
  CHECK(evaluate_cursed_paths(counters, {c}, 5).at(0).confirmed);

  RuleSet both = one_rule("both");
  CHECK_FALSE(evaluate_cursed_paths(both, {c}, 5).at(0).confirmed);  // counters, no DR
  c.evidence.dr_sent = 10, c.evidence.dr_lost = 4;
  CHECK(evaluate_cursed_paths(both, {c}, 5).at(0).confirmed);
}

TEST_CASE("cursed_path: a member of an unsplit group is acted on only when DR pins it",
          "[cursed_path]") {
  RuleSet none = one_rule("none");
  PathFinding g = finding(0.3, 40, /*group=*/16);
  auto v = evaluate_cursed_paths(none, {g}, 5);
  REQUIRE(v.size() == 1);
  CHECK_FALSE(v[0].confirmed);
  CHECK(v[0].explanation.find("one of 16 links") != std::string::npos);
  g.evidence.dr_sent = 50, g.evidence.dr_lost = 14;
  CHECK(evaluate_cursed_paths(none, {g}, 5).at(0).confirmed);
}

TEST_CASE("cursed_path: rule file errors name the line and field", "[cursed_path]") {
  CHECK_THROWS_WITH(one_rule("both_ends"), Catch::Contains("r.yaml:6: confirm"));
  CHECK_THROWS_WITH(one_rule("none", "    window: 1m\n"), Catch::Contains("r.yaml:9: window"));
  CHECK_THROWS_WITH(parse_rules("rules:\n  - name: c\n    type: cursed_path\n    action: disable\n"
                                "    severity: error\n    min_loss: 1.5\n",
                                "r.yaml"),
                    Catch::Contains("r.yaml:6: min_loss"));
  // The port-window rules keep their own confirm kinds.
  CHECK_THROWS_WITH(parse_rules("rules:\n  - name: f\n    type: link_flap\n    action: disable\n"
                                "    severity: error\n    confirm: dr_probe\n",
                                "r.yaml"),
                    Catch::Contains("r.yaml:6: confirm"));
}
