// Congestion is a signal, not a fault: rules may not act (work_order, disable, isolate) on
// PortXmitWait or PortXmitDiscards (rejected at load with file:line, naming the counter and
// the action); the congestion rule type reports them with the wait ratio and the bandwidth
// lost; the runner never returns such a verdict for action.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "rules/evaluate.h"
#include "rules/history.h"
#include "rules/runner.h"
#include "tests/test_paths.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::rules;
using ibw::fabric::Diagnostic;
using ibw::fabric::Speed;
using ibw::ingest::Counter;
using ibw::test::find_diag;
using ibw::test::join_lines;
using ibw::test::keys;

namespace rules_congestion_test {

constexpr int64_t kSec = 1'000'000;
constexpr int64_t kNow = 100'000 * kSec;

std::vector<Diagnostic> rule_errors(const std::string& text) {
  return ibw::test::errors_of(parse_rules, text, "rules.yaml");
}

std::string bursts(const std::string& action, const std::string& counter) {
  return join_lines({
      "rules:",                                    // 1
      "  - name: bursts",                          // 2
      "    type: error_counters",                  // 3
      "    severity: warning",                     // 4
      "    counters:",                             // 5
      "      PortRcvErrors: {rate_per_s: 10}",     // 6
      "      " + counter + ": {rate_per_s: 100}",  // 7
      "    action: " + action,                     // 8 (after the counters: read last)
  });
}

TEST_CASE("rules congestion: acting on a congestion counter is rejected at its line", "[rules]") {
  for (std::string counter : {"PortXmitDiscards", "PortXmitWait"})
    for (std::string action : {"work_order", "disable", "isolate"}) {
      auto diags = rule_errors(bursts(action, counter));
      INFO(counter << " " << action);
      REQUIRE(keys(diags) == std::vector<std::string>{"7:counters." + counter});
      CHECK(diags[0].file == "rules.yaml");
      CHECK(diags[0].message.find(counter) != std::string::npos);
      CHECK(diags[0].message.find("action " + action) != std::string::npos);
      CHECK(diags[0].message.find("congestion") != std::string::npos);
    }
  // Reporting them is allowed, and other counters may still order a repair.
  CHECK_NOTHROW(parse_rules(bursts("none", "PortXmitDiscards"), "rules.yaml"));
  CHECK_NOTHROW(parse_rules(bursts("work_order", "LocalLinkIntegrityErrors"), "rules.yaml"));
}

TEST_CASE("rules congestion: the rejection is collected with the other problems", "[rules]") {
  auto diags = rule_errors(join_lines({
      "rules:",                                     // 1
      "  - name: bursts",                           // 2
      "    type: error_counters",                   // 3
      "    action: work_order",                     // 4
      "    severity: loud",                         // 5 bad severity
      "    counters:",                              // 6
      "      PortXmitDiscards: {delta: 10}",        // 7 congestion with work_order
      "  - name: c",                                // 8
      "    type: congestion",                       // 9
      "    action: disable",                        // 10 a congestion rule only reports
      "    severity: info",                         // 11
      "    wait_ratio: 2",                          // 12 out of 0-1
      "    counters: {PortRcvErrors: {delta: 1}}",  // 13 not a congestion key
  }));
  CHECK(keys(diags) == std::vector<std::string>{"10:action", "12:wait_ratio", "13:counters",
                                                "5:severity", "7:counters.PortXmitDiscards"});
  auto* act = find_diag(diags, 10, "action");
  REQUIRE(act);
  CHECK(act->message.find("must be none") != std::string::npos);
  CHECK(act->message.find("disable") != std::string::npos);
}

TEST_CASE("rules congestion: the type loads with defaults and its own keys", "[rules]") {
  RuleSet set = parse_rules(join_lines({
                                "rules:",
                                "  - {name: a, type: congestion, severity: warning}",
                                "  - {name: b, type: congestion, action: none, severity: info,",
                                "     window: 5m, wait_ratio: 0.25, discards_per_s: 40,",
                                "     wait_tick_bits: 256}",
                            }),
                            "r.yaml");
  const Rule* a = set.find("a");
  REQUIRE(a);
  CHECK(a->type == RuleType::congestion);
  CHECK(a->action == Action::none);  // absent: none
  CHECK(a->window_us == 60 * kSec);
  CHECK(a->wait_ratio == 0.1);
  CHECK(a->discards_per_s == 100);
  CHECK(a->wait_tick_bits == kDefaultWaitTickBits);
  const Rule* b = set.find("b");
  REQUIRE(b);
  CHECK(b->window_us == 300 * kSec);
  CHECK(b->wait_ratio == 0.25);
  CHECK(b->discards_per_s == 40);
  CHECK(b->wait_tick_bits == 256);
}

TEST_CASE("rules congestion: rules validate names the file and line", "[rules]") {
  std::string path = "/tmp/ibw_congestion_rules_" + std::to_string(::getpid()) + ".yaml";
  {
    std::ofstream f(path);
    f << bursts("isolate", "PortXmitWait") << "\n";
  }
  auto diags = validate_rules_file(path);
  std::remove(path.c_str());
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].file == path);
  CHECK(diags[0].line == 7);
  CHECK(ibw::fabric::format_diagnostic(diags[0]).find(path + ":7: counters.PortXmitWait: ") == 0);
}

TEST_CASE("rules congestion: the shipped rules report congestion and never act on it", "[rules]") {
  RuleSet set = load_rules(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  const Rule* c = set.find("congestion");
  REQUIRE(c);
  CHECK(c->type == RuleType::congestion);
  CHECK(c->action == Action::none);
  for (const auto& r : set.rules)
    for (const auto& lim : r.counters) CHECK_FALSE(is_congestion_counter(lim.counter));
}

WindowDelta sweep(int64_t t, uint64_t wait_ticks, uint64_t discards, int64_t interval) {
  WindowDelta d;
  d.time_us = t;
  d.interval_us = interval;
  d.valid = ~0u;
  d.delta.set(static_cast<size_t>(Counter::PortXmitWait), wait_ticks);
  d.delta.set(static_cast<size_t>(Counter::PortXmitDiscards), discards);
  return d;
}

RuleSet congestion_rule(Action action = Action::none) {
  RuleSet set;
  Rule r;
  r.name = "congestion", r.type = RuleType::congestion, r.action = action;
  r.window_us = 60 * kSec;
  set.rules.push_back(r);
  return set;
}

TEST_CASE("rules congestion: the wait ratio and lost bandwidth come from PortXmitWait", "[rules]") {
  PortWindow w;
  w.node_guid = 0x10, w.port = 3, w.active_width = 4, w.active_speed = Speed::hdr;
  double link_bps = ibw::fabric::lane_gbps(Speed::hdr) * 1e9 * 4;
  int64_t interval = 10 * kSec;
  // Ticks that make a quarter of one sweep, then a quiet sweep: the worst sweep counts.
  auto quarter = static_cast<uint64_t>(0.25 * link_bps * 10 / kDefaultWaitTickBits);
  w.deltas = {sweep(kNow - 20 * kSec, quarter, 0, interval),
              sweep(kNow - 10 * kSec, quarter / 100, 0, interval)};
  auto v = evaluate(congestion_rule(), {w}, kNow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].type == RuleType::congestion);
  CHECK(v[0].action == Action::none);
  CHECK(v[0].evidence.counter == "PortXmitWait");
  CHECK(v[0].evidence.wait_ratio == Approx(0.25).epsilon(1e-6));
  CHECK(v[0].evidence.lost_gbps == Approx(0.25 * link_bps / 1e9).epsilon(1e-6));
  CHECK(v[0].explanation.find("waited to send 25.0%") != std::string::npos);
  CHECK(is_congestion_verdict(v[0]));

  // Below the ratio: quiet. Unknown link rate: the wait cannot be judged.
  w.deltas = {sweep(kNow - kSec, quarter / 4, 0, interval)};  // 6.25% < 10%
  CHECK(evaluate(congestion_rule(), {w}, kNow).empty());
  w.deltas = {sweep(kNow - kSec, quarter, 0, interval)};
  w.active_speed = Speed::unknown;
  CHECK(evaluate(congestion_rule(), {w}, kNow).empty());
}

TEST_CASE("rules congestion: PortXmitDiscards over the rate is a finding too", "[rules]") {
  PortWindow w;
  w.node_guid = 0x10, w.port = 3, w.active_width = 4, w.active_speed = Speed::hdr;
  w.deltas = {sweep(kNow - kSec, 0, 1500, 10 * kSec)};  // 150/s
  auto v = evaluate(congestion_rule(), {w}, kNow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].evidence.counter == "PortXmitDiscards");
  CHECK(v[0].evidence.max_rate == Approx(150));
  CHECK(v[0].evidence.wait_ratio == 0);
  w.deltas = {sweep(kNow - kSec, 0, 500, 10 * kSec)};  // 50/s
  CHECK(evaluate(congestion_rule(), {w}, kNow).empty());
  w.deltas = {sweep(kNow - 2 * 60 * kSec, 0, 1500, 10 * kSec)};  // outside the window
  CHECK(evaluate(congestion_rule(), {w}, kNow).empty());
}

ibw::ingest::CounterDelta counter_delta(int64_t t, uint64_t discards, uint64_t wait) {
  ibw::ingest::CounterDelta d;
  d.sample.time_us = t, d.sample.node_guid = 0x10, d.sample.port = 3;
  d.interval_us = 10 * kSec;
  d.valid = ~0u;
  d.delta[static_cast<size_t>(Counter::PortXmitDiscards)] = discards;
  d.delta[static_cast<size_t>(Counter::PortXmitWait)] = wait;
  return d;
}

TEST_CASE("rules congestion: the runner reports congestion apart and never for action", "[rules]") {
  // The shipped rules: discards climbing fast make a congestion finding, no acting verdict,
  // and a port that only waits (no error counter rose) is kept for the congestion rule.
  RuleRunner runner(load_rules(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml"));
  LinkInfo link{0x10, 3, 0x20, 1, 4, Speed::hdr};
  double link_bps = ibw::fabric::lane_gbps(Speed::hdr) * 1e9 * 4;
  runner.add_deltas({counter_delta(kNow - kSec, 100'000, 0)});
  std::vector<Verdict> congestion;
  CHECK(runner.evaluate({link}, kNow, &congestion).empty());
  REQUIRE(congestion.size() == 1);
  CHECK(congestion[0].rule == "congestion");
  CHECK(congestion[0].evidence.max_rate == Approx(10'000));

  RuleRunner waits(load_rules(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml"));
  waits.add_deltas({counter_delta(kNow - kSec, 0, static_cast<uint64_t>(link_bps * 5 / 64))});
  congestion.clear();
  CHECK(waits.evaluate({link}, kNow, &congestion).empty());
  REQUIRE(congestion.size() == 1);
  CHECK(congestion[0].evidence.wait_ratio == Approx(0.5).epsilon(1e-6));

  // A verdict about a congestion counter never acts, even from a rule set built by hand
  // around the loader (error_counters with work_order on PortXmitDiscards).
  RuleSet hand;
  Rule r;
  r.name = "hand", r.type = RuleType::error_counters, r.action = Action::work_order;
  r.window_us = 60 * kSec;
  r.counters = {{Counter::PortXmitDiscards, 0, 100}};
  hand.rules.push_back(r);
  RuleRunner bypass(hand);
  bypass.add_deltas({counter_delta(kNow - kSec, 100'000, 0)});
  auto all = evaluate(hand, {[&] {
                        PortWindow w;
                        w.node_guid = 0x10, w.port = 3;
                        w.deltas = {WindowDelta::of(counter_delta(kNow - kSec, 100'000, 0))};
                        return w;
                      }()},
                      kNow);
  REQUIRE(all.size() == 1);                      // the rule does fire ...
  CHECK(bypass.evaluate({link}, kNow).empty());  // ... but nothing acts on it
}

TEST_CASE("rules congestion: the bounds pass over a port only when walking it finds nothing",
          "[rules]") {
  // Random ports with waits and discards around the limits, as History lends them (deltas
  // with bounds: evaluate() may pass over a port by its bounds) and as plain deltas (always
  // walked): the verdicts must be the same.
  std::mt19937_64 rng(20261129);
  static const Speed kSpeeds[] = {Speed::unknown, Speed::sdr, Speed::edr, Speed::hdr, Speed::ndr};
  RuleSet set = congestion_rule();
  std::vector<std::vector<WindowDelta>> lent(4000);
  std::vector<DeltaBounds> bounds(lent.size());
  std::vector<PortWindow> walked, bounded;
  for (size_t i = 0; i < lent.size(); ++i) {
    PortWindow w;
    w.node_guid = 0x10 + i, w.port = 1;
    w.active_width = std::array{0, 1, 2, 4}[rng() % 4];
    w.active_speed = kSpeeds[rng() % 5];
    double link_bps = ibw::fabric::lane_gbps(w.active_speed) * 1e9 * w.active_width;
    int64_t t = kNow - 3 * 60 * kSec;
    for (int n = static_cast<int>(rng() % 5); n > 0; --n) {
      t += static_cast<int64_t>(rng() % (50 * kSec));
      int64_t interval = rng() % 8 == 0 ? 0 : static_cast<int64_t>(1 + rng() % (20 * kSec));
      // Ticks for a ratio of 0-2x the limit, some exactly at it; discards around 100/s.
      // (At the limit: the fewest ticks that reach it, where a bound a hair low would miss.)
      bool at_limit = rng() % 4 == 0;
      double share = at_limit ? 0.1 : 0.2 * static_cast<double>(rng() % 1000) / 1000;
      double exact = share * link_bps * static_cast<double>(interval) / 1e6 / kDefaultWaitTickBits;
      auto ticks = static_cast<uint64_t>(at_limit ? std::ceil(exact) : exact);
      uint64_t drops = rng() % 3 ? 0 : static_cast<uint64_t>(rng() % 200) * interval / kSec;
      WindowDelta d = sweep(t, ticks, drops, interval);
      if (rng() % 6 == 0) d.valid = static_cast<uint32_t>(rng());
      lent[i].push_back(d);
      bounds[i].add(d);
    }
    w.deltas = lent[i];
    walked.push_back(w);
    w.deltas.clear();
    w.delta_view = lent[i], w.bounds = &bounds[i], w.exact_totals = true;
    bounded.push_back(w);
  }
  auto a = evaluate(set, walked, kNow), b = evaluate(set, bounded, kNow);
  REQUIRE(a.size() == b.size());
  CHECK(a.size() > 40);  // the limits are met often enough to matter
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].node_guid == b[i].node_guid);
    CHECK(a[i].explanation == b[i].explanation);
  }
}

TEST_CASE("rules congestion: waits no link could find congested make no history entry", "[rules]") {
  // The shipped congestion rule: 10% of a sweep, 64 bits a tick; the slowest link is 1x SDR.
  RuleSet set = load_rules(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  const double limit = 0.1 * ibw::fabric::lane_gbps(Speed::sdr) * 1e9 / kDefaultWaitTickBits;
  CHECK(xmit_wait_min_rate(set) == Approx(limit));
  // Random waits around that floor on links of every speed, through a history set up as the
  // runner sets it (follow) and one that keeps every wait: the same congestion verdicts.
  std::mt19937_64 rng(11);
  History kept_all(longest_window(set)), follows(longest_window(set));
  kept_all.follow(set);
  follows.follow(set);
  kept_all.keep_xmit_wait(true, xmit_wait_window(set), 0);
  static const Speed kSpeeds[] = {Speed::unknown, Speed::sdr, Speed::ddr, Speed::edr, Speed::ndr};
  std::vector<LinkInfo> links;
  const int64_t interval = 60 * kSec;
  size_t under = 0;
  for (int i = 0; i < 3000; ++i) {
    LinkInfo l{static_cast<uint64_t>(0x100 + i), 1};
    l.active_width = std::array{0, 1, 4}[rng() % 3];
    l.active_speed = kSpeeds[rng() % 5];
    links.push_back(l);
    double link_bps = ibw::fabric::lane_gbps(l.active_speed) * 1e9 * l.active_width;
    // At the slowest link's limit, or at 0-2x this link's limit.
    double rate = rng() % 4 == 0 ? limit
                                 : 0.2 * link_bps / kDefaultWaitTickBits *
                                       static_cast<double>(rng() % 1000) / 1000;
    auto d = counter_delta(kNow - kSec, 0, static_cast<uint64_t>(std::ceil(rate * 10)));
    d.sample.node_guid = l.node_guid, d.sample.port = 1, d.interval_us = interval / 6;
    under += !follows.add_delta(d);
    kept_all.add_delta(d);
  }
  CHECK(under > 500);  // most waits of the faster links are passed over ...
  CHECK(follows.ports() + under == 3000);
  auto a = evaluate(set, kept_all.windows(links), kNow);
  auto b = evaluate(set, follows.windows(links), kNow);
  CHECK(a.size() > 100);  // ... yet every port that was congested still is
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i].explanation == b[i].explanation);
  // A rule that sums waits keeps every rise.
  auto sums = set;
  for (auto& r : sums.rules)
    if (r.type == RuleType::error_counters) r.counters.push_back({Counter::PortXmitWait, 1000, 0});
  CHECK(xmit_wait_min_rate(sums) == 0);
}

TEST_CASE("rules congestion: sweeps before the link last went down or came up do not count",
          "[rules]") {
  PortWindow w;
  w.node_guid = 0x10, w.port = 3, w.active_width = 4, w.active_speed = Speed::hdr;
  w.deltas = {sweep(kNow - 20 * kSec, 0, 1500, 10 * kSec)};  // 150/s, 20 s ago
  REQUIRE(evaluate(congestion_rule(), {w}, kNow).size() == 1);
  // The link went down and came back since (a neighbour's reboot): that burst is history,
  // whichever end reported the events, and whether or not the link is back yet.
  for (bool from_peer : {false, true}) {
    w.events = {{kNow - 15 * kSec, true, from_peer}, {kNow - 14 * kSec, false, from_peer}};
    CHECK(evaluate(congestion_rule(), {w}, kNow).empty());
    w.events.pop_back();
    CHECK(evaluate(congestion_rule(), {w}, kNow).empty());
  }
  // A burst read after the link came back is a finding of its own (its rate, not the old
  // one's); events older than the burst change nothing.
  w.events = {{kNow - 15 * kSec, true, false}, {kNow - 14 * kSec, false, false}};
  w.deltas.push_back(sweep(kNow - 5 * kSec, 0, 2000, 10 * kSec));  // 200/s
  auto v = evaluate(congestion_rule(), {w}, kNow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].evidence.max_rate == Approx(200));
  CHECK(v[0].evidence.total == 2000);
  w.events = {{kNow - 30 * kSec, true, false}, {kNow - 29 * kSec, false, false}};
  v = evaluate(congestion_rule(), {w}, kNow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].evidence.total == 3500);
}

TEST_CASE("rules congestion: a congestion rule alone keeps the link events it needs", "[rules]") {
  // No link_flap rule: the runner still keeps link_down / link_up for the congestion rule,
  // so a burst from before a link came back is not reported again.
  RuleRunner runner(congestion_rule());
  LinkInfo link{0x10, 3, 0x20, 1, 4, Speed::hdr};
  runner.add_deltas({counter_delta(kNow - 20 * kSec, 100'000, 0)});
  std::vector<Verdict> congestion;
  runner.evaluate({link}, kNow, &congestion);
  REQUIRE(congestion.size() == 1);
  std::vector<ibw::ingest::Event> flap(2);
  for (size_t i = 0; i < 2; ++i) {
    flap[i].time_us = kNow - (15 - static_cast<int64_t>(i)) * kSec;
    flap[i].kind = i == 0 ? ibw::ingest::kind::link_down : ibw::ingest::kind::link_up;
    flap[i].node_guid = 0x20, flap[i].port = 1;  // reported by the far end
    CHECK(runner.wants(flap[i]));
  }
  CHECK(runner.add_events(flap) == 2);
  congestion.clear();
  runner.evaluate({link}, kNow, &congestion);
  CHECK(congestion.empty());
}

TEST_CASE("rules congestion: a rule with action none is reported and never acted on", "[rules]") {
  // The same PortRcvErrors burst under a work_order rule and a report-only twin: the first
  // acts, the second goes to the reports; the report-only rule with confirm: both_ends and a
  // quiet peer is not confirmed, so it is not reported either.
  RuleSet set;
  Rule r;
  r.name = "orders", r.type = RuleType::error_counters, r.action = Action::work_order;
  r.window_us = 60 * kSec;
  r.counters = {{Counter::PortRcvErrors, 0, 10}};
  set.rules.push_back(r);
  r.name = "watch", r.action = Action::none;
  set.rules.push_back(r);
  r.name = "watch_both", r.confirm = Confirm::both_ends;
  set.rules.push_back(r);
  RuleRunner runner(set);
  ibw::ingest::CounterDelta d = counter_delta(kNow - kSec, 0, 0);
  d.delta[static_cast<size_t>(Counter::PortRcvErrors)] = 1000;  // 100/s
  runner.add_deltas({d});
  LinkInfo link{0x10, 3, 0x20, 1, 4, Speed::hdr};
  std::vector<Verdict> reports;
  auto acting = runner.evaluate({link}, kNow, &reports);
  REQUIRE(acting.size() == 1);
  CHECK(acting[0].rule == "orders");
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].rule == "watch");
  CHECK(reports[0].action == Action::none);
  CHECK(reports[0].confirmed);
}

}  // namespace rules_congestion_test
