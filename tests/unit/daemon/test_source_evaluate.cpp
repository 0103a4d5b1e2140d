// SourceContext::publish's evaluation (daemon/source.cpp): link events alone are evaluated
// over the links with an end among their ports, and the board keeps what that partial pass
// did not look at; a sweep (Evaluate::always) evaluates every link. Rules with action none,
// so that what each pass found shows on the CongestionBoard and no action worker is needed.
#include <catch2/catch.hpp>

#include <atomic>

#include "daemon/source.h"
#include "daemon/topology.h"
#include "rules/rules.h"
#include "tests/unit/test_fabrics.h"

using namespace ibw;

namespace source_evaluate_test {

ingest::Event link_event(uint64_t guid, int port, int64_t t, bool down) {
  ingest::Event e;
  e.source = ingest::EventSource::ufm;
  e.kind = std::string(down ? ingest::kind::link_down : ingest::kind::link_up);
  e.node_guid = guid, e.port = port, e.time_us = t;
  return e;
}

rules::Verdict congestion_on(uint64_t guid, int port) {
  rules::Verdict v;
  v.rule = "congestion", v.type = rules::RuleType::congestion, v.confirmed = true;
  v.node_guid = guid, v.port = port, v.explanation = "congested";
  return v;
}

TEST_CASE("source evaluate: link events alone are evaluated over their own links",
          "[daemon][rules]") {
  rules::RuleRunner runner(rules::parse_rules(
      "rules:\n  - name: flaps\n    type: link_flap\n    action: none\n    severity: error\n"
      "    cycles: 2\n    window: 1m\n",
      "rules.yaml"));
  daemon::FabricState fab;
  daemon::BatchQueue queue(64);
  std::atomic<bool> running{true}, acting{true};
  daemon::SourceDeps deps;
  deps.fabric = &fab, deps.queue = &queue, deps.running = &running, deps.acting = &acting;
  deps.rules = &runner;
  daemon::SourceContext ctx(deps);
  const int64_t now = fab.clock.now_us();
  auto topo = daemon::make_topology(test_fabric::two_tier(2, 2, 2), nullptr, now);
  const uint64_t leaf0 = test_fabric::leaf_guid(0), leaf1 = test_fabric::leaf_guid(1);

  // A congestion finding on leaf001/3 that no history backs: a pass over that port clears it.
  fab.congestion.update({congestion_on(leaf1, 3)}, now);
  REQUIRE(fab.congestion.ports() == 1);

  // Two down/up cycles of leaf000/3, as a UFM poll hands them over.
  std::vector<ingest::Event> flaps;
  for (int i = 0; i < 2; ++i) {
    flaps.push_back(link_event(leaf0, 3, now - 20'000'000 + i * 4'000'000, true));
    flaps.push_back(link_event(leaf0, 3, now - 18'000'000 + i * 4'000'000, false));
  }
  store::WriteBatch batch;
  batch.events = flaps;
  auto p = ctx.publish(topo, std::move(batch), nullptr, daemon::Evaluate::with_rule_events, &flaps);
  REQUIRE(p.queued);
  CHECK(fab.congestion.reports() == 2);  // the flap finding on both ends of leaf000/3 ...
  CHECK(fab.congestion.ports() == 1);    // ... and leaf001/3 not looked at: kept

  // A sweep looks at every link: leaf001/3's stale finding clears, the flaps still count.
  p = ctx.publish(topo, store::WriteBatch{}, nullptr, daemon::Evaluate::always);
  REQUIRE(p.queued);
  CHECK(fab.congestion.ports() == 0);
  CHECK(fab.congestion.reports() == 2);
}

}  // namespace source_evaluate_test
