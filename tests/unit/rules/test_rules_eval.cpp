// Rule evaluation on hand-made port windows: each rule type fires and stays quiet where it
// should, thresholds follow the active speed, saturation and confirmation show in verdicts.
#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>

#include "rules/evaluate.h"
#include "tests/test_paths.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::rules;
using ibw::fabric::Speed;
using ibw::ingest::Counter;

namespace rules_eval_test {

constexpr int64_t kMin = 60'000'000;
constexpr int64_t kNow = 1'000 * kMin;
constexpr uint64_t kA = 0x1000, kB = 0x2000;

RuleSet defaults() {
  return load_rules(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
}

ibw::rules::WindowDelta delta(int64_t t, Counter c, uint64_t d, bool at_least = false,
                              int64_t interval = kMin) {
  ibw::rules::WindowDelta x;
  x.time_us = t;
  auto i = static_cast<size_t>(c);
  x.delta.set(i, d);
  x.valid = ~0u;
  x.at_least = at_least ? 1u << i : 0;
  x.interval_us = interval;
  return x;
}

PortWindow port(uint64_t guid, int p, uint64_t peer, int peer_port, Speed s = Speed::hdr) {
  PortWindow w;
  w.node_guid = guid, w.port = p, w.peer_guid = peer, w.peer_port = peer_port;
  w.active_width = 4, w.active_speed = s;
  return w;
}

std::vector<Verdict> only(const std::vector<Verdict>& v, std::string_view rule) {
  std::vector<Verdict> out;
  for (const auto& x : v)
    if (x.rule == rule) out.push_back(x);
  return out;
}

TEST_CASE("rules eval: a clean port and one stray symbol error are left alone", "[rules]") {
  PortWindow w = port(kA, 1, kB, 1, Speed::ndr);
  w.deltas = {delta(kNow - 2 * kMin, Counter::SymbolErrorCounter, 0),
              delta(kNow - kMin, Counter::SymbolErrorCounter, 1)};
  CHECK(evaluate(defaults(), {w}, kNow).empty());
}

TEST_CASE("rules eval: the BER threshold follows the active speed", "[rules]") {
  // 5 errors in 12 min: NDR 4x BER 1.6e-14 >= 1e-14; HDR 4x 3.3e-14 < 1e-12.
  PortWindow ndr = port(kA, 1, 0, 0, Speed::ndr), hdr = port(kA, 2, 0, 0, Speed::hdr);
  ndr.deltas = hdr.deltas = {delta(kNow - 5 * kMin, Counter::SymbolErrorCounter, 3),
                             delta(kNow - kMin, Counter::SymbolErrorCounter, 2),
                             delta(kNow - 30 * kMin, Counter::SymbolErrorCounter, 90)};  // old
  auto v = evaluate(defaults(), {ndr, hdr}, kNow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].port == 1);
  CHECK(v[0].rule == "symbol_ber");
  CHECK(v[0].action == Action::isolate);
  CHECK(v[0].confirmed);
  CHECK(v[0].evidence.total == 5);
  CHECK(v[0].evidence.ber == Approx(5.0 / (106.25e9 * 4 * 720)));
  CHECK(v[0].evidence.threshold == 1e-14);
  CHECK(v[0].explanation ==
        "0x0000000000001000/1: symbol_ber: 5 symbol errors in 12m on 4xNDR: BER 1.63e-14 >= "
        "1e-14");
}

TEST_CASE("rules eval: one-sweep jump and saturated deltas", "[rules]") {
  PortWindow w = port(kA, 1, 0, 0, Speed::edr);
  w.deltas = {delta(kNow, Counter::SymbolErrorCounter, 65535, true)};
  auto v = evaluate(defaults(), {w}, kNow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].evidence.at_least);
  CHECK(v[0].explanation.find("at least 65535 symbol errors") != std::string::npos);

  RuleSet jump_only = parse_rules(
      "rules:\n- {name: j, type: symbol_errors, action: none, severity: info, jump: 50}\n", "r");
  w.deltas = {delta(kNow - kMin, Counter::SymbolErrorCounter, 30),
              delta(kNow, Counter::SymbolErrorCounter, 30)};
  CHECK(evaluate(jump_only, {w}, kNow).empty());  // 60 in the window, but 30 per sweep
  w.deltas.push_back(delta(kNow, Counter::SymbolErrorCounter, 50));
  auto j = evaluate(jump_only, {w}, kNow);
  REQUIRE(j.size() == 1);
  CHECK(j[0].evidence.max_delta == 50);
  CHECK(j[0].explanation.find("50 symbol errors in one sweep (jump >= 50)") != std::string::npos);
}

TEST_CASE("rules eval: link flaps are counted once when both ends see them", "[rules]") {
  PortWindow a = port(kA, 1, kB, 7), b = port(kB, 7, kA, 1);
  for (int i = 0; i < 5; ++i) {
    int64_t t = kNow - 50'000'000 + i * 10'000'000;
    a.events.push_back({t, true, false});
    a.events.push_back({t + 1'000'000, false, false});
    b.events.push_back({t + 2'000'000, true, false});  // the same drop from the far end
  }
  // LinkDowned counters on both ends agree: 5 each, not 10.
  a.deltas = {delta(kNow, Counter::LinkDownedCounter, 5)};
  b.deltas = {delta(kNow, Counter::LinkDownedCounter, 5)};
  auto v = only(evaluate(defaults(), {a, b}, kNow), "link_flap");
  REQUIRE(v.size() == 2);
  CHECK(v[0].evidence.flaps == 5);
  CHECK(v[0].evidence.event_times.size() == 5);
  CHECK(v[0].confirmed);  // both ends fire
  CHECK(v[0].action == Action::disable);

  // Four flaps only: quiet.
  a.events.resize(8), b.events.resize(4);
  a.deltas = {delta(kNow, Counter::LinkDownedCounter, 4)};
  b.deltas = {};
  CHECK(only(evaluate(defaults(), {a, b}, kNow), "link_flap").empty());
}

TEST_CASE("rules eval: quick flaps from one end all count and far-end only downs count",
          "[rules]") {
  PortWindow a = port(kA, 1, kB, 7), b = port(kB, 7, kA, 1);
  for (int i = 0; i < 5; ++i) {  // five drops two seconds apart, seen by a only
    int64_t t = kNow - 20'000'000 + i * 2'000'000;
    a.events.push_back({t, true, false});
    a.events.push_back({t + 1'000'000, false, false});
  }
  auto v = only(evaluate(defaults(), {a, b}, kNow), "link_flap");
  REQUIRE(v.size() == 2);
  CHECK(v[0].evidence.flaps == 5);
  CHECK(v[0].evidence.last_time_us == kNow - 20'000'000 + 4 * 2'000'000);
  // The same history as this window's from_peer events, without the peer's window: 5 too.
  PortWindow c = port(kB, 7, kA, 1);
  for (const auto& e : a.events) c.events.push_back({e.time_us, e.down, true});
  auto w = only(evaluate(defaults(), {c}, kNow), "link_flap");
  REQUIRE(w.size() == 1);
  CHECK(w[0].evidence.flaps == 5);
}

TEST_CASE("rules eval: link_degraded against plan and enabled", "[rules]") {
  PortWindow w = port(kA, 1, 0, 0, Speed::hdr);
  w.active_width = 2;
  w.plan_width = 4, w.plan_speed = Speed::hdr;
  auto v = evaluate(defaults(), {w}, kNow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].rule == "link_degraded");
  CHECK(v[0].explanation == "0x0000000000001000/1: link_degraded: runs at 2xHDR, plan says 4xHDR");
  CHECK(v[0].evidence.expected_width == 4);

  w.active_width = 4;
  w.plan_width = 0, w.plan_speed = Speed::unknown;  // no plan
  w.enabled_width = 4, w.enabled_speed = Speed::ndr;
  v = evaluate(defaults(), {w}, kNow);
  REQUIRE(v.size() == 1);
  CHECK(v[0].evidence.expected_speed == Speed::ndr);

  RuleSet plan_only = parse_rules(
      "rules:\n- {name: d, type: link_degraded, action: none, severity: info, below: plan}\n", "r");
  CHECK(evaluate(plan_only, {w}, kNow).empty());
}

TEST_CASE("rules eval: error counter delta and rate bursts", "[rules]") {
  PortWindow w = port(kA, 1, 0, 0);
  w.deltas = {delta(kNow - 30'000'000, Counter::LinkErrorRecoveryCounter, 3),
              delta(kNow, Counter::LinkErrorRecoveryCounter, 2)};
  w.deltas.push_back(delta(kNow, Counter::PortRcvErrors, 12, false, 1'000'000));  // 12/s
  auto v = evaluate(defaults(), {w}, kNow);
  REQUIRE(v.size() == 2);
  CHECK(v[0].evidence.counter == "PortRcvErrors");
  CHECK(v[0].explanation.find("PortRcvErrors at 12/s (limit 10/s)") != std::string::npos);
  CHECK(v[1].evidence.counter == "LinkErrorRecoveryCounter");
  CHECK(v[1].evidence.total == 5);

  w.deltas = {delta(kNow, Counter::PortRcvErrors, 500)};  // 500 in a minute: 8.3/s
  CHECK(evaluate(defaults(), {w}, kNow).empty());
}

TEST_CASE("rules eval: confirmation both ways", "[rules]") {
  RuleSet set = parse_rules(
      "rules:\n"
      "- {name: both, type: error_counters, action: disable, severity: error,\n"
      "   confirm: both_ends, counters: {LocalLinkIntegrityErrors: {delta: 1}}}\n"
      "- {name: flap, type: error_counters, action: disable, severity: error,\n"
      "   confirm: errors_and_flap, counters: {LocalLinkIntegrityErrors: {delta: 1}}}\n",
      "r");
  PortWindow a = port(kA, 1, kB, 7), b = port(kB, 7, kA, 1);
  a.deltas = {delta(kNow, Counter::LocalLinkIntegrityErrors, 2)};
  auto v = evaluate(set, {a, b}, kNow);
  REQUIRE(v.size() == 2);
  CHECK_FALSE(v[0].confirmed);
  CHECK(v[0].explanation.find("not confirmed: peer 0x0000000000002000/7 is clean") !=
        std::string::npos);
  CHECK_FALSE(v[1].confirmed);
  CHECK(v[1].explanation.find("no link flap") != std::string::npos);

  b.deltas = {delta(kNow, Counter::LocalLinkIntegrityErrors, 1)};
  b.events = {{kNow - 5'000'000, true, false}};
  v = evaluate(set, {a, b}, kNow);
  REQUIRE(v.size() == 4);  // both ports fire both rules
  for (const auto& x : v) CHECK(x.confirmed);
  CHECK(v[1].evidence.flaps == 1);
  CHECK(v[1].evidence.event_times == std::vector<int64_t>{kNow - 5'000'000});

  auto alone = evaluate(set, {a}, kNow);  // peer not in the input
  REQUIRE(alone.size() == 2);
  CHECK_FALSE(alone[0].confirmed);
  CHECK(alone[0].explanation.find("peer not observed") != std::string::npos);
}

TEST_CASE("rules eval: timing of 100000 ports with 2 samples each", "[rules][timing]") {
  RuleSet set = defaults();
  std::vector<PortWindow> ports;
  ports.reserve(100'000);
  for (int i = 0; i < 100'000; ++i) {
    uint64_t guid = 0x10000 + static_cast<uint64_t>(i / 40);
    PortWindow w = port(guid, i % 40 + 1, guid ^ 1, i % 40 + 1, Speed::ndr);
    w.deltas = {delta(kNow - kMin, Counter::SymbolErrorCounter, i % 1000 == 0 ? 4 : 0),
                delta(kNow, Counter::PortRcvErrors, i % 997 == 0 ? 1000 : 1)};
    ports.push_back(std::move(w));
  }
  auto start = std::chrono::steady_clock::now();
  auto v = evaluate(set, ports, kNow);
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start);
  std::cout << "rules eval: 100000 ports x 2 samples, " << set.rules.size()
            << " rules: " << ms.count() << " ms, " << v.size() << " verdicts\n";
  CHECK(v.size() == 100 + 101);
}

}  // namespace rules_eval_test
