// Private to rules/ (evaluate.cpp): window sums of counter deltas. Sum is one counter over
// one rule window; EvalCache computes, once per evaluated port, every (window, counter) pair
// the rules read, in one pass over the port's deltas per window, and keeps the symbol_errors
// explanation parts that depend only on the rule and the port's rate.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "rules/eval_text.h"
#include "rules/evaluate.h"

namespace ibw::rules::eval_detail {

using ingest::Counter;

inline constexpr unsigned bit(Counter c) {
  return 1u << static_cast<unsigned>(c);
}
inline bool in_window(int64_t t, int64_t now, int64_t window) {
  return t <= now && t > now - window;
}

// One counter's deltas in the window (kept small: it is computed for every port).
struct Sum {
  uint64_t total = 0, max_delta = 0;
  double max_rate = 0;
  int samples = 0;
  bool at_least = false;
  int64_t last_time = 0;  // latest sample with a non-zero delta
};
// The deltas of p that can lie in (now - window, now]. History's view (delta_view) is
// time-ordered, so its bounds are found by binary search unless it lies wholly in the window
// (a linear walk from the end read every delta of a long window once more); hand-made
// `deltas` are taken whole.
inline std::span<const WindowDelta> window_deltas(const PortWindow& p, int64_t now,
                                                  int64_t window) {
  if (p.delta_view.empty()) return p.deltas;
  auto ds = p.delta_view;
  // Usually the whole view (a History window spans the longest rule window): the first and
  // the last delta are read at once, where a search would wait on one read after another.
  if (ds.front().time_us > now - window && ds.back().time_us <= now) return ds;
  auto hi = std::partition_point(ds.begin(), ds.end(),
                                 [&](const WindowDelta& d) { return d.time_us <= now; });
  auto lo = std::partition_point(ds.begin(), hi,
                                 [&](const WindowDelta& d) { return d.time_us <= now - window; });
  return {lo, hi};
}
// The window sum of counter index i from p's exact figures (History's windows), when the
// window spans every delta of the view and the figures hold i: no walk. False otherwise.
inline bool exact_sum(const PortWindow& p, size_t i, int64_t now, int64_t window, Sum* out) {
  if (!p.exact || !p.bounds || !p.exact_totals || i >= DeltaBounds::kCounters) return false;
  const ExactStats& x = *p.exact;
  const ExactStats::Slot* s = x.find(i);
  if (!s || p.bounds->total[i] == UINT64_MAX) return false;  // a walk's sum would wrap
  // The view lies in the window when its first and last delta do (time-ordered).
  auto spans = [&](int64_t first, int64_t last) {
    return in_window(first, now, window) && in_window(last, now, window);
  };
  if (!x.active) {  // walked this time; kept from the next prune on when it would serve
    auto ds = p.delta_view;
    if (!ds.empty() && spans(ds.front().time_us, ds.back().time_us)) x.wanted = true;
    return false;
  }
  if (!x.deltas || !spans(x.first, x.last)) return false;
  *out = Sum{p.bounds->total[i],           s->max_delta,     s->max_rate,
             static_cast<int>(s->samples), s->saturated > 0, s->last_time};
  return true;
}
inline Sum counter_sum(const PortWindow& p, Counter c, int64_t now, int64_t window) {
  Sum sum;
  size_t i = static_cast<size_t>(c);
  if (exact_sum(p, i, now, window, &sum)) return sum;
  for (const auto& d : window_deltas(p, now, window)) {
    if (!(d.valid & bit(c)) || !in_window(d.time_us, now, window)) continue;
    ++sum.samples;
    sum.total += d.delta[i];
    sum.max_delta = std::max(sum.max_delta, d.delta[i]);
    sum.max_rate = std::max(sum.max_rate, d.rate(i));
    if (d.at_least & bit(c)) sum.at_least = true;
    if (d.delta[i]) sum.last_time = std::max(sum.last_time, d.time_us);
  }
  return sum;
}
// What one evaluate() call computes once and reuses. The sums of one port (the one being
// evaluated): one pass over its deltas per rule window for every counter the rules read in
// that window, where the rules ask counter by counter; other ports (the peer) and other
// (counter, window) pairs are summed directly. And the last symbol_errors explanation parts
// that depend only on the rule and the port's rate (most ports of a fabric share a rate).
class EvalCache {
 public:
  explicit EvalCache(const RuleSet& rules) {
    for (const auto& r : rules.rules) {
      if (!r.enabled) continue;
      if (r.type == RuleType::symbol_errors) need(r.window_us, Counter::SymbolErrorCounter);
      if (r.type == RuleType::link_flap || r.confirm == Confirm::errors_and_flap)
        need(r.window_us, Counter::LinkDownedCounter);
      if (r.type == RuleType::error_counters)
        for (const auto& lim : r.counters) need(r.window_us, lim.counter);
    }
  }
  void reset(const PortWindow* p) {
    port_ = p;
    for (auto& w : windows_) w.done = false;
  }
  // " symbol errors in 12m on 4xHDR: BER " and " >= 1e-12" for rule r on port p.
  const std::pair<std::string, std::string>& symbol_text(const Rule& r, const PortWindow& p,
                                                         double limit) {
    if (text_rule_ != &r || text_width_ != p.active_width || text_speed_ != p.active_speed) {
      text_rule_ = &r, text_width_ = p.active_width, text_speed_ = p.active_speed;
      text_.first = " symbol errors in " + duration_text(r.window_us) + " on " +
                    fabric::rate_name(p.active_width, p.active_speed) + ": BER ";
      text_.second = " >= " + fmt(std::chars_format::scientific, 0, limit);
    }
    return text_;
  }
  Sum get(const PortWindow& p, Counter c, int64_t now, int64_t window) {
    if (&p == port_)
      for (auto& w : windows_)
        if (w.window_us == window && (w.mask & bit(c))) {
          if (!w.done || w.now != now) fill(w, p, now);
          return w.sums[static_cast<size_t>(c)];
        }
    return counter_sum(p, c, now, window);
  }

 private:
  struct Window {
    int64_t window_us = 0;
    uint32_t mask = 0;  // counters summed
    bool done = false;
    int64_t now = 0;
    std::array<Sum, ingest::kCounterCount> sums{};
  };
  void need(int64_t window, Counter c) {
    for (auto& w : windows_)
      if (w.window_us == window) return void(w.mask |= bit(c));
    windows_.push_back({window, bit(c)});
  }
  // counter_sum for every counter of w.mask at once (same updates, same order).
  static void fill(Window& w, const PortWindow& p, int64_t now) {
    w.done = true, w.now = now;
    bool exact = true;  // every sum from the exact figures, or a walk
    for (uint32_t m = w.mask; m && exact; m &= m - 1) {
      auto i = static_cast<size_t>(std::countr_zero(m));
      exact = exact_sum(p, i, now, w.window_us, &w.sums[i]);
    }
    if (exact) return;
    for (uint32_t m = w.mask; m; m &= m - 1) w.sums[std::countr_zero(m)] = Sum{};
    for (const auto& d : window_deltas(p, now, w.window_us)) {
      if (!in_window(d.time_us, now, w.window_us)) continue;
      for (uint32_t m = d.valid & w.mask; m; m &= m - 1) {
        auto i = static_cast<size_t>(std::countr_zero(m));
        Sum& sum = w.sums[i];
        ++sum.samples;
        if (d.at_least & (1u << i)) sum.at_least = true;
        if (!d.delta[i]) continue;  // adds nothing: rate 0, not the latest non-zero sample
        sum.total += d.delta[i];
        sum.max_delta = std::max(sum.max_delta, d.delta[i]);
        sum.max_rate = std::max(sum.max_rate, d.rate(i));
        sum.last_time = std::max(sum.last_time, d.time_us);
      }
    }
  }
  std::vector<Window> windows_;
  const PortWindow* port_ = nullptr;
  const Rule* text_rule_ = nullptr;  // symbol_text's key
  int text_width_ = 0;
  fabric::Speed text_speed_ = fabric::Speed::unknown;
  std::pair<std::string, std::string> text_;
};

}  // namespace ibw::rules::eval_detail
