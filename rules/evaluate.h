// Pure rule evaluation: a RuleSet over per-port windows of recent counter deltas and link
// events gives verdicts. No I/O and no clock: `now_us` and every time come from the caller.
//
// Semantics (one verdict per firing rule and port; error_counters one per firing counter):
//  - symbol_errors: BER = SymbolErrorCounter deltas in (now - window, now] /
//    (lane_gbps(active speed) * 1e9 * active lanes * window seconds). The configured window,
//    not the observed span, is the denominator: a short history cannot inflate the estimate,
//    so the test is a per-speed count per window (NDR 4x, 12m, BER 1e-14 = 3.06 errors).
//    Fires at BER >= the speed's threshold, or when one sweep's delta >= jump. Saturated
//    deltas count as their value and are marked at_least.
//  - link_flap: flaps in the window >= cycles. Flap counting (never double counts one flap):
//      a) link_down events: this port's own downs each count (one end cannot go down twice
//         without coming up); a far-end down (the peer window's own events, or this window's
//         from_peer events when no peer window is given) counts only when no own down lies
//         within kFlapMergeUs of it (each end reports the same drop), matched one to one;
//      b) LinkDownedCounter deltas summed per end; both ends count the same drop, so the
//         counter estimate is the larger end's sum, never the total;
//      flaps = max(a, b): events and counters see the same flaps, so they are not added.
//  - link_degraded: active lanes or speed below the plan and/or enabled expectation (`below`);
//    unknown (0) expectations are skipped.
//  - error_counters: {delta: N} sums the window's deltas; {rate_per_s: X} takes the highest
//    single-sweep rate in the window.
//  - ufm_high_ber: UFM's own verdict. Fires when a high_ber event (UFM 917/918 or the port's
//    high_ber_severity) with severity >= min_severity lies in the window and no
//    high_ber_cleared of the port follows it (a cleared event drops every high_ber before
//    it; same-time events keep their arrival order). The evidence lists those events.
//  - congestion (report only, never acted on): per sweep in the window, the wait ratio =
//    PortXmitWait delta * wait_tick_bits / (active link rate * interval) (capped at 1; see
//    kDefaultWaitTickBits in rules/rules.h for the tick) and the PortXmitDiscards rate. Fires
//    when the highest ratio >= wait_ratio or the highest discard rate >= discards_per_s;
//    evidence: that ratio, the bandwidth lost (ratio * link rate, Gb/s), the discards. Only
//    sweeps read after the link's last link_down / link_up (either end) count.
//  - confirm both_ends: the peer's window (found by peer_guid/peer_port) fires the same rule;
//    errors_and_flap: at least one flap (as above) in the rule's window.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/speed.h"
#include "ingest/counter_tracker.h"
#include "ingest/event.h"
#include "rules/rules.h"
#include "rules/window_delta.h"

namespace ibw::rules {

inline constexpr int64_t kFlapMergeUs = 10'000'000;  // netfix's 10 s skew (prior-art 3.2)

struct LinkEvent {
  int64_t time_us = 0;
  bool down = true;        // link_down; false: link_up
  bool from_peer = false;  // reported by the far end
};

// A UFM BER verdict about one port (ufm_high_ber): a high_ber event, or high_ber_cleared.
struct BerEvent {
  int64_t time_us = 0;
  bool cleared = false;  // high_ber_cleared
  ingest::Severity severity = ingest::Severity::warning;
  ingest::EventSource source = ingest::EventSource::ufm;
  std::string message;
};

// Exact figures of a few counters over every delta a port's view holds, kept up to date by
// rules::History as deltas come and go (the counters the rules sum over their longest window,
// History::track_exact). A rule window that spans the whole view then takes its sum from here
// instead of walking the deltas: on a fabric failing everywhere that walk was a quarter of
// the sweep. The maxima stay exact under removal by counting the deltas that reach them; when
// the last of those leaves, History recomputes them from the view.
// Kept only for ports that need them: keeping them costs every sweep too (on a fabric with
// errors below every threshold no window is summed at all). A port's figures start inactive;
// a window sum that could have used them marks them wanted (evaluate() walks that time), and
// History's next prune computes them and keeps them from then on. History holds them apart
// from a port's entry, and only for ports that had a non-zero delta of the counter.
struct ExactStats {
  // One counter (the shipped rules sum one over their longest window; more would make every
  // port's entry larger, and the walks of the rest stay exact). Raise it with care: History
  // prunes every entry every sweep, and this is read there.
  static constexpr size_t kSlots = 1;
  static constexpr uint8_t kUnused = 0xff;
  struct Slot {  // one counter, over its valid deltas (as window sums count them)
    uint64_t max_delta = 0;
    double max_rate = 0;
    int64_t last_time = 0;     // latest non-zero delta, 0 when none
    uint32_t samples = 0;      // valid deltas
    uint32_t nonzero = 0;      // valid non-zero deltas
    uint32_t saturated = 0;    // valid deltas marked at_least
    uint32_t at_max = 0;       // non-zero deltas equal to max_delta
    uint32_t at_max_rate = 0;  // non-zero deltas whose rate equals max_rate
  };
  std::array<uint8_t, kSlots> counter{kUnused};  // the counter index of each slot
  bool active = false;                           // the slots hold the figures
  mutable bool wanted = false;  // set by a sum that walked for want of them (a hint)
  uint32_t deltas = 0;          // in the view; first and last: the times of its two ends, so
  int64_t first = 0, last = 0;  // that a sum need not read them (a cache miss per port)
  std::array<Slot, kSlots> slot{};

  // The slot of counter index c, nullptr when not tracked.
  const Slot* find(size_t c) const {
    for (size_t k = 0; k < kSlots; ++k)
      if (counter[k] == c) return &slot[k];
    return nullptr;
  }
  void clear() { slot = {}, deltas = 0, first = last = 0; }
  void add(const WindowDelta& d) {
    first = deltas ? std::min(first, d.time_us) : d.time_us;
    last = deltas++ ? std::max(last, d.time_us) : d.time_us;
    for (size_t k = 0; k < kSlots && counter[k] != kUnused; ++k) {
      size_t i = counter[k];
      if (!(d.valid >> i & 1u)) continue;
      Slot& s = slot[k];
      ++s.samples;
      s.saturated += d.at_least >> i & 1u;
      uint64_t v = d.delta[i];
      if (!v) continue;
      ++s.nonzero;
      s.last_time = std::max(s.last_time, d.time_us);
      if (v > s.max_delta)
        s.max_delta = v, s.at_max = 1;
      else if (v == s.max_delta)
        ++s.at_max;
      double r = d.rate(i);
      if (r > s.max_rate)
        s.max_rate = r, s.at_max_rate = 1;
      else if (r == s.max_rate)
        ++s.at_max_rate;
    }
  }
  // d, the oldest delta of the view, left it (History prunes oldest first, so the latest
  // non-zero time stays while any non-zero delta does); `next_first` is the time of the
  // view's first delta now. False when a maximum left with d: then the slots must be rebuilt
  // over the view.
  bool remove(const WindowDelta& d, int64_t next_first) {
    bool exact = true;
    if (--deltas == 0) next_first = 0, last = 0;
    first = next_first;
    for (size_t k = 0; k < kSlots && counter[k] != kUnused; ++k) {
      size_t i = counter[k];
      if (!(d.valid >> i & 1u)) continue;
      Slot& s = slot[k];
      --s.samples;
      s.saturated -= d.at_least >> i & 1u;
      uint64_t v = d.delta[i];
      if (!v) continue;
      if (--s.nonzero == 0) {  // no non-zero delta left: no maxima, no latest time
        s.max_delta = 0, s.max_rate = 0, s.last_time = 0, s.at_max = s.at_max_rate = 0;
        continue;
      }
      s.at_max -= v == s.max_delta;
      s.at_max_rate -= d.rate(i) == s.max_rate;
      exact &= s.at_max && s.at_max_rate;
    }
    return exact;
  }
};

struct PortWindow {
  uint64_t node_guid = 0;
  int port = 0;
  uint64_t peer_guid = 0;  // 0 when the peer is unknown
  int peer_port = 0;
  // Optional (rules::History::windows sets it when its links know their peers): where the
  // peer's window is in the same vector. evaluate() checks it names the peer, else looks.
  uint32_t peer_at = UINT32_MAX;
  int active_width = 0;  // lanes
  fabric::Speed active_speed = fabric::Speed::unknown;
  int plan_width = 0;  // 0 / unknown when not known
  fabric::Speed plan_speed = fabric::Speed::unknown;
  int enabled_width = 0;  // best both ends have enabled
  fabric::Speed enabled_speed = fabric::Speed::unknown;
  std::vector<WindowDelta> deltas;  // time-ordered by time_us
  // When not empty, used instead of `deltas`: a view of deltas kept elsewhere (rules::History
  // lends its own, so a sweep over 100k ports copies none). Must outlive evaluate().
  std::span<const WindowDelta> delta_view;
  std::vector<LinkEvent> events;     // time-ordered
  std::vector<BerEvent> ber_events;  // this port's own, time-ordered (arrival order on ties)
  // Optional (rules::History sets it with delta_view): bounds over at least every delta of
  // the window. nullptr: evaluate() walks the deltas for every rule.
  const DeltaBounds* bounds = nullptr;
  // True when `bounds` were taken over exactly the deltas of delta_view (History's are): then
  // a total below UINT64_MAX is the window sum of a window that spans every one of them, and
  // evaluate() decides the symbol BER test from it without walking the deltas.
  bool exact_totals = false;
  // Optional (History sets it with delta_view): exact figures of some counters over exactly
  // the deltas of delta_view.
  const ExactStats* exact = nullptr;

  std::span<const WindowDelta> all_deltas() const {
    return delta_view.empty() ? std::span<const WindowDelta>(deltas) : delta_view;
  }
};

// cursed_path: what the localizer and the guided probes found about one suspect link.
struct PathEvidence {
  std::string link;  // "spine001/3 -> leaf003/18": the direction loss was seen in
  double score = 0;
  double loss = 0;  // estimated loss rate of the link, 0-1
  int64_t bad_observations = 0;
  int64_t good_observations = 0;
  size_t group_size = 1;                      // links the observations cannot tell apart
  std::vector<std::string> sample_bad_pairs;  // "src -> dst: lost/sent"
  uint64_t dr_sent = 0;                       // guided DR probes pinned to this link
  uint64_t dr_lost = 0;
  bool counters_known = false;  // the receiving port's deltas over the window were read
  uint64_t rcv_errors_delta = 0;
  uint64_t symbol_errors_delta = 0;
};

// An optional T kept out of line: a pointer in its owner instead of sizeof(T), for a large
// member that is rarely set (Evidence::path, on cursed_path verdicts only: inline it made
// every verdict 136 bytes larger, and a sweep over 100k failing ports writes 100k of them).
// Reads like std::optional; copies are deep.
template <typename T>
class OutOfLine {
 public:
  OutOfLine() = default;
  OutOfLine(const OutOfLine& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  OutOfLine(OutOfLine&&) noexcept = default;
  OutOfLine& operator=(const OutOfLine& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  OutOfLine& operator=(OutOfLine&&) noexcept = default;
  OutOfLine& operator=(T v) {
    p_ = std::make_unique<T>(std::move(v));
    return *this;
  }
  ~OutOfLine() = default;
  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  const T& operator*() const { return *p_; }
  T& operator*() { return *p_; }
  const T* operator->() const { return p_.get(); }
  T* operator->() { return p_.get(); }

 private:
  std::unique_ptr<T> p_;
};

struct Evidence {
  int64_t window_us = 0;
  // The counter's name when the rule is about one counter: ingest::counter_name()'s static
  // text (no allocation per verdict: a fabric failing everywhere makes one per port).
  std::string_view counter;
  uint64_t total = 0;      // sum of deltas in the window
  uint64_t max_delta = 0;  // largest one-sweep delta in the window
  double max_rate = 0;     // highest per-sweep rate (per second)
  int samples = 0;         // deltas used
  bool at_least = false;   // a saturated delta was included
  double ber = 0;          // symbol_errors estimate (0 when speed/width unknown)
  double threshold = 0;    // the limit that was crossed
  int flaps = 0;
  // Latest time of a sample with a non-zero delta or a link_down that the rule used (now for
  // link_degraded, a standing condition). Lets a caller tell a verdict about data older than
  // a repair from a new offence.
  int64_t last_time_us = 0;
  std::vector<int64_t> event_times;  // link_down times used (merged)
  std::vector<BerEvent> ber_events;  // ufm_high_ber: the uncleared high_ber events that count
  int active_width = 0, expected_width = 0;
  fabric::Speed active_speed = fabric::Speed::unknown, expected_speed = fabric::Speed::unknown;
  OutOfLine<PathEvidence> path;  // cursed_path only
  // congestion: the highest per-sweep share of time the port waited to send (0-1; 0 when
  // the link rate or PortXmitWait is unknown) and the bandwidth it lost then (Gb/s).
  double wait_ratio = 0;
  double lost_gbps = 0;
};

struct Verdict {
  std::string rule;
  RuleType type = RuleType::symbol_errors;
  Action action = Action::none;
  ingest::Severity severity = ingest::Severity::warning;
  uint64_t node_guid = 0;
  int port = 0;
  bool confirmed = false;   // the rule's confirm requirement is met (always true for none)
  std::string explanation;  // one human line
  Evidence evidence;
};

// True for a verdict that only reports congestion (a congestion rule, or one about
// PortXmitWait / PortXmitDiscards): it must never become a decision, order or disable.
inline bool is_congestion_verdict(const Verdict& v) {
  if (v.type == RuleType::congestion) return true;
  auto c = ingest::parse_counter(v.evidence.counter);
  return c && is_congestion_counter(*c);
}

// Every enabled rule over every port, in input order (ports outer, rules inner).
std::vector<Verdict> evaluate(const RuleSet& rules, const std::vector<PortWindow>& ports,
                              int64_t now_us);

}  // namespace ibw::rules
