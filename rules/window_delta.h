// What rule windows keep of one port's sweep (WindowDelta) and the bounds rules::History keeps
// over a port's deltas (DeltaBounds). rules::History holds one WindowDelta per erroring port
// per sweep for the longest rule window, so this is what a fabric with errors everywhere costs
// in memory and in the walks of every sweep: it holds only the counters some rule reads.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "fabric/speed.h"
#include "ingest/counter_tracker.h"
#include "rules/rules.h"

namespace ibw::rules {

// v per second over interval_us (0 when the interval is unknown): every rate the rules compare
// with a limit (rates, wait ratios, the history's wait floor) is this one.
inline double per_second(uint64_t v, int64_t interval_us) {
  return interval_us > 0 ? static_cast<double>(v) * 1e6 / static_cast<double>(interval_us) : 0.0;
}

// The link rate congestion rules measure waits against: active lanes x the lane's bits/s
// (0 when the speed is unknown).
inline double link_bps(int width, fabric::Speed speed) {
  return fabric::lane_gbps(speed) * 1e9 * width;
}

// The share of the link's time a PortXmitWait rate (ticks per second) stands for: rate x
// tick_bits / link_bps, uncapped; 0 when the link rate is unknown. wait_rate_at is its inverse:
// the rate whose share is `ratio`.
inline double wait_share(double ticks_per_s, double tick_bits, double link) {
  return link > 0 ? ticks_per_s * tick_bits / link : 0.0;
}
inline double wait_rate_at(double ratio, double tick_bits, double link) {
  return tick_bits > 0 ? ratio * link / tick_bits : 0.0;
}

// The deltas of the counters rules read, addressed by counter index (ingest::Counter) as
// CounterDelta's are: symbol_errors, link_flap, error_counters (kRuleCounters) and congestion.
// Any other counter reads 0 and set() drops it. 64 bytes against 136 for every counter.
class WindowCounters {
 public:
  static constexpr std::array<ingest::Counter, 8> kStored = {
      ingest::Counter::SymbolErrorCounter,
      ingest::Counter::LinkErrorRecoveryCounter,
      ingest::Counter::LinkDownedCounter,
      ingest::Counter::PortRcvErrors,
      ingest::Counter::PortXmitDiscards,
      ingest::Counter::LocalLinkIntegrityErrors,
      ingest::Counter::ExcessiveBufferOverrunErrors,
      ingest::Counter::PortXmitWait};
  static constexpr int kNone = -1;
  // The slot counter index c is kept in, kNone when it is not kept.
  static constexpr int slot_of(size_t c) { return c < kSlot.size() ? kSlot[c] : kNone; }
  static constexpr bool stored(size_t c) { return slot_of(c) != kNone; }

  uint64_t operator[](size_t c) const {
    int s = slot_of(c);
    return s == kNone ? 0 : v_[static_cast<size_t>(s)];
  }
  void set(size_t c, uint64_t v) {
    if (int s = slot_of(c); s != kNone) v_[static_cast<size_t>(s)] = v;
  }
  // By slot (0 .. kStored.size()): the delta of kStored[s].
  uint64_t at_slot(size_t s) const { return v_[s]; }
  uint64_t& at_slot(size_t s) { return v_[s]; }
  bool operator==(const WindowCounters&) const = default;

 private:
  static constexpr std::array<int8_t, ingest::kCounterCount> kSlot = [] {
    std::array<int8_t, ingest::kCounterCount> t{};
    t.fill(kNone);
    for (size_t s = 0; s < kStored.size(); ++s)
      t[static_cast<size_t>(kStored[s])] = static_cast<int8_t>(s);
    return t;
  }();
  std::array<uint64_t, kStored.size()> v_{};
};

// kStored is in counter order (DeltaBounds takes its first slots as the counters it bounds).
inline constexpr bool stored_in_order() {
  for (size_t s = 1; s < WindowCounters::kStored.size(); ++s)
    if (WindowCounters::kStored[s - 1] >= WindowCounters::kStored[s]) return false;
  return true;
}
static_assert(stored_in_order(), "WindowCounters::kStored must be in counter order");

// Every counter an error_counters rule may name is kept.
inline constexpr bool keeps_rule_counters() {
  for (auto c : kRuleCounters)
    if (!WindowCounters::stored(static_cast<size_t>(c))) return false;
  return true;
}
static_assert(keeps_rule_counters(), "a counter rules may name is not kept in WindowDelta");

// One sweep of one port as rule windows use it: the sweep's time, the deltas of the counters
// rules read and every counter's flags; the rate is delta / interval, as
// ingest::CounterTracker computes it. 88 bytes against CounterDelta's 570 (which also carries
// the raw reading, the rates and the counters no rule reads).
struct WindowDelta {
  int64_t time_us = 0;
  int64_t interval_us = 0;
  uint32_t valid = 0;     // bit i (counter index): delta i is known
  uint32_t at_least = 0;  // bit i: saturated, the true delta may be larger
  WindowCounters delta;

  static WindowDelta of(const ingest::CounterDelta& d) {
    WindowDelta w{d.sample.time_us, d.interval_us, d.valid, d.at_least, {}};
    for (size_t s = 0; s < WindowCounters::kStored.size(); ++s)
      w.delta.at_slot(s) = d.delta[static_cast<size_t>(WindowCounters::kStored[s])];
    return w;
  }
  double rate(size_t i) const { return rate_of(delta[i]); }
  double rate_of(uint64_t v) const { return per_second(v, interval_us); }
};

// Upper bounds of what a set of deltas can add up to, per counter rules read (those up to
// ExcessiveBufferOverrunErrors), over the deltas where the counter is valid (as window sums
// count them): the sum (exact, or UINT64_MAX once it may have overflowed), the largest
// single delta and the largest per-sweep rate. rules::History keeps one per port over every
// delta it holds (a superset of any rule window), so evaluate() can pass over a rule that
// cannot fire without walking the deltas: on a fabric with errors below every threshold
// nearly all ports are such.
struct DeltaBounds {
  static constexpr size_t kCounters =
      static_cast<size_t>(ingest::Counter::ExcessiveBufferOverrunErrors) + 1;
  // The slots of WindowCounters below kCounters (kStored is in counter order).
  static constexpr size_t kSlots = [] {
    size_t n = 0;
    for (auto c : WindowCounters::kStored) n += static_cast<size_t>(c) < kCounters;
    return n;
  }();
  // One figure per counter, read by counter index (0 for a counter not kept), held by slot:
  // 176 bytes of bounds per port instead of 272.
  template <typename T>
  class PerCounter {
   public:
    T operator[](size_t c) const {
      int s = WindowCounters::slot_of(c);
      return s == WindowCounters::kNone || static_cast<size_t>(s) >= kSlots
                 ? T{}
                 : v_[static_cast<size_t>(s)];
    }
    T& slot(size_t s) { return v_[s]; }

   private:
    std::array<T, kSlots> v_{};
  };
  PerCounter<uint64_t> total;
  PerCounter<uint64_t> max_delta;
  PerCounter<double> max_rate;
  // The largest PortXmitWait rate (ticks per second of a delta's interval) of the valid
  // deltas added, rounded up to a float (stays, a bound; it fits where a flag was): a
  // congestion rule's wait ratio is at most this rate x tick bits / link rate, so a busy
  // fabric whose ports all wait a little is passed over without reading each port's deltas.
  float max_wait_rate = 0;
  // Deltas in the set where no bounded counter rose (kept for PortXmitWait, which congestion
  // rules read over a shorter window): History::prune looks for them only when there are any.
  uint32_t only_wait = 0;

  // No bounded counter rose in d (the one test History and these bounds share): what a
  // delta kept only for PortXmitWait looks like, as the stored counters but PortXmitWait are
  // exactly the bounded ones.
  static_assert(kSlots + 1 == WindowCounters::kStored.size() &&
                WindowCounters::kStored.back() == ingest::Counter::PortXmitWait);
  static bool waits_only(const WindowDelta& d) {
    for (size_t s = 0; s < kSlots; ++s) {
      auto i = static_cast<size_t>(WindowCounters::kStored[s]);
      if (d.delta.at_slot(s) && (d.valid >> i & 1u)) return false;
    }
    return true;
  }
  void add(const WindowDelta& d) {
    constexpr auto kWait = static_cast<size_t>(ingest::Counter::PortXmitWait);
    if (d.delta[kWait] && (d.valid >> kWait & 1u)) {
      double r = d.rate(kWait);
      auto f = static_cast<float>(r);
      if (static_cast<double>(f) < r) f = std::nextafter(f, std::numeric_limits<float>::infinity());
      max_wait_rate = std::max(max_wait_rate, f);
    }
    bool rose = false;  // waits_only(d) is !rose, found in the same pass
    for (size_t s = 0; s < kSlots; ++s) {
      auto i = static_cast<size_t>(WindowCounters::kStored[s]);
      uint64_t v = d.delta.at_slot(s);
      if (!v || !(d.valid >> i & 1u)) continue;
      rose = true;
      uint64_t& sum = total.slot(s);
      sum = sum + v < sum ? UINT64_MAX : sum + v;
      max_delta.slot(s) = std::max(max_delta.slot(s), v);
      max_rate.slot(s) = std::max(max_rate.slot(s), d.rate_of(v));
    }
    only_wait += !rose;
  }
  // d left the set: the sums shrink (a saturated sum stays), the maxima stay (still bounds).
  void remove(const WindowDelta& d) {
    only_wait -= waits_only(d);
    for (size_t s = 0; s < kSlots; ++s) {
      auto i = static_cast<size_t>(WindowCounters::kStored[s]);
      if (total.slot(s) != UINT64_MAX && (d.valid >> i & 1u)) total.slot(s) -= d.delta.at_slot(s);
    }
  }
};

}  // namespace ibw::rules
