// Test-only: rules::evaluate() as it was before the two-pass rewrite (commit fd951cb), frozen
// as the reference of rules/test_rules_eval_diff.cpp. Do not optimize; it is the old behaviour.
#include "tests/unit/rules_eval_reference.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cinttypes>
#include <optional>
#include <span>

#include "fabric/flat_map.h"
#include "rules/eval_ufm_ber.h"

namespace ibw::rules {
namespace eval_reference_detail {

using ingest::Counter;

constexpr unsigned bit(Counter c) {
  return 1u << static_cast<unsigned>(c);
}
bool in_window(int64_t t, int64_t now, int64_t window) {
  return t <= now && t > now - window;
}

// Appends "0x%016" PRIx64 "/%d" (the port label of explanations) without printf.
void append_port_label(std::string* out, uint64_t guid, int port) {
  char buf[32] = {'0', 'x'};
  for (int i = 0; i < 16; ++i) buf[2 + i] = "0123456789abcdef"[(guid >> (60 - 4 * i)) & 0xf];
  auto end = std::to_chars(buf + 18, buf + sizeof buf, port).ptr;
  out->append(buf, 18);
  out->push_back('/');
  out->append(buf + 18, end);
}
std::string port_label(uint64_t guid, int port) {
  std::string s;
  append_port_label(&s, guid, port);
  return s;
}
void append_num(std::string* out, uint64_t n) {
  char buf[24];
  out->append(buf, std::to_chars(buf, buf + sizeof buf, n).ptr);
}
// printf's %.<precision>e / %.<precision>g of x (to_chars is specified to match them).
std::string fmt(std::chars_format f, int precision, double x) {
  char buf[48];
  auto end = std::to_chars(buf, buf + sizeof buf, x, f, precision).ptr;
  return std::string(buf, end);
}
std::string duration_text(int64_t us) {
  if (us % 3'600'000'000LL == 0) return std::to_string(us / 3'600'000'000LL) + "h";
  if (us % 60'000'000 == 0) return std::to_string(us / 60'000'000) + "m";
  if (us % 1'000'000 == 0) return std::to_string(us / 1'000'000) + "s";
  return std::to_string(us / 1000) + "ms";
}

// One firing of one rule on one port, before confirmation.
struct Signal {
  std::string what;  // explanation without the rule name and port
  Evidence ev;
};

// One counter's deltas in the window (kept small: it is computed for every port).
struct Sum {
  uint64_t total = 0, max_delta = 0;
  double max_rate = 0;
  int samples = 0;
  bool at_least = false;
  int64_t last_time = 0;  // latest sample with a non-zero delta
};
// The deltas of p that can lie in (now - window, now]. History's view (delta_view) is
// time-ordered, so only its tail is looked at; hand-made `deltas` are taken whole.
std::span<const WindowDelta> window_deltas(const PortWindow& p, int64_t now, int64_t window) {
  if (p.delta_view.empty()) return p.deltas;
  auto ds = p.delta_view;
  size_t hi = ds.size();
  while (hi && ds[hi - 1].time_us > now) --hi;
  size_t lo = hi;
  while (lo && ds[lo - 1].time_us > now - window) --lo;
  return ds.subspan(lo, hi - lo);
}
Sum counter_sum(const PortWindow& p, Counter c, int64_t now, int64_t window) {
  Sum sum;
  size_t i = static_cast<size_t>(c);
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
    w.done = true, w.now = now;
  }
  std::vector<Window> windows_;
  const PortWindow* port_ = nullptr;
  const Rule* text_rule_ = nullptr;  // symbol_text's key
  int text_width_ = 0;
  fabric::Speed text_speed_ = fabric::Speed::unknown;
  std::pair<std::string, std::string> text_;
};

Evidence evidence_of(const Sum& sum, Counter c, int64_t window) {
  Evidence ev;
  ev.window_us = window;
  ev.counter = ingest::counter_name(c);
  ev.total = sum.total, ev.max_delta = sum.max_delta, ev.max_rate = sum.max_rate;
  ev.samples = sum.samples, ev.at_least = sum.at_least;
  ev.last_time_us = sum.last_time;
  return ev;
}

std::optional<Signal> symbol_errors(const Rule& r, const PortWindow& p, int64_t now,
                                    EvalCache& sums) {
  Sum sum = sums.get(p, Counter::SymbolErrorCounter, now, r.window_us);
  if (sum.total == 0) return std::nullopt;
  double bits = fabric::lane_gbps(p.active_speed) * 1e9 * p.active_width *
                (static_cast<double>(r.window_us) / 1e6);
  double ber = bits > 0 ? static_cast<double>(sum.total) / bits : 0;
  double limit = r.ber_threshold[static_cast<size_t>(p.active_speed)];
  if (!(limit > 0 && bits > 0 && ber >= limit) && !(r.jump && sum.max_delta >= r.jump))
    return std::nullopt;  // decided before any evidence is built
  Evidence ev = evidence_of(sum, Counter::SymbolErrorCounter, r.window_us);
  ev.active_width = p.active_width;
  ev.active_speed = p.active_speed;
  ev.ber = ber;
  Signal s;
  s.what.reserve(96);
  if (ev.at_least) s.what += "at least ";
  if (limit > 0 && bits > 0 && ev.ber >= limit) {
    ev.threshold = limit;
    const auto& text = sums.symbol_text(r, p, limit);  // limit: a function of r and speed
    append_num(&s.what, ev.total);
    s.what += text.first;
    s.what += fmt(std::chars_format::scientific, 2, ev.ber);
    s.what += text.second;
  } else if (r.jump && ev.max_delta >= r.jump) {
    ev.threshold = static_cast<double>(r.jump);
    append_num(&s.what, ev.max_delta);
    s.what += " symbol errors in one sweep (jump >= ";
    append_num(&s.what, r.jump);
    s.what += ")";
  } else {
    return std::nullopt;
  }
  s.ev = std::move(ev);
  return s;
}

// Flap count as documented in evaluate.h; `times` gets the link_down times counted.
int count_flaps(const PortWindow& p, const PortWindow* peer, int64_t now, int64_t window,
                EvalCache& sums, std::vector<int64_t>* times, int64_t* last_time = nullptr) {
  std::vector<int64_t> own, far;
  for (const auto& e : p.events)
    if (e.down && in_window(e.time_us, now, window) && (!e.from_peer || !peer))
      (e.from_peer ? far : own).push_back(e.time_us);
  if (peer)
    for (const auto& e : peer->events)
      if (e.down && !e.from_peer && in_window(e.time_us, now, window)) far.push_back(e.time_us);
  std::sort(own.begin(), own.end());
  std::sort(far.begin(), far.end());
  // Each far-end down within kFlapMergeUs of a not yet matched own down is the same drop.
  std::vector<int64_t> downs = own;
  std::vector<char> used(own.size(), 0);
  for (int64_t t : far) {
    bool matched = false;
    for (size_t i = 0; i < own.size() && !matched; ++i)
      if (!used[i] && (own[i] > t ? own[i] - t : t - own[i]) < kFlapMergeUs)
        used[i] = 1, matched = true;
    if (!matched) downs.push_back(t);
  }
  std::sort(downs.begin(), downs.end());
  int from_events = static_cast<int>(downs.size());
  if (times) times->insert(times->end(), downs.begin(), downs.end());
  Sum mine = sums.get(p, Counter::LinkDownedCounter, now, window);
  uint64_t from_counters = mine.total;
  int64_t last = downs.empty() ? 0 : downs.back();
  last = std::max(last, mine.last_time);
  if (peer) {
    Sum theirs = sums.get(*peer, Counter::LinkDownedCounter, now, window);
    from_counters = std::max(from_counters, theirs.total);
    last = std::max(last, theirs.last_time);
  }
  if (last_time) *last_time = std::max(*last_time, last);
  return static_cast<int>(std::max<uint64_t>(from_events, from_counters));
}

std::optional<Signal> link_flap(const Rule& r, const PortWindow& p, const PortWindow* peer,
                                int64_t now, EvalCache& sums) {
  if (p.events.empty() && !peer) {
    bool any = false;
    for (const auto& d : p.all_deltas())
      any |= d.delta[static_cast<size_t>(Counter::LinkDownedCounter)];
    if (!any) return std::nullopt;
  }
  std::vector<int64_t> times;
  int64_t last = 0;
  int flaps = count_flaps(p, peer, now, r.window_us, sums, &times, &last);
  if (flaps < r.cycles) return std::nullopt;
  Signal s;
  s.ev.last_time_us = last;
  s.ev.flaps = flaps;
  s.ev.event_times = std::move(times);
  s.ev.window_us = r.window_us;
  s.ev.threshold = r.cycles;
  s.what = std::to_string(s.ev.flaps) + " link down/up cycles in " + duration_text(r.window_us) +
           " (limit " + std::to_string(r.cycles) + ")";
  return s;
}

std::optional<Signal> link_degraded(const Rule& r, const PortWindow& p, int64_t now) {
  auto below = [&](int width, fabric::Speed speed) {
    return (width && p.active_width && p.active_width < width) ||
           (speed != fabric::Speed::unknown && p.active_speed != fabric::Speed::unknown &&
            p.active_speed < speed);
  };
  bool use_plan = r.below != DegradedBelow::enabled, use_enabled = r.below != DegradedBelow::plan;
  bool by_plan = use_plan && below(p.plan_width, p.plan_speed);
  if (!by_plan && !(use_enabled && below(p.enabled_width, p.enabled_speed)))
    return std::nullopt;  // decided before a Signal is built
  Signal s;
  if (by_plan) {
    s.ev.expected_width = p.plan_width, s.ev.expected_speed = p.plan_speed;
    s.what = "runs at " + fabric::rate_name(p.active_width, p.active_speed) + ", plan says " +
             fabric::rate_name(p.plan_width, p.plan_speed);
  } else {
    s.ev.expected_width = p.enabled_width, s.ev.expected_speed = p.enabled_speed;
    s.what = "runs at " + fabric::rate_name(p.active_width, p.active_speed) +
             ", both ends enable " + fabric::rate_name(p.enabled_width, p.enabled_speed);
  }
  s.ev.active_width = p.active_width, s.ev.active_speed = p.active_speed;
  s.ev.last_time_us = now;  // a standing condition: seen now
  return s;
}

void error_counters(const Rule& r, const PortWindow& p, int64_t now, EvalCache& sums,
                    std::vector<Signal>* out) {
  for (const auto& lim : r.counters) {
    Sum sum = sums.get(p, lim.counter, now, r.window_us);
    if (sum.total == 0) continue;
    bool by_delta = lim.delta && sum.total >= lim.delta;
    if (!by_delta && !(lim.rate_per_s > 0 && sum.max_rate >= lim.rate_per_s)) continue;
    Evidence ev = evidence_of(sum, lim.counter, r.window_us);
    const std::string name(ev.counter);
    std::string least = ev.at_least ? "at least " : "";
    Signal s;
    if (by_delta) {
      ev.threshold = static_cast<double>(lim.delta);
      s.what = name + " rose by " + least + std::to_string(ev.total) + " in " +
               duration_text(r.window_us) + " (limit " + std::to_string(lim.delta) + ")";
    } else {
      ev.threshold = lim.rate_per_s;
      s.what = name + " at " + least + fmt(std::chars_format::general, 3, ev.max_rate) +
               "/s (limit " + fmt(std::chars_format::general, 6, lim.rate_per_s) + "/s)";
    }
    s.ev = std::move(ev);
    out->push_back(std::move(s));
  }
}

// True when p's bounds (over every delta it has) show that rule r cannot fire on it; false
// when it might (then the deltas are walked). Mirrors the firing tests of the rules above:
// window sums, maxima and flap counts can only be smaller than the bounds.
// A window without deltas has zero bounds; one with deltas but no bounds has none (nullptr).
const DeltaBounds* bounds_of(const PortWindow& w) {
  static const DeltaBounds kNone{};
  return w.all_deltas().empty() ? &kNone : w.bounds;
}
bool cannot_fire(const Rule& r, const PortWindow& p, const PortWindow* peer) {
  const DeltaBounds* b = bounds_of(p);
  if (!b) return false;
  auto at = [](Counter c) { return static_cast<size_t>(c); };
  switch (r.type) {
    case RuleType::symbol_errors: {
      size_t i = at(Counter::SymbolErrorCounter);
      if (b->total[i] == 0) return true;
      double bits = fabric::lane_gbps(p.active_speed) * 1e9 * p.active_width *
                    (static_cast<double>(r.window_us) / 1e6);
      double ber = bits > 0 ? static_cast<double>(b->total[i]) / bits : 0;
      double limit = r.ber_threshold[static_cast<size_t>(p.active_speed)];
      return !(limit > 0 && bits > 0 && ber >= limit) && !(r.jump && b->max_delta[i] >= r.jump);
    }
    case RuleType::error_counters:
      for (const auto& lim : r.counters) {
        size_t i = at(lim.counter);
        if (i >= DeltaBounds::kCounters) return false;
        if (b->total[i] == 0) continue;
        if ((lim.delta && b->total[i] >= lim.delta) ||
            (lim.rate_per_s > 0 && b->max_rate[i] >= lim.rate_per_s))
          return false;
      }
      return true;
    case RuleType::link_flap: {
      const DeltaBounds* pb = peer ? bounds_of(*peer) : nullptr;
      if (peer && !pb) return false;
      // flaps = max(downs counted from events, LinkDowned sums), each at most this.
      uint64_t downs = 0;
      for (const auto& e : p.events) downs += e.down;
      if (peer)
        for (const auto& e : peer->events) downs += e.down;
      size_t i = at(Counter::LinkDownedCounter);
      uint64_t counted = std::max(b->total[i], pb ? pb->total[i] : 0);
      return std::max(downs, counted) < static_cast<uint64_t>(std::max(r.cycles, 0));
    }
    default:
      return false;
  }
}

// Every signal of rule r on port p (peer only matters for link_flap).
void fire(const Rule& r, const PortWindow& p, const PortWindow* peer, int64_t now, EvalCache& sums,
          std::vector<Signal>* out) {
  if (cannot_fire(r, p, peer)) return;
  std::optional<Signal> s;
  switch (r.type) {
    case RuleType::symbol_errors:
      s = symbol_errors(r, p, now, sums);
      break;
    case RuleType::link_flap:
      s = link_flap(r, p, peer, now, sums);
      break;
    case RuleType::link_degraded:
      s = link_degraded(r, p, now);
      break;
    case RuleType::error_counters:
      return error_counters(r, p, now, sums, out);
    case RuleType::ufm_high_ber: {
      if (p.ber_events.empty()) break;  // cannot fire: no Signal to build
      Signal ber;
      if (ufm_high_ber_fires(r, p, now, &ber.what, &ber.ev)) s = std::move(ber);
      break;
    }
    case RuleType::cursed_path:  // judged on the localizer's suspects: eval_cursed_path.h
      break;
    case RuleType::congestion:  // newer than this reference: the diff test leaves it out
      break;
  }
  if (s) out->push_back(std::move(*s));
}

uint64_t port_key(uint64_t guid, int port) {
  return guid * 257 + static_cast<uint64_t>(port);
}

}  // namespace eval_reference_detail

std::vector<Verdict> reference_evaluate(const RuleSet& rules, const std::vector<PortWindow>& ports,
                                        int64_t now_us) {
  using namespace eval_reference_detail;
  fabric::FlatMap64 index;
  index.reserve(ports.size());
  for (size_t i = 0; i < ports.size(); ++i)
    index.emplace(port_key(ports[i].node_guid, ports[i].port), static_cast<uint32_t>(i));
  auto peer_of = [&](const PortWindow& p) -> const PortWindow* {
    if (!p.peer_guid) return nullptr;
    auto at = index.find(port_key(p.peer_guid, p.peer_port));
    return at ? &ports[*at] : nullptr;
  };

  std::vector<Verdict> out;
  std::vector<Signal> signals, peer_signals;
  EvalCache sums(rules);
  for (const auto& p : ports) {
    sums.reset(&p);
    const PortWindow* peer = nullptr;
    bool peer_looked = false;
    for (const auto& r : rules.rules) {
      if (!r.enabled) continue;
      if (r.type == RuleType::link_flap && !peer_looked) peer = peer_of(p), peer_looked = true;
      signals.clear();
      fire(r, p, peer, now_us, sums, &signals);
      if (signals.empty()) continue;
      if (!peer_looked) peer = peer_of(p), peer_looked = true;
      for (auto& s : signals) {
        Verdict& v = out.emplace_back();
        v.rule = r.name, v.type = r.type, v.action = r.action, v.severity = r.severity;
        v.node_guid = p.node_guid, v.port = p.port;
        std::string note;
        if (r.confirm == Confirm::none) {
          v.confirmed = true;
        } else if (r.confirm == Confirm::both_ends) {
          if (!peer) {
            note = "; not confirmed: peer not observed";
          } else {
            peer_signals.clear();
            fire(r, *peer, &p, now_us, sums, &peer_signals);
            v.confirmed =
                std::any_of(peer_signals.begin(), peer_signals.end(),
                            [&](const Signal& ps) { return ps.ev.counter == s.ev.counter; });
            note = (v.confirmed ? "; confirmed on peer " : "; not confirmed: peer ") +
                   port_label(p.peer_guid, p.peer_port) + (v.confirmed ? "" : " is clean");
          }
        } else {  // errors_and_flap
          int flaps = count_flaps(p, peer, now_us, r.window_us, sums, &s.ev.event_times,
                                  &s.ev.last_time_us);
          s.ev.flaps = flaps;
          v.confirmed = flaps > 0;
          note = v.confirmed ? "; confirmed by " + std::to_string(flaps) + " link flap(s)"
                             : "; not confirmed: no link flap in the window";
        }
        v.explanation.reserve(32 + r.name.size() + s.what.size() + note.size());
        append_port_label(&v.explanation, p.node_guid, p.port);
        v.explanation += ": ";
        v.explanation += r.name;
        v.explanation += ": ";
        v.explanation += s.what;
        v.explanation += note;
        v.evidence = std::move(s.ev);
      }
    }
  }
  return out;
}

}  // namespace ibw::rules
