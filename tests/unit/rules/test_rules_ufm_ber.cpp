// The ufm_high_ber rule: its keys are validated with line and field, it fires on UFM's
// high_ber events of enough severity in its window unless a high_ber_cleared follows, its
// evidence names the events, and RuleRunner keeps those events only when a rule uses them.
#include <catch2/catch.hpp>

#include "daemon/topology.h"
#include "ingest/ufm/events.h"
#include "rules/evaluate.h"
#include "rules/history.h"
#include "rules/rules.h"
#include "rules/runner.h"
#include "tests/test_paths.h"
#include "tests/unit/test_fabrics.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::rules;
using ibw::ingest::EventSource;
using ibw::ingest::Severity;
using ibw::test::find_diag;
using ibw::test::join_lines;
using ibw::test::keys;

namespace rules_ufm_ber_test {

constexpr int64_t kMin = 60'000'000;
constexpr int64_t kNow = 1'700'000'000'000'000;  // 2023-11-14T22:13:20Z
constexpr uint64_t kA = 0x1000;

RuleSet ber_rules(const std::string& extra = "") {
  return parse_rules(join_lines({"rules:", "  - name: ufm_ber", "    type: ufm_high_ber",
                                 "    action: isolate", "    severity: error"}) +
                         extra,
                     "r.yaml");
}

BerEvent ber(int64_t t, Severity s, const std::string& msg = "UFM 917 Symbol bit error rate") {
  return BerEvent{t, false, s, EventSource::ufm, msg};
}
BerEvent cleared(int64_t t) {
  return BerEvent{t, true, Severity::info, EventSource::ufm, "high_ber_severity cleared"};
}

PortWindow port_with(std::vector<BerEvent> events) {
  PortWindow w;
  w.node_guid = kA, w.port = 3;
  w.ber_events = std::move(events);
  return w;
}

TEST_CASE("rules ufm_high_ber: keys and defaults load", "[rules]") {
  RuleSet set = ber_rules();
  REQUIRE(set.rules.size() == 1);
  const Rule& r = set.rules[0];
  CHECK(r.type == RuleType::ufm_high_ber);
  CHECK(rule_type_name(r.type) == "ufm_high_ber");
  CHECK(r.min_severity == Severity::error);
  CHECK(r.window_us == 10 * kMin);
  CHECK(r.confirm == Confirm::none);
  RuleSet tuned =
      ber_rules("\n    min_severity: warning\n    window: 30m\n    confirm: both_ends\n");
  CHECK(tuned.rules[0].min_severity == Severity::warning);
  CHECK(tuned.rules[0].window_us == 30 * kMin);
  CHECK(tuned.rules[0].confirm == Confirm::both_ends);

  RuleSet shipped = load_rules(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  const Rule* s = shipped.find("ufm_high_ber");
  REQUIRE(s);
  CHECK(s->type == RuleType::ufm_high_ber);
  CHECK(s->action == Action::isolate);
  CHECK(s->severity == Severity::error);
  CHECK(s->min_severity == Severity::error);
  CHECK(s->window_us == 10 * kMin);
}

TEST_CASE("rules ufm_high_ber: bad keys are reported with line and field", "[rules]") {
  auto diags = ibw::test::errors_of(parse_rules,
                                    join_lines({
                                        "rules:",                   // 1
                                        "  - name: a",              // 2
                                        "    type: ufm_high_ber",   // 3
                                        "    action: isolate",      // 4
                                        "    severity: error",      // 5
                                        "    min_severity: eror",   // 6 misspelt
                                        "    window: ten minutes",  // 7 not a duration
                                        "    cycles: 3",            // 8 not this type's key
                                        "  - name: b",              // 9
                                        "    type: ufm_high_bre",   // 10 unknown type
                                        "    action: none",         // 11
                                        "    severity: info",       // 12
                                        "  - name: c",              // 13
                                        "    type: ufm_high_ber",   // 14
                                        "    action: none",         // 15
                                        "    severity: info",       // 16
                                        "    min_severty: error",   // 17 unknown key
                                        "    min_severity: info",   // 18 not a BER severity
                                    }),
                                    "rules.yaml");
  CHECK(keys(diags) == std::vector<std::string>{"10:type", "17:min_severty", "18:min_severity",
                                                "6:min_severity", "7:window", "8:cycles"});
  CHECK(find_diag(diags, 6, "min_severity")->message.find("did you mean \"error\"") !=
        std::string::npos);
  CHECK(find_diag(diags, 10, "type")->message.find("did you mean \"ufm_high_ber\"") !=
        std::string::npos);
  CHECK(find_diag(diags, 17, "min_severty")->message.find("did you mean \"min_severity\"") !=
        std::string::npos);
  CHECK(find_diag(diags, 18, "min_severity")->message.find("known: warning, error, critical") !=
        std::string::npos);
  CHECK(find_diag(diags, 8, "cycles")->message.find("unknown key") != std::string::npos);
}

TEST_CASE("rules ufm_high_ber: an error high_ber fires with the event as evidence", "[rules]") {
  PortWindow w = port_with({ber(kNow - 2 * kMin, Severity::error, "UFM 917 Symbol BER 2.1e-11")});
  auto v = evaluate(ber_rules(), {w}, kNow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].rule == "ufm_ber");
  CHECK(v[0].type == RuleType::ufm_high_ber);
  CHECK(v[0].action == Action::isolate);
  CHECK(v[0].confirmed);
  CHECK(v[0].port == 3);
  REQUIRE(v[0].evidence.ber_events.size() == 1);
  const BerEvent& e = v[0].evidence.ber_events[0];
  CHECK(e.time_us == kNow - 2 * kMin);
  CHECK(e.source == EventSource::ufm);
  CHECK(e.severity == Severity::error);
  CHECK(e.message == "UFM 917 Symbol BER 2.1e-11");
  CHECK(v[0].evidence.last_time_us == kNow - 2 * kMin);
  CHECK(v[0].evidence.window_us == 10 * kMin);
  CHECK(v[0].explanation ==
        "0x0000000000001000/3: ufm_ber: UFM reports high BER: 1 high_ber event(s) >= error in "
        "10m, not cleared; latest error from ufm at 2023-11-14T22:11:20Z: UFM 917 Symbol BER "
        "2.1e-11");
  // Critical counts as at least error too.
  CHECK(evaluate(ber_rules(), {port_with({ber(kNow - kMin, Severity::critical)})}, kNow).size() ==
        1);
}

TEST_CASE("rules ufm_high_ber: a warning does not fire with the default min_severity", "[rules]") {
  PortWindow w = port_with({ber(kNow - kMin, Severity::warning)});
  CHECK(evaluate(ber_rules(), {w}, kNow).empty());
  auto v = evaluate(ber_rules("\n    min_severity: warning\n"), {w}, kNow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].evidence.ber_events.size() == 1);
  // A warning after an error: the error still counts; only it is evidence.
  PortWindow both =
      port_with({ber(kNow - 3 * kMin, Severity::error), ber(kNow - kMin, Severity::warning)});
  v = evaluate(ber_rules(), {both}, kNow);
  REQUIRE(v.size() == 1);
  REQUIRE(v[0].evidence.ber_events.size() == 1);
  CHECK(v[0].evidence.ber_events[0].severity == Severity::error);
}

TEST_CASE("rules ufm_high_ber: high_ber_cleared suppresses what came before it", "[rules]") {
  PortWindow w = port_with({ber(kNow - 5 * kMin, Severity::error), cleared(kNow - 2 * kMin)});
  CHECK(evaluate(ber_rules(), {w}, kNow).empty());
  // UFM grades the port again after the clearing: fires, with the new event only.
  w.ber_events.push_back(ber(kNow - kMin, Severity::critical, "again"));
  auto v = evaluate(ber_rules(), {w}, kNow);
  REQUIRE(v.size() == 1);
  REQUIRE(v[0].evidence.ber_events.size() == 1);
  CHECK(v[0].evidence.ber_events[0].message == "again");
  // Same time, clearing arrived last: suppressed (arrival order decides ties).
  PortWindow tie = port_with({ber(kNow - kMin, Severity::error), cleared(kNow - kMin)});
  CHECK(evaluate(ber_rules(), {tie}, kNow).empty());
}

TEST_CASE("rules ufm_high_ber: events outside the window do not fire", "[rules]") {
  PortWindow old = port_with({ber(kNow - 11 * kMin, Severity::critical)});
  CHECK(evaluate(ber_rules(), {old}, kNow).empty());
  CHECK(evaluate(ber_rules("\n    window: 12m\n"), {old}, kNow).size() == 1);
  PortWindow future = port_with({ber(kNow + kMin, Severity::error)});  // not yet at `now`
  CHECK(evaluate(ber_rules(), {future}, kNow).empty());
}

ibw::ingest::Event event(std::string_view kind, uint64_t guid, int port, int64_t t,
                         Severity s = Severity::error) {
  ibw::ingest::Event e;
  e.source = EventSource::ufm;
  e.kind = std::string(kind);
  e.severity = s;
  e.node_guid = guid;
  e.port = port;
  e.time_us = t;
  e.message = "UFM port " + std::to_string(port) + " " + std::string(kind);
  return e;
}

TEST_CASE("rules ufm_high_ber: the rule runner keeps BER events only when a rule uses them",
          "[rules][ufm]") {
  namespace uk = ibw::ingest::ufm_kind;
  auto topo = ibw::daemon::make_topology(ibw::test_fabric::two_tier(2, 2, 2), nullptr, kNow);
  const uint64_t leaf = ibw::test_fabric::leaf_guid(0);
  auto high = event(uk::high_ber, leaf, 3, kNow - kMin);

  // Without a ufm_high_ber rule nothing of UFM's BER is kept (nor link events without
  // link_flap).
  ibw::rules::RuleRunner counters_only(parse_rules(
      "rules:\n  - {name: j, type: symbol_errors, action: none, severity: info, jump: 5}\n",
      "r.yaml"));
  CHECK_FALSE(counters_only.wants(high));
  CHECK(counters_only.add_events({high, event("link_down", leaf, 3, kNow)}) == 0);
  CHECK(event_needs(counters_only.rules()).link == false);

  ibw::rules::RuleRunner runner(ber_rules());
  CHECK(runner.wants(high));
  CHECK_FALSE(runner.wants(event(uk::port_unhealthy, leaf, 3, kNow)));
  CHECK_FALSE(runner.wants(event(uk::high_ber, leaf, 0, kNow)));  // no port
  CHECK(runner.add_events({high, event(uk::alarm, leaf, 3, kNow)}) == 1);
  auto v = runner.evaluate(topo->links, kNow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].node_guid == leaf);
  CHECK(v[0].port == 3);
  CHECK(v[0].evidence.ber_events.at(0).message == "UFM port 3 high_ber");
  runner.add_events({event(uk::high_ber_cleared, leaf, 3, kNow, Severity::info)});
  CHECK(runner.evaluate(topo->links, kNow + 1).empty());
  // Pruned after the window: a late clearing of a forgotten port changes nothing.
  CHECK(runner.evaluate(topo->links, kNow + 20 * kMin).empty());
}

}  // namespace rules_ufm_ber_test
