// Congestion is a signal, not a fault: the remediator never turns a congestion verdict (a
// congestion rule, or any verdict about PortXmitWait / PortXmitDiscards, whatever action it
// carries) into a decision, a work order or a port action.
#include <catch2/catch.hpp>

#include "tests/unit/test_remedy_helpers.h"

using namespace ibw;
using namespace ibw::actions;
using namespace ibw::test_fabric;
using namespace remedy_flow_test;

TEST_CASE("remedy: congestion verdicts make no decision order or disable", "[remedy]") {
  Bench b;
  auto r = b.remediator();
  Finding f = symbol_errors(leaf_guid(0), 3, kNow);  // a verdict the remediator acts on ...
  f.verdict.rule = "congestion";
  f.verdict.type = rules::RuleType::congestion;  // ... made a congestion finding
  CHECK_FALSE(r.on_finding(f, b.ctx, kNow));
  for (auto action : {rules::Action::work_order, rules::Action::disable, rules::Action::isolate})
    for (const char* counter : {"PortXmitDiscards", "PortXmitWait"}) {
      Finding g = symbol_errors(leaf_guid(0), 3, kNow);
      g.verdict.type = rules::RuleType::error_counters;
      g.verdict.action = action;
      g.verdict.evidence.counter = counter;
      CHECK_FALSE(r.on_finding(g, b.ctx, kNow));
    }
  CHECK(b.exec.calls.empty());
  CHECK(b.db->decisions({}).empty());
  CHECK(b.db->workorders({}).empty());
  CHECK(b.db->disabled_ports().empty());
  // The same verdict about an error counter is acted on: the filter is about congestion.
  CHECK(r.on_finding(symbol_errors(leaf_guid(0), 3, kNow), b.ctx, kNow));
  CHECK(b.db->decisions({}).size() == 1);
}
