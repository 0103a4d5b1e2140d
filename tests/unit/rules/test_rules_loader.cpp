// Rule file loading: the shipped defaults validate; every bad field, unknown key and duplicate
// name is reported with its exact line and field, all in one pass.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "rules/rules.h"
#include "tests/test_paths.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::rules;
using ibw::fabric::Diagnostic;
using ibw::fabric::Speed;
using ibw::test::find_diag;
using ibw::test::join_lines;
using ibw::test::keys;

namespace rules_loader_test {

std::vector<Diagnostic> rule_errors(const std::string& text) {
  return ibw::test::errors_of(parse_rules, text, "rules.yaml");
}

TEST_CASE("rules: the shipped defaults load", "[rules]") {
  std::string path = std::string(IBW_SOURCE_DIR) + "/config/rules.yaml";
  CHECK(validate_rules_file(path).empty());
  RuleSet set = load_rules(path);
  REQUIRE(set.rules.size() == 7);
  const Rule* ber = set.find("symbol_ber");
  REQUIRE(ber);
  CHECK(ber->type == RuleType::symbol_errors);
  CHECK(ber->action == Action::isolate);
  CHECK(ber->severity == ibw::ingest::Severity::error);
  CHECK(ber->window_us == 12 * 60'000'000LL);
  CHECK(ber->ber_threshold[static_cast<size_t>(Speed::ndr)] == 1e-14);
  CHECK(ber->ber_threshold[static_cast<size_t>(Speed::hdr)] == 1e-12);  // from default
  CHECK(ber->ber_threshold[static_cast<size_t>(Speed::unknown)] == 0);
  CHECK(ber->jump == 100);
  const Rule* flap = set.find("link_flap");
  REQUIRE(flap);
  CHECK(flap->confirm == Confirm::both_ends);
  CHECK(flap->cycles == 5);
  CHECK(flap->window_us == 60'000'000);
  const Rule* bursts = set.find("error_bursts");
  REQUIRE(bursts);
  REQUIRE(bursts->counters.size() == 4);  // the congestion counters moved to `congestion`
  CHECK(bursts->counters[0].counter == ibw::ingest::Counter::PortRcvErrors);
  CHECK(bursts->counters[0].rate_per_s == 10);
  CHECK(bursts->counters[1].delta == 5);
  CHECK(set.find("link_degraded")->below == DegradedBelow::both);
}

TEST_CASE("rules: type defaults when keys are left out", "[rules]") {
  RuleSet set = parse_rules(join_lines({
                                "rules:",
                                "  - {name: a, type: link_flap, action: none, severity: info}",
                                "  - {name: b, type: symbol_errors, action: none,",
                                "     severity: info, jump: 50, enabled: false}",
                            }),
                            "r.yaml");
  REQUIRE(set.rules.size() == 2);
  CHECK(set.rules[0].cycles == 5);
  CHECK(set.rules[0].window_us == 60'000'000);
  CHECK(set.rules[0].enabled);
  CHECK(set.rules[0].line == 2);
  CHECK(set.rules[1].window_us == 12 * 60'000'000LL);
  CHECK_FALSE(set.rules[1].enabled);
  CHECK(set.rules[1].ber_threshold[static_cast<size_t>(Speed::hdr)] == 0);  // no BER check
}

TEST_CASE("rules: every problem is reported at once with line and field", "[rules]") {
  auto diags = rule_errors(join_lines({
      "rules:",                                          // 1
      "  - name: ber",                                   // 2
      "    type: symbol_errors",                         // 3
      "    action: shutdown",                            // 4 bad action
      "    severity: loud",                              // 5 bad severity
      "    window: 12 minutes",                          // 6 bad duration
      "    jump: -3",                                    // 7 bad count
      "    ber_threshold:",                              // 8
      "      HDR: 1e-12",                                // 9
      "      NDR: lots",                                 // 10 bad number
      "      HDRR: 1e-14",                               // 11 unknown speed
      "      default: 2",                                // 12 out of range
      "    cycles: 3",                                   // 13 not a symbol_errors key
      "  - name: flap",                                  // 14
      "    type: link_flap",                             // 15
      "    action: disable",                             // 16
      "    severity: critical",                          // 17
      "    confirm: errors_and_flap",                    // 18 only for error rules
      "    cycles: 0",                                   // 19 out of range
      "    enabled: maybe",                              // 20
      "  - name: bursts",                                // 21
      "    type: error_counters",                        // 22
      "    action: work_order",                          // 23
      "    severity: warning",                           // 24
      "    counters:",                                   // 25
      "      PortRcvErrors: {delta: 5, rate_per_s: 3}",  // 26 both given
      "      SymbolErrorCounter: {delta: 1}",            // 27 not allowed here
      "      LocalLinkIntegrityErrors: {per_s: 3}",      // 28 unknown sub-key + none given
      "  - type: link_degraded",                         // 29 missing name, action, severity
      "    below: plann",                                // 30
      "    confirm: both_ends",                          // 31
      "    confirm: none",                               // 32 repeated key
  }));
  CHECK(keys(diags) == std::vector<std::string>{"10:ber_threshold.NDR",
                                                "11:ber_threshold.HDRR",
                                                "12:ber_threshold.default",
                                                "13:cycles",
                                                "18:confirm",
                                                "19:cycles",
                                                "20:enabled",
                                                "26:counters.PortRcvErrors",
                                                "27:counters.SymbolErrorCounter",
                                                "28:counters.LocalLinkIntegrityErrors",
                                                "28:counters.LocalLinkIntegrityErrors.per_s",
                                                "29:action",
                                                "29:name",
                                                "29:severity",
                                                "30:below",
                                                "32:confirm",
                                                "4:action",
                                                "5:severity",
                                                "6:window",
                                                "7:jump"});
  auto* speed = find_diag(diags, 11, "ber_threshold.HDRR");
  REQUIRE(speed);
  CHECK(speed->message.find("did you mean \"HDR\"") != std::string::npos);
  auto* below = find_diag(diags, 30, "below");
  REQUIRE(below);
  CHECK(below->message.find("did you mean \"plan\"") != std::string::npos);
  auto* both = find_diag(diags, 26, "counters.PortRcvErrors");
  REQUIRE(both);
  CHECK(both->message == "give exactly one of delta or rate_per_s");
}

TEST_CASE("rules: duplicate names name the first rule's line", "[rules]") {
  auto diags = rule_errors(join_lines({
      "rules:",
      "  - {name: flap, type: link_flap, action: none, severity: info}",
      "  - {name: other, type: link_degraded, action: none, severity: info}",
      "  - name: flap",
      "    type: link_degraded",
      "    action: none",
      "    severity: info",
  }));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].line == 4);
  CHECK(diags[0].field == "name");
  CHECK(diags[0].message == "\"flap\" is already used by the rule at line 2");
}

TEST_CASE("rules: unknown type and key suggest the right spelling", "[rules]") {
  auto diags = rule_errors(join_lines({
      "rules:",
      "  - name: a",
      "    type: link_flapp",
      "    action: none",
      "    severity: info",
      "    cycles: 4",  // valid for some type: not reported while the type is unknown
      "  - name: b",
      "    type: link_flap",
      "    action: none",
      "    severity: info",
      "    cycle: 4",
      "    windows: 1m",
      "ruels: []",
  }));
  CHECK(keys(diags) == std::vector<std::string>{"11:cycle", "12:windows", "13:ruels", "3:type"});
  CHECK(find_diag(diags, 3, "type")->message.find("did you mean \"link_flap\"") !=
        std::string::npos);
  CHECK(find_diag(diags, 11, "cycle")->message.find("did you mean \"cycles\"") !=
        std::string::npos);
  CHECK(find_diag(diags, 12, "windows")->message.find("did you mean \"window\"") !=
        std::string::npos);
  CHECK(find_diag(diags, 13, "ruels")->message.find("did you mean \"rules\"") != std::string::npos);
}

TEST_CASE("rules: structural problems and unreadable files", "[rules]") {
  CHECK(keys(rule_errors("rules: 3\n")) == std::vector<std::string>{"1:rules"});
  CHECK(keys(rule_errors("other: 1\n")) == std::vector<std::string>{"0:rules", "1:other"});
  CHECK(keys(rule_errors("rules:\n  - just a string\n")) == std::vector<std::string>{"2:rules"});
  CHECK(keys(rule_errors("rules: [\n")).size() == 1);  // YAML syntax error
  CHECK(keys(rule_errors(join_lines({"rules:", "  - name: s", "    type: symbol_errors",
                                     "    action: none", "    severity: info"}))) ==
        std::vector<std::string>{"2:ber_threshold"});
  CHECK_FALSE(validate_rules_file("/nonexistent/rules.yaml").empty());
}

}  // namespace rules_loader_test
