// rules::History on random fabrics: windows() takes exactly the links the documented rule
// names (data on either end or a rate below expectation, plus the first link of each such
// link's peer), evaluate() over the history's borrowed, time-ordered deltas and their bounds
// gives the same verdicts as over copies of them without bounds, and pruning / clearing keeps the
// live port count right.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <random>
#include <set>

#include "rules/history.h"
#include "tests/test_paths.h"

namespace rules_history_test {

using namespace ibw;
using ingest::Counter;

constexpr int64_t kSweep = 60'000'000;
constexpr int64_t kNow = int64_t{1'000'000} * kSweep;

rules::RuleSet defaults() {
  return rules::load_rules(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
}

// A fabric of `nodes` x 4 ports cabled at random (some links one-sided, some duplicated).
std::vector<rules::LinkInfo> random_links(std::mt19937& rng, int nodes) {
  std::vector<rules::LinkInfo> links;
  for (int n = 0; n < nodes; ++n)
    for (int p = 1; p <= 4; ++p) {
      rules::LinkInfo l;
      l.node_guid = 0x100 + static_cast<uint64_t>(n), l.port = p;
      if (rng() % 8) l.peer_guid = 0x100 + rng() % static_cast<uint64_t>(nodes);
      l.peer_port = 1 + static_cast<int>(rng() % 4);
      l.active_width = 4, l.active_speed = fabric::Speed::hdr;
      if (rng() % 10 == 0) l.plan_width = 8;  // below its plan
      links.push_back(l);
      if (rng() % 20 == 0) links.push_back(l);
    }
  return links;
}

// Random error deltas, link events and resets on random ports, times around kNow.
void fill(std::mt19937& rng, rules::History& h, const std::vector<rules::LinkInfo>& links) {
  for (int i = 0; i < 400; ++i) {
    const auto& l = links[rng() % links.size()];
    int64_t t = kNow - static_cast<int64_t>(rng() % 16) * kSweep + (rng() % 3 ? 0 : kSweep);
    if (rng() % 5 == 0) {
      h.add_link_event(l.node_guid, l.port, t, rng() % 2);
      continue;
    }
    ingest::CounterDelta d;
    d.sample.node_guid = l.node_guid, d.sample.port = l.port, d.sample.time_us = t;
    d.valid = rng() % 4 ? ~0u : 0x5u;
    d.interval_us = rng() % 10 ? kSweep : 1'000'000;
    for (Counter c :
         {Counter::SymbolErrorCounter, Counter::LinkDownedCounter, Counter::PortRcvErrors,
          Counter::LocalLinkIntegrityErrors, Counter::PortXmitDiscards})
      if (rng() % 3 == 0) d.delta[static_cast<size_t>(c)] = rng() % 400;
    if (rng() % 7 == 0) d.at_least = 1;
    h.add_delta(d);
  }
}

bool below_expected(const rules::LinkInfo& l) {
  return (l.plan_width && l.active_width < l.plan_width) ||
         (l.enabled_width && l.active_width < l.enabled_width);
}

TEST_CASE("history windows take data links and their peers", "[rules][history]") {
  for (unsigned seed = 1; seed <= 30; ++seed) {
    std::mt19937 rng(seed);
    auto links = random_links(rng, 40);
    rules::History h(rules::longest_window(defaults()));
    fill(rng, h, links);
    if (seed % 3 == 0) h.prune(kNow - 3 * kSweep);
    // The reference: every taken link, then the first link named by each taken link's peer.
    std::map<std::pair<uint64_t, int>, size_t> first;
    for (size_t i = 0; i < links.size(); ++i)
      first.emplace(std::pair(links[i].node_guid, links[i].port), i);
    std::vector<char> take(links.size(), 0);
    for (size_t i = 0; i < links.size(); ++i) {
      if (!h.has_data(links[i]) && !below_expected(links[i])) continue;
      take[i] = 1;
      auto at = first.find({links[i].peer_guid, links[i].peer_port});
      if (links[i].peer_guid && at != first.end()) take[at->second] = 1;
    }
    std::vector<std::pair<uint64_t, int>> want, got;
    for (size_t i = 0; i < links.size(); ++i)
      if (take[i]) want.emplace_back(links[i].node_guid, links[i].port);
    for (const auto& w : h.windows(links)) got.emplace_back(w.node_guid, w.port);
    CHECK(got == want);
  }
}

// The same windows with copies of their deltas and no bounds or figures: every rule walks.
std::vector<rules::PortWindow> walked(const std::vector<rules::PortWindow>& lent) {
  auto copied = lent;
  for (auto& w : copied) {
    w.deltas.assign(w.delta_view.begin(), w.delta_view.end());
    w.delta_view = {}, w.bounds = nullptr, w.exact = nullptr;
  }
  return copied;
}

// The same verdicts, with the same evidence.
void check_equal(const std::vector<rules::Verdict>& a, const std::vector<rules::Verdict>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const auto &x = a[i].evidence, &y = b[i].evidence;
    CHECK(a[i].explanation == b[i].explanation);
    CHECK(a[i].confirmed == b[i].confirmed);
    CHECK(x.total == y.total);
    CHECK(x.max_delta == y.max_delta);
    CHECK(x.max_rate == y.max_rate);
    CHECK(x.samples == y.samples);
    CHECK(x.at_least == y.at_least);
    CHECK(x.last_time_us == y.last_time_us);
    CHECK(x.event_times == y.event_times);
  }
}

// evaluate() over lent windows and over walked copies gives the same verdicts; their count.
size_t check_same_verdicts(const rules::RuleSet& rules, const std::vector<rules::PortWindow>& lent,
                           int64_t now) {
  auto a = rules::evaluate(rules, lent, now);
  check_equal(a, rules::evaluate(rules, walked(lent), now));
  return a.size();
}

TEST_CASE("history deltas and bounds lent to evaluate judge like plain copies",
          "[rules][history]") {
  auto rules = defaults();
  size_t verdicts = 0;
  for (unsigned seed = 1; seed <= 30; ++seed) {
    std::mt19937 rng(seed);
    auto links = random_links(rng, 40);
    rules::History h(rules::longest_window(rules));
    h.track_exact(rules::exact_counters(rules));
    fill(rng, h, links);
    verdicts += check_same_verdicts(rules, h.windows(links), kNow);
  }
  CHECK(verdicts > 100);  // the fabrics do fire rules
}

// The figures a History lends must equal those of its view computed afresh.
void check_exact(const rules::PortWindow& w) {
  REQUIRE(w.exact);
  rules::ExactStats fresh;
  fresh.counter = w.exact->counter;
  for (const auto& d : w.delta_view) fresh.add(d);
  CHECK(w.exact->deltas == w.delta_view.size());
  CHECK(w.exact->first == w.delta_view.front().time_us);
  CHECK(w.exact->last == w.delta_view.back().time_us);
  for (size_t k = 0; k < rules::ExactStats::kSlots; ++k) {
    const auto &a = w.exact->slot[k], &b = fresh.slot[k];
    INFO("port " << w.node_guid << "/" << w.port << " slot " << k);
    CHECK(a.max_delta == b.max_delta);
    CHECK(a.max_rate == b.max_rate);
    CHECK(a.last_time == b.last_time);
    CHECK(a.samples == b.samples);
    CHECK(a.nonzero == b.nonzero);
    CHECK(a.saturated == b.saturated);
    if (a.nonzero) CHECK((a.at_max && a.at_max_rate));
  }
}

TEST_CASE("history exact figures follow adds and prunes and judge like walks", "[rules][history]") {
  // Sweep after sweep, random deltas (often the same value, so maxima leave and stay) are
  // added and the history pruned: the exact figures it lends match a recount of the view,
  // and evaluate() with them gives what it gives walking copies. The shipped rules (the
  // longest window sums one counter, kept exact), and a variant whose longest window sums two
  // (one kept exact; that window is walked, the peers' sums of the other come from it).
  size_t verdicts = 0, exact_windows = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    auto rules = defaults();
    if (seed % 2)
      for (auto& r : rules.rules)
        if (r.type == rules::RuleType::error_counters)
          r.window_us = 12 * kSweep, r.counters = {{Counter::PortRcvErrors, 0, 4.0}};
    REQUIRE(std::popcount(rules::exact_counters(rules)) == (seed % 2 ? 2 : 1));
    std::mt19937 rng(seed);
    auto links = random_links(rng, 30);
    rules::History h(rules::longest_window(rules));
    h.track_exact(rules::exact_counters(rules));
    for (int sweep = 0; sweep < 30; ++sweep) {
      int64_t now = kNow + sweep * kSweep;
      for (const auto& l : links) {
        if (rng() % 3) continue;
        ingest::CounterDelta d;
        d.sample.node_guid = l.node_guid, d.sample.port = l.port;
        d.sample.time_us = now - (rng() % 8 == 0 ? kSweep / 2 : 0);  // some out of order
        d.valid = rng() % 6 ? ~0u : 0x1u;
        d.interval_us = rng() % 5 ? kSweep : 2 * kSweep;
        for (Counter c : {Counter::SymbolErrorCounter, Counter::PortRcvErrors,
                          Counter::LinkErrorRecoveryCounter})
          if (rng() % 2) d.delta[static_cast<size_t>(c)] = std::array{1, 300, 300, 5}[rng() % 4];
        if (rng() % 9 == 0) d.at_least = 1;
        h.add_delta(d);
      }
      if (sweep % 7 == 3) h.clear_port(links[rng() % links.size()].node_guid, 1);
      h.prune(now);
      auto lent = h.windows(links);
      for (const auto& w : lent)  // active once a walk wanted them (the sweep before)
        if (!w.delta_view.empty() && w.exact && w.exact->active) check_exact(w), ++exact_windows;
      verdicts += check_same_verdicts(rules, lent, now);
    }
  }
  CHECK(verdicts > 500);
  CHECK(exact_windows > 1000);
}

TEST_CASE("history entries found by guess or by index give the same windows", "[rules][history]") {
  // add_delta and windows() try the entry after the last one (and a peer's next to its own)
  // before the index: a history fed sweep by sweep in link order (guesses hit) and one fed
  // the same deltas shuffled (guesses miss) must lend the same windows.
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    auto links = random_links(rng, 30);
    std::vector<ingest::CounterDelta> deltas;
    for (int sweep = 0; sweep < 14; ++sweep) {
      std::set<std::pair<uint64_t, int>> fed;  // a duplicated link reads its port once
      for (const auto& l : links) {
        if (rng() % 4 == 0 || !fed.emplace(l.node_guid, l.port).second) continue;
        ingest::CounterDelta d;
        d.sample.node_guid = l.node_guid, d.sample.port = l.port;
        d.sample.time_us = kNow - (13 - sweep) * kSweep;
        d.valid = ~0u, d.interval_us = kSweep;
        d.delta[static_cast<size_t>(Counter::SymbolErrorCounter)] = 1 + rng() % 500;
        deltas.push_back(d);
      }
    }
    rules::History in_order(rules::longest_window(defaults())),
        shuffled(rules::longest_window(defaults()));
    for (const auto& d : deltas) in_order.add_delta(d);
    auto mixed = deltas;
    std::shuffle(mixed.begin(), mixed.end(), rng);
    for (const auto& d : mixed) shuffled.add_delta(d);
    for (auto* h : {&in_order, &shuffled}) h->prune(kNow);
    auto a = in_order.windows(links), b = shuffled.windows(links);
    REQUIRE(a.size() == b.size());
    REQUIRE(a.size() > links.size() / 2);
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].node_guid == b[i].node_guid);
      CHECK(a[i].port == b[i].port);
      REQUIRE(a[i].delta_view.size() == b[i].delta_view.size());
      for (size_t k = 0; k < a[i].delta_view.size(); ++k) {
        CHECK(a[i].delta_view[k].time_us == b[i].delta_view[k].time_us);
        CHECK(a[i].delta_view[k].delta == b[i].delta_view[k].delta);
      }
    }
    for (const auto& l : links) {  // and both agree with the index-only lookup
      CHECK(in_order.window(l).delta_view.size() == shuffled.window(l).delta_view.size());
      CHECK(in_order.has_data(l) == shuffled.has_data(l));
    }
  }
}

TEST_CASE("history windows of links that know their peers are those of links that do not",
          "[rules][history]") {
  // link_peers() lets windows() and evaluate() reach a peer by position (a topology lists
  // a link's two ends far apart). The windows, their order and the verdicts must not change,
  // each window's peer_at must name its peer, and a peer_index that names another port (a
  // list changed after link_peers) must be ignored, not trusted.
  auto rules = defaults();
  size_t checked = 0;
  for (unsigned seed = 1; seed <= 30; ++seed) {
    std::mt19937 rng(seed);
    auto links = random_links(rng, 40);
    rules::History h(rules::longest_window(rules));
    fill(rng, h, links);
    auto linked = links, stale = links;
    rules::link_peers(linked);
    for (auto& l : stale) l.peer_index = static_cast<uint32_t>(rng() % (links.size() + 2));
    auto plain = h.windows(links);
    for (const auto* list : {&linked, &stale}) {
      auto got = h.windows(*list);
      REQUIRE(got.size() == plain.size());
      for (size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i].node_guid == plain[i].node_guid);
        CHECK(got[i].port == plain[i].port);
        CHECK(got[i].delta_view.size() == plain[i].delta_view.size());
        CHECK(got[i].events.size() == plain[i].events.size());
        if (list != &linked || got[i].peer_at == UINT32_MAX) continue;
        REQUIRE(got[i].peer_at < got.size());
        CHECK(got[got[i].peer_at].node_guid == got[i].peer_guid);
        CHECK(got[got[i].peer_at].port == got[i].peer_port);
        ++checked;
      }
      check_equal(rules::evaluate(rules, plain, kNow), rules::evaluate(rules, got, kNow));
    }
    // Every link whose peer port is listed knows where: the first link of that port.
    for (const auto& l : linked) {
      if (l.peer_index == rules::LinkInfo::kNoPeerIndex) continue;
      const auto& p = linked[l.peer_index];
      CHECK((p.node_guid == l.peer_guid && p.port == l.peer_port));
      for (size_t j = 0; j < l.peer_index; ++j)
        CHECK_FALSE((linked[j].node_guid == l.peer_guid && linked[j].port == l.peer_port));
    }
  }
  CHECK(checked > 100);
}

TEST_CASE("history prune and clear keep the live port count", "[rules][history]") {
  rules::History h(10 * kSweep);
  ingest::CounterDelta d;
  d.valid = ~0u, d.interval_us = kSweep;
  d.delta[static_cast<size_t>(Counter::SymbolErrorCounter)] = 5;
  for (uint64_t g = 1; g <= 3000; ++g)
    for (int s = 0; s < 3; ++s) {
      d.sample.node_guid = g, d.sample.port = 1, d.sample.time_us = s * kSweep;
      CHECK(h.add_delta(d));
    }
  d.delta[static_cast<size_t>(Counter::SymbolErrorCounter)] = 0;
  d.delta[static_cast<size_t>(Counter::PortXmitData)] = 9;  // not an error counter
  CHECK_FALSE(h.add_delta(d));
  CHECK(h.ports() == 3000);
  h.clear_port(7, 1);
  CHECK(h.ports() == 2999);
  CHECK_FALSE(h.has_data({7, 1}));
  h.prune(10 * kSweep + 1);  // drops the first sweep of each
  CHECK(h.ports() == 2999);
  CHECK(h.window({8, 1}).delta_view.size() == 2);
  h.prune(13 * kSweep);  // everything: emptied ports are compacted away
  CHECK(h.ports() == 0);
  CHECK_FALSE(h.has_data({8, 1}));
  h.add_link_event(8, 1, 13 * kSweep, true);
  CHECK(h.ports() == 1);
  CHECK(h.window({8, 1}).events.size() == 1);
}

TEST_CASE("history keeps exact figures only for ports whose tracked counter rose",
          "[rules][history]") {
  const uint32_t tracked = rules::exact_counters(defaults());
  REQUIRE(std::popcount(tracked) >= 1);
  const size_t c = static_cast<size_t>(std::countr_zero(tracked));
  // Another error counter: its deltas make an entry, but no figures.
  const size_t other = c == static_cast<size_t>(Counter::PortRcvErrors)
                           ? static_cast<size_t>(Counter::SymbolErrorCounter)
                           : static_cast<size_t>(Counter::PortRcvErrors);
  rules::History h(10 * kSweep);
  h.track_exact(tracked);
  ingest::CounterDelta d;
  d.valid = ~0u, d.interval_us = kSweep;
  for (int s = 0; s < 3; ++s) {
    d.sample.time_us = s * kSweep;
    d.delta = {}, d.delta[other] = 7;
    d.sample.node_guid = 1, d.sample.port = 1;
    CHECK(h.add_delta(d));
    d.delta[c] = s == 1 ? 3 : 0;  // port 2/1: the tracked counter rises once
    d.sample.node_guid = 2;
    CHECK(h.add_delta(d));
  }
  CHECK(h.window({1, 1}).delta_view.size() == 3);
  CHECK(h.window({1, 1}).exact == nullptr);  // walks: its sums of the counter are 0
  auto w = h.window({2, 1});
  REQUIRE(w.exact != nullptr);
  CHECK_FALSE(w.exact->active);  // until a sum wants them
  w.exact->wanted = true;
  h.prune(2 * kSweep);
  w = h.window({2, 1});
  REQUIRE(w.exact != nullptr);
  REQUIRE(w.exact->active);  // over every delta of the view, the zeros before the rise too
  CHECK(w.exact->deltas == 3);
  CHECK(w.exact->find(c)->samples == 3);
  CHECK(w.exact->find(c)->nonzero == 1);
  CHECK(w.exact->find(c)->max_delta == 3);
  h.clear_port(2, 1);
  h.add_delta(d);                            // (d: port 2/1, the tracked counter 0)
  CHECK(h.window({2, 1}).exact == nullptr);  // freed with the port's entry
}

TEST_CASE("history floor after a repair drops what began before it", "[rules][history]") {
  rules::History h(10 * kSweep);
  ingest::CounterDelta d;
  d.valid = ~0u, d.interval_us = kSweep;
  d.delta[static_cast<size_t>(Counter::PortRcvErrors)] = 19;
  d.sample.node_guid = 7, d.sample.port = 3;
  d.sample.time_us = 2 * kSweep;
  CHECK(h.add_delta(d));
  h.add_link_event(7, 3, 2 * kSweep, true);
  // Repaired (enabled) half-way through the next sweep interval.
  int64_t repaired = 2 * kSweep + kSweep / 2;
  h.set_floor(7, 3, repaired);
  CHECK(h.floor_of(7, 3) == repaired);
  CHECK_FALSE(h.has_data({7, 3}));
  // The first reading after the enable: its interval began while the port was disabled.
  d.sample.time_us = 3 * kSweep;
  CHECK_FALSE(h.add_delta(d));
  h.add_link_event(7, 3, repaired - 1, false);  // a link event from before the repair
  CHECK_FALSE(h.has_data({7, 3}));
  // Readings wholly after the repair count again; other ports were never affected.
  d.sample.time_us = 4 * kSweep;
  CHECK(h.add_delta(d));
  h.add_link_event(7, 3, repaired + 1, true);
  CHECK(h.window({7, 3}).delta_view.size() == 1);
  CHECK(h.window({7, 3}).events.size() == 1);
  d.sample.port = 4, d.sample.time_us = 3 * kSweep;
  CHECK(h.add_delta(d));
  // A later repair moves the floor; an earlier one does not move it back.
  h.set_floor(7, 3, repaired - kSweep);
  CHECK(h.floor_of(7, 3) == repaired);
  // The floor ends with the keep window.
  h.prune(repaired + 10 * kSweep + 1);
  CHECK(h.floor_of(7, 3) == 0);
}

TEST_CASE("history add_deltas of a batch far larger than the history keeps what add_delta keeps",
          "[rules][history]") {
  // add_deltas makes room first when its batch dwarfs the history (a first scrape of a large
  // fabric): the kept deltas, counts and windows must be those of add_delta one at a time.
  std::mt19937 rng(11);
  auto links = random_links(rng, 3000);  // about 12,600 links: above the batch size for room
  for (bool xmit_wait : {false, true}) {
    INFO("keep_xmit_wait " << xmit_wait);
    rules::History one(rules::longest_window(defaults())), batch(rules::longest_window(defaults()));
    for (auto* h : {&one, &batch}) {
      h->keep_xmit_wait(xmit_wait);
      h->add_link_event(links[5].node_guid, links[5].port, kNow - kSweep, true);  // entries
      h->add_link_event(links[9].node_guid, links[9].port, kNow - kSweep, false);
      h->set_floor(links[7].node_guid, links[7].port, kNow);  // its delta began before
    }
    size_t kept_one = 0, kept_batch = 0;
    for (int sweep = 0; sweep < 3; ++sweep) {
      std::vector<ingest::CounterDelta> deltas;
      for (const auto& l : links) {
        ingest::CounterDelta d;
        d.sample.node_guid = l.node_guid, d.sample.port = l.port;
        d.sample.time_us = kNow - (2 - sweep) * kSweep;
        d.valid = rng() % 9 ? ~0u : 0u, d.interval_us = kSweep;
        const auto r = rng() % 10;
        if (r == 0) d.delta[static_cast<size_t>(Counter::SymbolErrorCounter)] = 1 + rng() % 50;
        if (r == 1) d.delta[static_cast<size_t>(Counter::PortXmitWait)] = 1 + rng() % 5000;
        d.delta[static_cast<size_t>(Counter::PortXmitData)] = 1000;  // not an error
        deltas.push_back(d);
      }
      for (const auto& d : deltas) kept_one += one.add_delta(d);
      kept_batch += batch.add_deltas(deltas);
      CHECK(kept_batch == kept_one);
      CHECK(batch.ports() == one.ports());
    }
    CHECK(kept_one > links.size() / 20);
    const auto a = one.windows(links), b = batch.windows(links);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].node_guid == b[i].node_guid);
      CHECK(a[i].port == b[i].port);
      CHECK(a[i].events.size() == b[i].events.size());
      REQUIRE(a[i].delta_view.size() == b[i].delta_view.size());
      for (size_t k = 0; k < a[i].delta_view.size(); ++k) {
        CHECK(a[i].delta_view[k].time_us == b[i].delta_view[k].time_us);
        CHECK(a[i].delta_view[k].delta == b[i].delta_view[k].delta);
      }
    }
    CHECK(batch.window(links[7]).delta_view.empty());  // the floor held in both
  }
}

TEST_CASE("history drops deltas kept only for PortXmitWait after the congestion window",
          "[rules][history]") {
  const auto rules = defaults();
  CHECK(rules::xmit_wait_window(rules) == kSweep);  // congestion: 1m
  rules::History h(rules::longest_window(rules));   // symbol_ber: 12m
  h.keep_xmit_wait(true, rules::xmit_wait_window(rules));
  rules::History whole(rules::longest_window(rules));  // the same, waits kept as long
  whole.keep_xmit_wait(true);
  for (auto* x : {&h, &whole}) x->track_exact(rules::exact_counters(rules));
  auto delta = [](int port, int64_t t, bool symbol) {
    ingest::CounterDelta d;
    d.sample.node_guid = 0x10, d.sample.port = port, d.sample.time_us = t;
    d.valid = ~0u, d.interval_us = kSweep;
    d.delta[static_cast<size_t>(Counter::PortXmitWait)] = 1000;
    if (symbol) d.delta[static_cast<size_t>(Counter::SymbolErrorCounter)] = 100'000;
    d.delta[static_cast<size_t>(Counter::PortRcvRemotePhysicalErrors)] = 3;  // no rule reads it
    return d;
  };
  std::vector<rules::LinkInfo> links;
  for (int port : {1, 2, 3, 4}) links.push_back({0x10, port});
  int64_t now = kNow;
  for (int sweep = 0; sweep < 8; ++sweep, now += kSweep)
    for (auto* x : {&h, &whole}) {
      x->add_delta(delta(1, now, false));           // waits only
      x->add_delta(delta(2, now, sweep == 2));      // an error in sweep 2, waits around it
      x->add_delta(delta(3, now, sweep % 2 == 0));  // errors every other sweep
      if (sweep >= 1 && sweep <= 4) x->add_delta(delta(4, now, sweep == 1));  // then idle
      x->prune(now);
      rules::evaluate(rules, x->windows(links), now);  // the sums ask for exact figures
    }
  now -= kSweep;  // the last sweep's time
  auto times = [&](rules::History& x, int port) {
    std::vector<int64_t> out;
    for (const auto& d : x.window({0x10, port}).delta_view)
      out.push_back((now - d.time_us) / kSweep);
    return out;
  };
  CHECK(times(whole, 1) == std::vector<int64_t>{7, 6, 5, 4, 3, 2, 1, 0});
  CHECK(times(h, 1) == std::vector<int64_t>{0});  // only what congestion's 1m window holds
  // Behind a delta with errors too: the errors, and the waits of the last minute.
  CHECK(times(h, 2) == std::vector<int64_t>{5, 0});
  CHECK(times(h, 3) == std::vector<int64_t>{7, 5, 3, 1, 0});
  CHECK(times(h, 4) == std::vector<int64_t>{6});  // its last deltas went: exact figures renewed
  // The figures lent with the windows match the deltas left (symbol_ber fires on 2, 3, 4).
  CHECK(check_same_verdicts(rules, h.windows(links), now) >= 3);
  // What symbol_ber sums over 12 minutes is the same.
  for (int port : {1, 2, 3, 4}) {
    uint64_t a = 0, b = 0;
    for (const auto& d : h.window({0x10, port}).delta_view)
      a += d.delta[static_cast<size_t>(Counter::SymbolErrorCounter)];
    for (const auto& d : whole.window({0x10, port}).delta_view)
      b += d.delta[static_cast<size_t>(Counter::SymbolErrorCounter)];
    CHECK(a == b);
  }
  // An error_counters rule that names PortXmitWait looks back its own window.
  auto longer = rules;
  for (auto& r : longer.rules)
    if (r.type == rules::RuleType::error_counters) {
      r.window_us = 5 * kSweep;
      r.counters.push_back({Counter::PortXmitWait, 1, 0});
    }
  CHECK(rules::xmit_wait_window(longer) == 5 * kSweep);
}

TEST_CASE("an error_counters rule on PortXmitWait alone sees deltas where only waits rose",
          "[rules][history]") {
  // No congestion rule: the wait-only deltas are still kept for the error_counters rule.
  rules::RuleSet set;
  rules::Rule r;
  r.name = "waits", r.type = rules::RuleType::error_counters, r.action = rules::Action::none;
  r.window_us = 5 * kSweep;
  r.counters.push_back({Counter::PortXmitWait, 3000, 0});
  set.rules.push_back(r);
  CHECK(rules::event_needs(set).xmit_wait);
  auto off = set;
  off.rules[0].enabled = false;
  CHECK_FALSE(rules::event_needs(off).xmit_wait);
  rules::History h(rules::longest_window(set));  // as RuleRunner sets it up
  h.keep_xmit_wait(rules::event_needs(set).xmit_wait, rules::xmit_wait_window(set));
  rules::LinkInfo link{0x10, 1};
  int64_t now = kNow;
  for (int sweep = 0; sweep < 4; ++sweep, now += kSweep) {
    ingest::CounterDelta d;
    d.sample.node_guid = 0x10, d.sample.port = 1, d.sample.time_us = now;
    d.valid = ~0u, d.interval_us = kSweep;
    d.delta[static_cast<size_t>(Counter::PortXmitWait)] = 1000;
    CHECK(h.add_delta(d));
  }
  h.prune(now);
  auto v = rules::evaluate(set, h.windows({link}), now);
  REQUIRE(v.size() == 1);  // 4,000 waits over the window, over the rule's 3,000
  CHECK(v[0].rule == "waits");
}

}  // namespace rules_history_test
