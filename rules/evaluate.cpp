// Rule evaluation (see rules/evaluate.h for the semantics). The no-fire path allocates
// nothing: explanations and evidence vectors are built only for signals that fire.
#include "rules/evaluate.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <optional>

#include "fabric/flat_map.h"
#include "rules/eval_ufm_ber.h"

namespace ibw::rules {
namespace eval_detail {

using ingest::Counter;

constexpr unsigned bit(Counter c) {
  return 1u << static_cast<unsigned>(c);
}
bool in_window(int64_t t, int64_t now, int64_t window) {
  return t <= now && t > now - window;
}

std::string port_label(uint64_t guid, int port) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "0x%016" PRIx64 "/%d", guid, port);
  return buf;
}
std::string fmt(const char* f, double x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
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
Sum counter_sum(const PortWindow& p, Counter c, int64_t now, int64_t window) {
  Sum sum;
  size_t i = static_cast<size_t>(c);
  for (const auto& d : p.all_deltas()) {
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
Evidence evidence_of(const Sum& sum, Counter c, int64_t window) {
  Evidence ev;
  ev.window_us = window;
  ev.counter = ingest::counter_name(c);
  ev.total = sum.total, ev.max_delta = sum.max_delta, ev.max_rate = sum.max_rate;
  ev.samples = sum.samples, ev.at_least = sum.at_least;
  ev.last_time_us = sum.last_time;
  return ev;
}

std::optional<Signal> symbol_errors(const Rule& r, const PortWindow& p, int64_t now) {
  Sum sum = counter_sum(p, Counter::SymbolErrorCounter, now, r.window_us);
  if (sum.total == 0) return std::nullopt;
  Evidence ev = evidence_of(sum, Counter::SymbolErrorCounter, r.window_us);
  ev.active_width = p.active_width;
  ev.active_speed = p.active_speed;
  double bits = fabric::lane_gbps(p.active_speed) * 1e9 * p.active_width *
                (static_cast<double>(r.window_us) / 1e6);
  if (bits > 0) ev.ber = static_cast<double>(ev.total) / bits;
  double limit = r.ber_threshold[static_cast<size_t>(p.active_speed)];
  std::string least = ev.at_least ? "at least " : "";
  Signal s;
  if (limit > 0 && bits > 0 && ev.ber >= limit) {
    ev.threshold = limit;
    s.what = least + std::to_string(ev.total) + " symbol errors in " + duration_text(r.window_us) +
             " on " + fabric::rate_name(p.active_width, p.active_speed) + ": BER " +
             fmt("%.2e", ev.ber) + " >= " + fmt("%.0e", limit);
  } else if (r.jump && ev.max_delta >= r.jump) {
    ev.threshold = static_cast<double>(r.jump);
    s.what = least + std::to_string(ev.max_delta) +
             " symbol errors in one sweep (jump >= " + std::to_string(r.jump) + ")";
  } else {
    return std::nullopt;
  }
  s.ev = std::move(ev);
  return s;
}

// Flap count as documented in evaluate.h; `times` gets the link_down times counted.
int count_flaps(const PortWindow& p, const PortWindow* peer, int64_t now, int64_t window,
                std::vector<int64_t>* times, int64_t* last_time = nullptr) {
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
  Sum mine = counter_sum(p, Counter::LinkDownedCounter, now, window);
  uint64_t from_counters = mine.total;
  int64_t last = downs.empty() ? 0 : downs.back();
  last = std::max(last, mine.last_time);
  if (peer) {
    Sum theirs = counter_sum(*peer, Counter::LinkDownedCounter, now, window);
    from_counters = std::max(from_counters, theirs.total);
    last = std::max(last, theirs.last_time);
  }
  if (last_time) *last_time = std::max(*last_time, last);
  return static_cast<int>(std::max<uint64_t>(from_events, from_counters));
}

std::optional<Signal> link_flap(const Rule& r, const PortWindow& p, const PortWindow* peer,
                                int64_t now) {
  if (p.events.empty() && !peer) {
    bool any = false;
    for (const auto& d : p.all_deltas())
      any |= d.delta[static_cast<size_t>(Counter::LinkDownedCounter)];
    if (!any) return std::nullopt;
  }
  std::vector<int64_t> times;
  int64_t last = 0;
  int flaps = count_flaps(p, peer, now, r.window_us, &times, &last);
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
  Signal s;
  if (use_plan && below(p.plan_width, p.plan_speed)) {
    s.ev.expected_width = p.plan_width, s.ev.expected_speed = p.plan_speed;
    s.what = "runs at " + fabric::rate_name(p.active_width, p.active_speed) + ", plan says " +
             fabric::rate_name(p.plan_width, p.plan_speed);
  } else if (use_enabled && below(p.enabled_width, p.enabled_speed)) {
    s.ev.expected_width = p.enabled_width, s.ev.expected_speed = p.enabled_speed;
    s.what = "runs at " + fabric::rate_name(p.active_width, p.active_speed) +
             ", both ends enable " + fabric::rate_name(p.enabled_width, p.enabled_speed);
  } else {
    return std::nullopt;
  }
  s.ev.active_width = p.active_width, s.ev.active_speed = p.active_speed;
  s.ev.last_time_us = now;  // a standing condition: seen now
  return s;
}

void error_counters(const Rule& r, const PortWindow& p, int64_t now, std::vector<Signal>* out) {
  for (const auto& lim : r.counters) {
    Sum sum = counter_sum(p, lim.counter, now, r.window_us);
    if (sum.total == 0) continue;
    bool by_delta = lim.delta && sum.total >= lim.delta;
    if (!by_delta && !(lim.rate_per_s > 0 && sum.max_rate >= lim.rate_per_s)) continue;
    Evidence ev = evidence_of(sum, lim.counter, r.window_us);
    const std::string& name = ev.counter;
    std::string least = ev.at_least ? "at least " : "";
    Signal s;
    if (by_delta) {
      ev.threshold = static_cast<double>(lim.delta);
      s.what = name + " rose by " + least + std::to_string(ev.total) + " in " +
               duration_text(r.window_us) + " (limit " + std::to_string(lim.delta) + ")";
    } else {
      ev.threshold = lim.rate_per_s;
      s.what = name + " at " + least + fmt("%.3g", ev.max_rate) + "/s (limit " +
               fmt("%g", lim.rate_per_s) + "/s)";
    }
    s.ev = std::move(ev);
    out->push_back(std::move(s));
  }
}

// Every signal of rule r on port p (peer only matters for link_flap).
void fire(const Rule& r, const PortWindow& p, const PortWindow* peer, int64_t now,
          std::vector<Signal>* out) {
  std::optional<Signal> s;
  switch (r.type) {
    case RuleType::symbol_errors:
      s = symbol_errors(r, p, now);
      break;
    case RuleType::link_flap:
      s = link_flap(r, p, peer, now);
      break;
    case RuleType::link_degraded:
      s = link_degraded(r, p, now);
      break;
    case RuleType::error_counters:
      return error_counters(r, p, now, out);
    case RuleType::ufm_high_ber: {
      Signal ber;
      if (ufm_high_ber_fires(r, p, now, &ber.what, &ber.ev)) s = std::move(ber);
      break;
    }
    case RuleType::cursed_path:  // judged on the localizer's suspects: eval_cursed_path.h
      break;
  }
  if (s) out->push_back(std::move(*s));
}

uint64_t port_key(uint64_t guid, int port) {
  return guid * 257 + static_cast<uint64_t>(port);
}

}  // namespace eval_detail

std::vector<Verdict> evaluate(const RuleSet& rules, const std::vector<PortWindow>& ports,
                              int64_t now_us) {
  using namespace eval_detail;
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
  for (const auto& p : ports) {
    const PortWindow* peer = nullptr;
    bool peer_looked = false;
    for (const auto& r : rules.rules) {
      if (!r.enabled) continue;
      if (r.type == RuleType::link_flap && !peer_looked) peer = peer_of(p), peer_looked = true;
      signals.clear();
      fire(r, p, peer, now_us, &signals);
      if (signals.empty()) continue;
      if (!peer_looked) peer = peer_of(p), peer_looked = true;
      for (auto& s : signals) {
        Verdict v{r.name, r.type, r.action, r.severity, p.node_guid, p.port};
        std::string note;
        if (r.confirm == Confirm::none) {
          v.confirmed = true;
        } else if (r.confirm == Confirm::both_ends) {
          if (!peer) {
            note = "; not confirmed: peer not observed";
          } else {
            peer_signals.clear();
            fire(r, *peer, &p, now_us, &peer_signals);
            v.confirmed =
                std::any_of(peer_signals.begin(), peer_signals.end(),
                            [&](const Signal& ps) { return ps.ev.counter == s.ev.counter; });
            note = (v.confirmed ? "; confirmed on peer " : "; not confirmed: peer ") +
                   port_label(p.peer_guid, p.peer_port) + (v.confirmed ? "" : " is clean");
          }
        } else {  // errors_and_flap
          int flaps =
              count_flaps(p, peer, now_us, r.window_us, &s.ev.event_times, &s.ev.last_time_us);
          s.ev.flaps = flaps;
          v.confirmed = flaps > 0;
          note = v.confirmed ? "; confirmed by " + std::to_string(flaps) + " link flap(s)"
                             : "; not confirmed: no link flap in the window";
        }
        v.explanation = port_label(p.node_guid, p.port) + ": " + r.name + ": " + s.what + note;
        v.evidence = std::move(s.ev);
        out.push_back(std::move(v));
      }
    }
  }
  return out;
}

}  // namespace ibw::rules
