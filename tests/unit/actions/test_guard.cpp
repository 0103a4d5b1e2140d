// Unit tests for the auto-disable guard (actions/guard.h) on small hand-built fabrics:
// every hard rule (SM link, a CA's last link, a leaf cut off the spine), min_up_links, the
// three budgets, force semantics, dry-run mode, enable, and record().
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "actions/guard.h"
#include "fabric/model.h"
#include "tests/unit/test_fabrics.h"

using namespace ibw::actions;
using namespace ibw::fabric;

namespace guard_test {

constexpr int64_t kSecond = 1000 * 1000;
constexpr int64_t kNow = int64_t{100000} * kSecond;

using namespace ibw::test_fabric;

GuardConfig enforce() {
  GuardConfig c;
  c.mode = GuardMode::enforce;
  return c;
}

Request disable(uint64_t guid, int port, bool force = false) {
  Request r;
  r.node_guid = guid;
  r.port = port;
  r.action = PortAction::disable;
  r.force = force;
  r.sm_port = PortKey{host_guid(0), 1};
  return r;
}

Request enable(uint64_t guid, int port) {
  Request r = disable(guid, port);
  r.action = PortAction::enable;
  return r;
}

}  // namespace guard_test

using namespace guard_test;

TEST_CASE("guard: defaults are dry-run with the documented budgets", "[guard]") {
  GuardConfig c;
  CHECK(c.mode == GuardMode::dry_run);
  CHECK(c.max_disabled_total == 16);
  CHECK(c.max_disabled_per_switch == 2);
  CHECK(c.max_actions_per_hour == 8);
  CHECK(c.min_up_links == 2);
}

TEST_CASE("guard: dry-run says what would be allowed - refusals stay refusals", "[guard]") {
  Fabric f = two_tier(2, 4, 2);
  Guard g{GuardConfig{}};
  Decision d = g.decide(disable(leaf_guid(1), 3), f, GuardState{}, kNow);
  CHECK(d.verdict == Verdict::dry_run);
  CHECK(d.reason.rfind("would disable leaf001/3", 0) == 0);
  Decision host = g.decide(disable(leaf_guid(1), 1), f, GuardState{}, kNow);
  CHECK(host.verdict == Verdict::refused);
  CHECK(host.rule == "host_link");
}

TEST_CASE("guard: enforce allows a leaf uplink when enough remain", "[guard]") {
  Fabric f = two_tier(2, 4, 2);
  Decision d = Guard(enforce()).decide(disable(leaf_guid(1), 3), f, GuardState{}, kNow);
  CHECK(d.verdict == Verdict::allowed);
  CHECK(d.reason == "disable leaf001/3: 1 of 16 disabled, 1 of 8 this hour");
  CHECK(d.overridden.empty());
}

TEST_CASE("guard: the SM's link is never disabled - not even forced", "[guard]") {
  Fabric f = two_tier(2, 2, 2);
  Guard g(enforce());
  Decision from_leaf = g.decide(disable(leaf_guid(0), 1, true), f, GuardState{}, kNow);
  CHECK(from_leaf.verdict == Verdict::refused);
  CHECK(from_leaf.rule == "sm_link");
  CHECK(from_leaf.reason.find("host000/1") != std::string::npos);
  Decision from_host = g.decide(disable(host_guid(0), 1, true), f, GuardState{}, kNow);
  CHECK(from_host.rule == "sm_link");
}

TEST_CASE("guard: a CA's last active link is never disabled - from either end", "[guard]") {
  Fabric f = two_tier(2, 2, 2);
  Guard g(enforce());
  Decision sw_side = g.decide(disable(leaf_guid(0), 2, true), f, GuardState{}, kNow);
  CHECK(sw_side.verdict == Verdict::refused);
  CHECK(sw_side.rule == "host_link");
  CHECK(sw_side.reason.find("host001 would keep no active link") != std::string::npos);
  Decision ca_side = g.decide(disable(host_guid(1), 1, true), f, GuardState{}, kNow);
  CHECK(ca_side.rule == "host_link");

  SECTION("a dual-homed host may lose one of its links") {
    link(f, f.find_guid(host_guid(1)), 2, f.find_guid(leaf_guid(1)), 10);
    CHECK(g.decide(disable(leaf_guid(0), 2), f, GuardState{}, kNow).verdict == Verdict::allowed);
    SECTION("but not when the other link is Down in the snapshot") {
      f.node(f.find_guid(host_guid(1))).port(2)->state = 1;
      CHECK(g.decide(disable(leaf_guid(0), 2), f, GuardState{}, kNow).rule == "host_link");
    }
    SECTION("nor when the guard disabled the other link") {
      GuardState s;
      s.disabled.insert(PortKey{leaf_guid(1), 10});
      CHECK(g.decide(disable(leaf_guid(0), 2), f, s, kNow).rule == "host_link");
    }
  }
}

TEST_CASE("guard: min_up_links counts active uplinks - force overrides it", "[guard]") {
  Fabric f = two_tier(2, 4, 2);  // leaf uplinks at ports 3..6
  Guard g(enforce());
  GuardState s;
  s.disabled.insert(PortKey{leaf_guid(1), 3});
  // A phys-disabled uplink in the snapshot counts as down too.
  f.node(f.find_guid(leaf_guid(1))).port(4)->phys_state = kPhysDisabled;
  Decision d = g.decide(disable(leaf_guid(1), 5), f, s, kNow);
  CHECK(d.verdict == Verdict::refused);
  CHECK(d.rule == "min_up_links");
  CHECK(d.reason == "min_up_links: leaf001 would keep 1 of 4 uplinks, min_up_links is 2");

  Decision forced = g.decide(disable(leaf_guid(1), 5, true), f, s, kNow);
  CHECK(forced.verdict == Verdict::allowed);
  REQUIRE(forced.overridden == std::vector<std::string>{"min_up_links"});
  CHECK(forced.reason.find("forced, overriding min_up_links (leaf001 would keep 1 of 4") !=
        std::string::npos);

  SECTION("the rule is checked from the spine's port as well") {
    Decision spine = g.decide(disable(spine_guid(2), 2), f, s, kNow);  // spine002/2 = leaf001/5
    CHECK(spine.rule == "min_up_links");
    CHECK(spine.reason.find("leaf001 would keep 1 of 4") != std::string::npos);
  }
}

TEST_CASE("guard: a leaf is never cut off the spine - not even forced", "[guard]") {
  Fabric f = two_tier(2, 2, 2);  // leaf uplinks at ports 3, 4
  GuardConfig c = enforce();
  c.min_up_links = 0;
  Guard g(c);
  GuardState s;
  s.disabled.insert(PortKey{leaf_guid(0), 3});
  Decision d = g.decide(disable(leaf_guid(0), 4, true), f, s, kNow);
  CHECK(d.verdict == Verdict::refused);
  CHECK(d.rule == "leaf_isolation");
  CHECK(d.reason ==
        "leaf_isolation: leaf000 would keep 0 of 2 uplinks; a leaf is never cut off "
        "the spine");
}

TEST_CASE("guard: switch levels come from the CAs (three tiers)", "[guard]") {
  Fabric f;
  uint32_t h0 = add(f, host_guid(0), NodeType::ca, "host000", 1);
  uint32_t h1 = add(f, host_guid(1), NodeType::ca, "host001", 1);
  uint32_t leaf = add(f, leaf_guid(0), NodeType::sw, "leaf000", 8);
  uint32_t agg = add(f, spine_guid(0), NodeType::sw, "agg000", 8);
  uint32_t agg1 = add(f, spine_guid(1), NodeType::sw, "agg001", 8);
  uint32_t core0 = add(f, core_guid(0), NodeType::sw, "core000", 8);
  uint32_t core1 = add(f, core_guid(1), NodeType::sw, "core001", 8);
  link(f, h0, 1, leaf, 1);
  link(f, h1, 1, leaf, 2);
  link(f, leaf, 3, agg, 1);
  link(f, leaf, 4, agg1, 1);
  link(f, agg, 2, core0, 1);
  link(f, agg, 3, core1, 1);
  link(f, agg1, 2, core0, 2);
  link(f, agg1, 3, core1, 2);
  f.reindex();
  Guard g(enforce());
  Decision up = g.decide(disable(spine_guid(0), 2), f, GuardState{}, kNow);
  CHECK(up.rule == "min_up_links");
  CHECK(up.reason == "min_up_links: agg000 would keep 1 of 2 uplinks, min_up_links is 2");
  // agg000/1 is a down link for agg000 and an uplink for leaf000 (1 of 2 would remain).
  CHECK(g.decide(disable(spine_guid(0), 1), f, GuardState{}, kNow).rule == "min_up_links");
  // For the cores, links toward aggs are down links: nothing to keep.
  GuardConfig c = enforce();
  c.min_up_links = 1;
  CHECK(Guard(c).decide(disable(core_guid(0), 1), f, GuardState{}, kNow).verdict ==
        Verdict::allowed);
}

TEST_CASE("guard: budgets refuse unless forced", "[guard]") {
  Fabric f = two_tier(4, 8, 1);  // leaf uplinks at ports 2..9, spine s port 1 + l
  GuardConfig c = enforce();
  Guard g(c);

  SECTION("max_disabled_total") {
    GuardConfig small = c;
    small.max_disabled_total = 2;
    GuardState s;
    s.disabled = {PortKey{leaf_guid(0), 2}, PortKey{leaf_guid(1), 3}};
    Decision d = Guard(small).decide(disable(leaf_guid(2), 4), f, s, kNow);
    CHECK(d.rule == "max_disabled_total");
    CHECK(d.reason == "max_disabled_total: 2 ports already disabled, max_disabled_total is 2");
    Decision forced = Guard(small).decide(disable(leaf_guid(2), 4, true), f, s, kNow);
    CHECK(forced.verdict == Verdict::allowed);
    CHECK(forced.overridden == std::vector<std::string>{"max_disabled_total"});
  }
  SECTION("max_disabled_per_switch counts links touching the switch from either end") {
    GuardState s;
    s.disabled = {PortKey{leaf_guid(0), 2}, PortKey{spine_guid(3), 1}};  // both on leaf000
    Decision d = g.decide(disable(leaf_guid(0), 4), f, s, kNow);
    CHECK(d.rule == "max_disabled_per_switch");
    CHECK(d.reason ==
          "max_disabled_per_switch: leaf000 already has 2 disabled links, "
          "max_disabled_per_switch is 2");
    // Another leaf is fine; the spine at the far end is also counted.
    CHECK(g.decide(disable(leaf_guid(1), 4), f, s, kNow).verdict == Verdict::allowed);
    GuardState spine_full;
    spine_full.disabled = {PortKey{leaf_guid(0), 2}, PortKey{leaf_guid(1), 2}};  // spine000
    Decision sp = g.decide(disable(leaf_guid(2), 2), f, spine_full, kNow);
    CHECK(sp.rule == "max_disabled_per_switch");
    CHECK(sp.reason.find("spine000 already has 2") != std::string::npos);
    CHECK(g.decide(disable(leaf_guid(0), 4, true), f, s, kNow).verdict == Verdict::allowed);
  }
  SECTION("max_actions_per_hour counts disables of the last hour only") {
    GuardState s;
    for (int i = 0; i < 8; ++i) s.disable_times.push_back(kNow - (i + 1) * 60 * kSecond);
    Decision d = g.decide(disable(leaf_guid(0), 2), f, s, kNow);
    CHECK(d.rule == "max_actions_per_hour");
    CHECK(d.reason ==
          "max_actions_per_hour: 8 disables in the last hour, max_actions_per_hour is 8");
    CHECK(g.decide(disable(leaf_guid(0), 2), f, s, kNow + 3130 * kSecond).verdict ==
          Verdict::allowed);  // the oldest (8 min before kNow) left the window
    Decision forced = g.decide(disable(leaf_guid(0), 2, true), f, s, kNow);
    CHECK(forced.verdict == Verdict::allowed);
    CHECK(forced.reason.find("forced, overriding max_actions_per_hour") != std::string::npos);
  }
}

TEST_CASE("guard: enable is always allowed and not rate-limited", "[guard]") {
  Fabric f = two_tier(1, 1, 1);
  GuardState s;
  for (int i = 0; i < 100; ++i) s.disable_times.push_back(kNow - i * kSecond);
  Decision d = Guard(enforce()).decide(enable(leaf_guid(0), 1), f, s, kNow);
  CHECK(d.verdict == Verdict::allowed);
  CHECK(d.reason == "enable leaf000/1: enable is always allowed");
  CHECK(Guard(GuardConfig{}).decide(enable(0xdead, 7), f, s, kNow).verdict == Verdict::dry_run);
}

TEST_CASE("guard: unknown ports and ports already disabled are refused", "[guard]") {
  Fabric f = two_tier(2, 4, 1);
  Guard g(enforce());
  CHECK(g.decide(disable(0xdead, 1), f, GuardState{}, kNow).rule == "unknown_port");
  CHECK(g.decide(disable(leaf_guid(0), 15), f, GuardState{}, kNow).rule == "unknown_port");
  GuardState s;
  s.disabled.insert(PortKey{leaf_guid(0), 2});
  CHECK(g.decide(disable(leaf_guid(0), 2), f, s, kNow).rule == "already_disabled");
}

TEST_CASE("guard: record tracks disabled ports and prunes old timestamps", "[guard]") {
  Fabric f = two_tier(2, 4, 1);
  GuardState s;
  s.disable_times.push_back(kNow - 4000 * kSecond);
  record(s, disable(leaf_guid(0), 2), f, kNow);
  CHECK(s.disabled.count(PortKey{leaf_guid(0), 2}) == 1);
  CHECK(s.disable_times == std::vector<int64_t>{kNow});
  // Enabling from the other end of the link clears it too.
  record(s, enable(spine_guid(0), 1), f, kNow + kSecond);
  CHECK(s.disabled.empty());
  CHECK(s.disable_times.size() == 1);  // enables do not count toward the hourly budget
}
