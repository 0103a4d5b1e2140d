// Differential test of rules::evaluate(): the current implementation against the frozen one of
// commit fd951cb (tests/unit/rules_eval_reference.cpp) on random fabrics of linked port
// windows: random counter deltas (all rule counters, saturated, unknown, zero), link events of
// both ends, UFM BER events, speeds, widths and plans, in hand-made (`deltas`) and
// History-lent (`delta_view` + bounds, and mostly exact figures) form, under the shipped rules and
// variants of them (other confirmations, jump off, disabled rules). Every verdict field must be
// equal, the explanation text included.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>

#include "rules/eval_text.h"
#include "rules/evaluate.h"
#include "tests/test_paths.h"
#include "tests/unit/rules_eval_reference.h"

using namespace ibw::rules;
using ibw::fabric::Speed;
using ibw::ingest::Counter;

namespace rules_eval_diff_test {

constexpr int64_t kMin = 60'000'000;
constexpr int64_t kNow = 5'000 * kMin;

struct Fabric {
  std::vector<PortWindow> windows;
  std::vector<std::vector<WindowDelta>> lent;  // delta_view storage
  std::vector<DeltaBounds> bounds;
  std::vector<ExactStats> exact;
};

uint64_t pick_value(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0:
    case 1:
      return 0;
    case 2:
      return rng() % 3;
    case 3:
      return rng() % 20;
    case 4:
      return rng() % 400;
    case 5:
      return 100 + rng() % 5;
    case 6:
      return rng() % 100000;
    default:
      return rng() % 2 ? UINT64_MAX / 2 : rng();
  }
}

std::vector<WindowDelta> random_deltas(std::mt19937_64& rng) {
  static const Counter kCounters[] = {Counter::SymbolErrorCounter,
                                      Counter::LinkDownedCounter,
                                      Counter::PortRcvErrors,
                                      Counter::LinkErrorRecoveryCounter,
                                      Counter::LocalLinkIntegrityErrors,
                                      Counter::ExcessiveBufferOverrunErrors,
                                      Counter::PortXmitDiscards};
  std::vector<WindowDelta> out;
  int n = static_cast<int>(rng() % 16);
  int64_t t = kNow - 15 * kMin + static_cast<int64_t>(rng() % kMin);
  for (int i = 0; i < n; ++i) {
    WindowDelta d;
    d.time_us = t;
    d.interval_us = rng() % 10 == 0 ? 0 : static_cast<int64_t>(1 + rng() % (2 * kMin));
    d.valid = rng() % 6 == 0 ? static_cast<uint32_t>(rng()) : ~0u;
    d.at_least = rng() % 8 == 0 ? static_cast<uint32_t>(rng()) : 0u;
    for (Counter c : kCounters)
      if (rng() % 3 == 0) d.delta.set(static_cast<size_t>(c), pick_value(rng));
    out.push_back(d);
    t += rng() % 4 == 0 ? 0 : static_cast<int64_t>(rng() % (2 * kMin));  // may pass now
  }
  return out;
}

void random_events(std::mt19937_64& rng, PortWindow* w) {
  int n = rng() % 3 == 0 ? static_cast<int>(rng() % 12) : 0;
  for (int i = 0; i < n; ++i) {
    LinkEvent e;
    e.time_us = kNow - static_cast<int64_t>(rng() % (3 * kMin)) + (rng() % 8 == 0 ? kMin : 0);
    e.down = rng() % 3 != 0;
    e.from_peer = rng() % 3 == 0;
    w->events.push_back(e);
  }
  std::stable_sort(w->events.begin(), w->events.end(),
                   [](const LinkEvent& a, const LinkEvent& b) { return a.time_us < b.time_us; });
  int b = rng() % 5 == 0 ? static_cast<int>(rng() % 4) : 0;
  for (int i = 0; i < b; ++i) {
    BerEvent e;
    e.time_us = kNow - static_cast<int64_t>(rng() % (12 * kMin));
    e.cleared = rng() % 3 == 0;
    e.severity = static_cast<ibw::ingest::Severity>(rng() % 4);
    e.message = "ber " + std::to_string(i);
    w->ber_events.push_back(e);
  }
  std::stable_sort(w->ber_events.begin(), w->ber_events.end(),
                   [](const BerEvent& a, const BerEvent& c) { return a.time_us < c.time_us; });
}

Fabric random_fabric(std::mt19937_64& rng, int links, bool lend) {
  Fabric f;
  f.lent.reserve(static_cast<size_t>(2 * links));
  f.bounds.reserve(static_cast<size_t>(2 * links));
  f.exact.reserve(static_cast<size_t>(2 * links));
  static const Speed kSpeeds[] = {Speed::unknown, Speed::sdr, Speed::qdr, Speed::fdr,
                                  Speed::edr,     Speed::hdr, Speed::ndr, Speed::xdr};
  for (int i = 0; i < links; ++i) {
    uint64_t a = 0x1000 + static_cast<uint64_t>(i), b = 0x9000 + static_cast<uint64_t>(i);
    bool peerless = rng() % 10 == 0;
    for (int end = 0; end < 2; ++end) {
      if (end && rng() % 6 == 0) continue;  // the peer has no window
      PortWindow w;
      w.node_guid = end ? b : a, w.port = 1 + i % 7;
      if (!peerless) w.peer_guid = end ? a : b, w.peer_port = 1 + i % 7;
      w.active_width = std::array{0, 1, 2, 4}[rng() % 4];
      w.active_speed = kSpeeds[rng() % 8];
      if (rng() % 4 == 0)
        w.plan_width = std::array{0, 1, 2, 4}[rng() % 4], w.plan_speed = kSpeeds[rng() % 8];
      if (rng() % 4 == 0)
        w.enabled_width = std::array{0, 1, 2, 4}[rng() % 4], w.enabled_speed = kSpeeds[rng() % 8];
      auto deltas = random_deltas(rng);
      if (lend && !deltas.empty()) {
        std::stable_sort(deltas.begin(), deltas.end(),
                         [](const auto& x, const auto& y) { return x.time_us < y.time_us; });
        DeltaBounds bd;
        for (const auto& d : deltas) bd.add(d);
        f.lent.push_back(std::move(deltas));
        f.bounds.push_back(bd);
        w.delta_view = f.lent.back();
        w.bounds = &f.bounds.back();
        w.exact_totals = true;  // as History lends them: bounds over exactly the view
        if (rng() % 4) {        // and exact figures of one counter the rules sum
          static const Counter kExact[] = {Counter::SymbolErrorCounter, Counter::SymbolErrorCounter,
                                           Counter::LinkDownedCounter, Counter::PortRcvErrors};
          ExactStats ex;
          ex.counter = {static_cast<uint8_t>(kExact[rng() % 4])};
          ex.active = rng() % 8 != 0;  // inactive ones are walked
          for (const auto& d : f.lent.back()) ex.add(d);
          f.exact.push_back(ex);
          w.exact = &f.exact.back();
        }
      } else {
        w.deltas = std::move(deltas);
      }
      random_events(rng, &w);
      f.windows.push_back(std::move(w));
    }
  }
  return f;
}

void check_same(const Verdict& a, const Verdict& b) {
  INFO(a.explanation);
  CHECK(a.rule == b.rule);
  CHECK(a.type == b.type);
  CHECK(a.action == b.action);
  CHECK(a.severity == b.severity);
  CHECK(a.node_guid == b.node_guid);
  CHECK(a.port == b.port);
  CHECK(a.confirmed == b.confirmed);
  CHECK(a.explanation == b.explanation);
  const Evidence &x = a.evidence, &y = b.evidence;
  CHECK(x.window_us == y.window_us);
  CHECK(x.counter == y.counter);
  CHECK(x.total == y.total);
  CHECK(x.max_delta == y.max_delta);
  CHECK(x.max_rate == y.max_rate);
  CHECK(x.samples == y.samples);
  CHECK(x.at_least == y.at_least);
  CHECK(x.ber == y.ber);
  CHECK(x.threshold == y.threshold);
  CHECK(x.flaps == y.flaps);
  CHECK(x.last_time_us == y.last_time_us);
  CHECK(x.event_times == y.event_times);
  REQUIRE(x.ber_events.size() == y.ber_events.size());
  for (size_t i = 0; i < x.ber_events.size(); ++i) {
    CHECK(x.ber_events[i].time_us == y.ber_events[i].time_us);
    CHECK(x.ber_events[i].cleared == y.ber_events[i].cleared);
    CHECK(x.ber_events[i].severity == y.ber_events[i].severity);
    CHECK(x.ber_events[i].message == y.ber_events[i].message);
  }
  CHECK(x.active_width == y.active_width);
  CHECK(x.expected_width == y.expected_width);
  CHECK(x.active_speed == y.active_speed);
  CHECK(x.expected_speed == y.expected_speed);
  CHECK(x.path.has_value() == y.path.has_value());
}

RuleSet variant(int v) {
  RuleSet rs = load_rules(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  // The reference predates the congestion type (tests/unit/rules/test_rules_congestion.cpp
  // checks it). PortXmitDiscards goes back into error_bursts by hand (the loader refuses it
  // with work_order; evaluate() does not look at actions), so that counter stays compared.
  std::erase_if(rs.rules, [](const Rule& r) { return r.type == RuleType::congestion; });
  for (auto& r : rs.rules) {
    if (r.type == RuleType::error_counters)
      r.counters.push_back({Counter::PortXmitDiscards, 0, 100});
    if (v == 1) r.confirm = r.type == RuleType::link_flap ? Confirm::none : Confirm::both_ends;
    if (v == 2 && r.type != RuleType::link_flap) r.confirm = Confirm::errors_and_flap;
    if (v == 3) {
      r.jump = 0, r.cycles = 1;
      if (r.type == RuleType::link_degraded) r.enabled = false;
      if (r.type == RuleType::ufm_high_ber) r.min_severity = ibw::ingest::Severity::info;
    }
    if (v == 4 && r.type == RuleType::link_degraded) r.below = DegradedBelow::plan;
    if (v == 5 && r.type == RuleType::link_degraded) r.below = DegradedBelow::enabled;
  }
  return rs;
}

TEST_CASE("rules eval diff: random fabrics give the reference verdicts", "[rules]") {
  std::mt19937_64 rng(20261126);
  size_t total = 0;
  std::array<size_t, 6> by_type{};  // verdicts per RuleType
  for (int round = 0; round < 240; ++round) {
    RuleSet rs = variant(round % 6);
    Fabric f = random_fabric(rng, 1 + static_cast<int>(rng() % 40), round % 2 == 0);
    auto now = kNow - (round % 3 == 0 ? kMin / 2 : 0);
    auto want = reference_evaluate(rs, f.windows, now);
    auto got = evaluate(rs, f.windows, now);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) check_same(got[i], want[i]);
    for (const auto& v : got) ++by_type[static_cast<size_t>(v.type)];
    total += got.size();
  }
  CHECK(total > 1000);  // the rounds did produce verdicts of every kind to compare
  for (size_t t = 0; t < 5; ++t) CHECK(by_type[t] > 20);
}

TEST_CASE("rules eval diff: windows in any order give the reference verdicts", "[rules]") {
  // evaluate() looks for a port's peer next to it before its index: shuffled windows make
  // it miss (and find the peer further away or not at all), as hand-made lists may.
  std::mt19937_64 rng(20261128);
  size_t total = 0, confirmed = 0;
  for (int round = 0; round < 120; ++round) {
    RuleSet rs = variant(round % 6);
    Fabric f = random_fabric(rng, 1 + static_cast<int>(rng() % 40), round % 2 == 0);
    if (round % 3)
      std::shuffle(f.windows.begin(), f.windows.end(), rng);
    else
      std::reverse(f.windows.begin(), f.windows.end());  // every peer on the other side
    auto want = reference_evaluate(rs, f.windows, kNow);
    auto got = evaluate(rs, f.windows, kNow);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) check_same(got[i], want[i]);
    total += got.size();
    for (const auto& v : got)
      confirmed += v.confirmed && v.explanation.find("confirmed on peer") != std::string::npos;
  }
  CHECK(total > 500);
  CHECK(confirmed > 10);  // peers were found out of place
}

TEST_CASE("rules eval diff: append_sci2 writes what printf's %.2e writes", "[rules]") {
  std::mt19937_64 rng(7);
  std::vector<double> xs = {0.0,   -1.5,     1e-300, 1e300,     0.0005,  1.125,
                            9.995, 9.994999, 99.95,  1.005e-12, 2.5e-14, 1e-12,
                            1e-14, 999.5,    1e22,   1e-22,     123.456};
  for (int i = 0; i < 100000; ++i) {
    xs.push_back(std::pow(10.0, std::uniform_real_distribution<double>(-25, 25)(rng)));
    xs.push_back((static_cast<double>(rng() % 2000) + 0.5) *
                 std::pow(10.0, static_cast<int>(rng() % 40) - 20));          // ties
    xs.push_back(static_cast<double>(rng() % 1000000) / (50e9 * 4 * 720.0));  // BERs
  }
  size_t wrong = 0;
  for (double x : xs) {
    std::string got;
    append_sci2(&got, x);
    char want[64];
    std::snprintf(want, sizeof want, "%.2e", x);
    if (got != want) {
      if (++wrong < 5) FAIL_CHECK(got << " != " << want);
    }
  }
  CHECK(wrong == 0);
}

}  // namespace rules_eval_diff_test
