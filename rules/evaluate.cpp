// Rule evaluation (see rules/evaluate.h for the semantics). The no-fire path allocates
// nothing: explanations and evidence vectors are built only for signals that fire. One pass
// over the ports: each port's verdicts are built while its data is in cache.
#include "rules/evaluate.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cinttypes>
#include <optional>
#include <span>

#include "rules/eval_congestion.h"
#include "rules/eval_ports.h"
#include "rules/eval_sums.h"
#include "rules/eval_text.h"
#include "rules/eval_ufm_ber.h"

namespace ibw::rules {
namespace eval_detail {

// Where a rule function puts its findings: `out` nullptr only counts them (a peer's
// confirmation). Each finding is a Verdict made in place at the end of `out` (a finding built
// aside and moved into its verdict cost a second 264-byte object per verdict); with `rule`
// set, it carries the rule's fields and the port, and its explanation starts with
// "<port label>: <rule name>: ", so evaluate() only appends the confirmation note.
struct Sink {
  std::vector<Verdict>* out = nullptr;
  const PortWindow* port = nullptr;
  const Rule* rule = nullptr;
  Verdict& add() const {
    Verdict& v = out->emplace_back();
    if (rule) {
      v.rule = rule->name, v.type = rule->type, v.action = rule->action;
      v.severity = rule->severity;
      v.node_guid = port->node_guid, v.port = port->port;
      v.explanation.reserve(rule->name.size() + 128);
      append_port_label(&v.explanation, port->node_guid, port->port);
      v.explanation += ": ";
      v.explanation += rule->name;
      v.explanation += ": ";
    }
    return v;
  }
};

void evidence_into(const Sum& sum, Counter c, int64_t window, Evidence* ev) {
  ev->window_us = window;
  ev->counter = ingest::counter_name(c);
  ev->total = sum.total, ev->max_delta = sum.max_delta, ev->max_rate = sum.max_rate;
  ev->samples = sum.samples, ev->at_least = sum.at_least;
  ev->last_time_us = sum.last_time;
}

// The window sum of counter c when p's exact bounds already give it: every delta of the view
// lies in (now - window, now] and the total did not saturate. nullopt: walk the deltas.
std::optional<uint64_t> exact_total(const PortWindow& p, Counter c, int64_t now, int64_t window) {
  auto ds = p.delta_view;
  if (!p.exact_totals || !p.bounds || ds.empty()) return std::nullopt;
  if (!in_window(ds.front().time_us, now, window) || !in_window(ds.back().time_us, now, window))
    return std::nullopt;
  uint64_t t = p.bounds->total[static_cast<size_t>(c)];
  if (t == UINT64_MAX) return std::nullopt;
  return t;
}

// The bits the link can carry in a window (0 when its rate is unknown): symbol BER's
// denominator.
double window_bits(const PortWindow& p, int64_t window_us) {
  return link_bps(p.active_width, p.active_speed) * (static_cast<double>(window_us) / 1e6);
}

int symbol_errors(const Rule& r, const PortWindow& p, int64_t now, EvalCache& sums,
                  const Sink& sink) {
  double bits = window_bits(p, r.window_us);
  if (!sink.out && bits > 0)  // only counting: the BER test alone may decide (no walk)
    if (auto total = exact_total(p, Counter::SymbolErrorCounter, now, r.window_us)) {
      double limit = r.ber_threshold[static_cast<size_t>(p.active_speed)];
      if (*total && limit > 0 && static_cast<double>(*total) / bits >= limit) return 1;
    }
  Sum sum = sums.get(p, Counter::SymbolErrorCounter, now, r.window_us);
  if (sum.total == 0) return 0;
  double ber = bits > 0 ? static_cast<double>(sum.total) / bits : 0;
  double limit = r.ber_threshold[static_cast<size_t>(p.active_speed)];
  if (!(limit > 0 && bits > 0 && ber >= limit) && !(r.jump && sum.max_delta >= r.jump))
    return 0;  // decided before any evidence is built
  if (!sink.out) return 1;
  Verdict& s = sink.add();
  Evidence& ev = s.evidence;
  evidence_into(sum, Counter::SymbolErrorCounter, r.window_us, &ev);
  ev.active_width = p.active_width;
  ev.active_speed = p.active_speed;
  ev.ber = ber;
  if (ev.at_least) s.explanation += "at least ";
  if (limit > 0 && bits > 0 && ev.ber >= limit) {
    ev.threshold = limit;
    const auto& text = sums.symbol_text(r, p, limit);  // limit: a function of r and speed
    append_num(&s.explanation, ev.total);
    s.explanation += text.first;
    append_sci2(&s.explanation, ev.ber);
    s.explanation += text.second;
  } else if (r.jump && ev.max_delta >= r.jump) {
    ev.threshold = static_cast<double>(r.jump);
    append_num(&s.explanation, ev.max_delta);
    s.explanation += " symbol errors in one sweep (jump >= ";
    append_num(&s.explanation, r.jump);
    s.explanation += ")";
  }
  return 1;
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

int link_flap(const Rule& r, const PortWindow& p, const PortWindow* peer, int64_t now,
              EvalCache& sums, const Sink& sink) {
  if (p.events.empty() && !peer) {
    bool any = false;
    for (const auto& d : p.all_deltas())
      any |= d.delta[static_cast<size_t>(Counter::LinkDownedCounter)];
    if (!any) return 0;
  }
  std::vector<int64_t> times;
  int64_t last = 0;
  int flaps = count_flaps(p, peer, now, r.window_us, sums, sink.out ? &times : nullptr, &last);
  if (flaps < r.cycles) return 0;
  if (!sink.out) return 1;
  Verdict& s = sink.add();
  s.evidence.last_time_us = last;
  s.evidence.flaps = flaps;
  s.evidence.event_times = std::move(times);
  s.evidence.window_us = r.window_us;
  s.evidence.threshold = r.cycles;
  s.explanation += std::to_string(s.evidence.flaps) + " link down/up cycles in " +
                   duration_text(r.window_us) + " (limit " + std::to_string(r.cycles) + ")";
  return 1;
}

int link_degraded(const Rule& r, const PortWindow& p, int64_t now, const Sink& sink) {
  auto below = [&](int width, fabric::Speed speed) {
    return (width && p.active_width && p.active_width < width) ||
           (speed != fabric::Speed::unknown && p.active_speed != fabric::Speed::unknown &&
            p.active_speed < speed);
  };
  bool use_plan = r.below != DegradedBelow::enabled, use_enabled = r.below != DegradedBelow::plan;
  bool by_plan = use_plan && below(p.plan_width, p.plan_speed);
  if (!by_plan && !(use_enabled && below(p.enabled_width, p.enabled_speed)))
    return 0;  // decided before a verdict is built
  if (!sink.out) return 1;
  Verdict& s = sink.add();
  if (by_plan) {
    s.evidence.expected_width = p.plan_width, s.evidence.expected_speed = p.plan_speed;
    s.explanation += "runs at " + fabric::rate_name(p.active_width, p.active_speed) +
                     ", plan says " + fabric::rate_name(p.plan_width, p.plan_speed);
  } else {
    s.evidence.expected_width = p.enabled_width, s.evidence.expected_speed = p.enabled_speed;
    s.explanation += "runs at " + fabric::rate_name(p.active_width, p.active_speed) +
                     ", both ends enable " + fabric::rate_name(p.enabled_width, p.enabled_speed);
  }
  s.evidence.active_width = p.active_width, s.evidence.active_speed = p.active_speed;
  s.evidence.last_time_us = now;  // a standing condition: seen now
  return 1;
}

int error_counters(const Rule& r, const PortWindow& p, int64_t now, EvalCache& sums,
                   const Sink& sink) {
  int n = 0;
  for (const auto& lim : r.counters) {
    Sum sum = sums.get(p, lim.counter, now, r.window_us);
    if (sum.total == 0) continue;
    bool by_delta = lim.delta && sum.total >= lim.delta;
    if (!by_delta && !(lim.rate_per_s > 0 && sum.max_rate >= lim.rate_per_s)) continue;
    ++n;
    if (!sink.out) continue;
    Verdict& s = sink.add();
    Evidence& ev = s.evidence;
    evidence_into(sum, lim.counter, r.window_us, &ev);
    const std::string name(ev.counter);
    std::string least = ev.at_least ? "at least " : "";
    if (by_delta) {
      ev.threshold = static_cast<double>(lim.delta);
      s.explanation += name + " rose by " + least + std::to_string(ev.total) + " in " +
                       duration_text(r.window_us) + " (limit " + std::to_string(lim.delta) + ")";
    } else {
      ev.threshold = lim.rate_per_s;
      s.explanation += name + " at " + least + fmt(std::chars_format::general, 3, ev.max_rate) +
                       "/s (limit " + fmt(std::chars_format::general, 6, lim.rate_per_s) + "/s)";
    }
  }
  return n;
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
      double bits = window_bits(p, r.window_us);
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
    case RuleType::congestion: {  // congestion_fires' two tests, over the bounds
      // wait_ratio() of a delta is its wait rate x tick bits / link rate (capped at 1); the
      // bound is given a little room so that rounding never passes over a port that fires.
      double ratio =
          wait_share(b->max_wait_rate, r.wait_tick_bits, link_bps(p.active_width, p.active_speed)) *
          (1 + 1e-9);
      bool by_wait = r.wait_ratio > 0 && ratio >= r.wait_ratio;
      size_t drop = at(Counter::PortXmitDiscards);
      bool by_drops =
          r.discards_per_s > 0 && b->total[drop] != 0 && b->max_rate[drop] >= r.discards_per_s;
      return !by_wait && !by_drops;
    }
    default:
      return false;
  }
}

// The signals of rule r on port p (peer only matters for link_flap): how many, and with
// sink.out set, each one built.
int fire(const Rule& r, const PortWindow& p, const PortWindow* peer, int64_t now, EvalCache& sums,
         const Sink& sink) {
  if (cannot_fire(r, p, peer)) return 0;
  switch (r.type) {
    case RuleType::symbol_errors:
      return symbol_errors(r, p, now, sums, sink);
    case RuleType::link_flap:
      return link_flap(r, p, peer, now, sums, sink);
    case RuleType::link_degraded:
      return link_degraded(r, p, now, sink);
    case RuleType::error_counters:
      return error_counters(r, p, now, sums, sink);
    case RuleType::ufm_high_ber:
    case RuleType::congestion: {  // both build their verdict only when they fire
      if (r.type == RuleType::ufm_high_ber && p.ber_events.empty()) return 0;
      std::string what;
      Evidence ev;
      bool fires = r.type == RuleType::congestion
                       ? congestion_fires(r, p, now, sink.out ? &what : nullptr, &ev)
                       : ufm_high_ber_fires(r, p, now, &what, &ev);
      if (fires && sink.out) {
        Verdict& s = sink.add();
        s.explanation += what;
        s.evidence = std::move(ev);
      }
      return fires ? 1 : 0;
    }
    case RuleType::cursed_path:  // judged on the localizer's suspects: eval_cursed_path.h
      return 0;
  }
  return 0;
}

}  // namespace eval_detail

std::vector<Verdict> evaluate(const RuleSet& rules, const std::vector<PortWindow>& ports,
                              int64_t now_us) {
  using namespace eval_detail;
  PeerFinder peers(ports);

  // One pass, a port at a time: its deltas, bounds and peer are still in cache when its
  // verdicts are built (a first pass that only counted, then a second that built, read every
  // port's data twice from memory). Most ports give at most one verdict, so room for one per
  // window is reserved: the vector grows (once) only when ports fire several rules each.
  EvalCache sums(rules);
  std::vector<Verdict> out;
  out.reserve(ports.size());
  std::vector<Verdict> peer_found;  // a peer's findings, for error_counters' confirmation
  for (size_t i = 0; i < ports.size(); ++i) {
    const PortWindow& p = ports[i];
    if (i + kPrefetchAhead < ports.size()) prefetch(ports[i + kPrefetchAhead]);
    prefetch_peer_window(ports, i + 2 * kPrefetchAhead);
    prefetch_peer_bounds(ports, i + kPrefetchAhead);
    sums.reset(&p);
    const PortWindow* peer = nullptr;
    bool peer_looked = false;
    for (const auto& r : rules.rules) {
      if (!r.enabled) continue;
      if (r.type == RuleType::link_flap && !peer_looked)
        peer = peers.peer_of(i), peer_looked = true;
      const size_t first = out.size();
      fire(r, p, peer, now_us, sums, Sink{&out, &p, &r});
      if (out.size() == first) continue;
      if (!peer_looked) peer = peers.peer_of(i), peer_looked = true;
      for (size_t k = first; k < out.size(); ++k) {  // nothing is added to `out` in here
        Verdict& v = out[k];
        if (r.confirm == Confirm::none) {
          v.confirmed = true;
        } else if (r.confirm == Confirm::both_ends) {
          if (!peer) {
            v.explanation += "; not confirmed: peer not observed";
          } else {
            if (r.type != RuleType::symbol_errors && r.type != RuleType::link_flap &&
                r.type != RuleType::link_degraded) {  // the same counter must fire there
              peer_found.clear();
              fire(r, *peer, &p, now_us, sums, Sink{&peer_found});
              v.confirmed = std::any_of(
                  peer_found.begin(), peer_found.end(),
                  [&](const Verdict& f) { return f.evidence.counter == v.evidence.counter; });
            } else {  // one counter or none: counting the peer's signals is enough
              v.confirmed = fire(r, *peer, &p, now_us, sums, Sink{}) > 0;
            }
            v.explanation += v.confirmed ? "; confirmed on peer " : "; not confirmed: peer ";
            append_port_label(&v.explanation, p.peer_guid, p.peer_port);
            if (!v.confirmed) v.explanation += " is clean";
          }
        } else {  // errors_and_flap
          int flaps = count_flaps(p, peer, now_us, r.window_us, sums, &v.evidence.event_times,
                                  &v.evidence.last_time_us);
          v.evidence.flaps = flaps;
          v.confirmed = flaps > 0;
          if (v.confirmed) {
            v.explanation += "; confirmed by ";
            append_num(&v.explanation, static_cast<uint64_t>(flaps));
            v.explanation += " link flap(s)";
          } else {
            v.explanation += "; not confirmed: no link flap in the window";
          }
        }
      }
    }
  }
  return out;
}

}  // namespace ibw::rules
