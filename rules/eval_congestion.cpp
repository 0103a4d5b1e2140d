// congestion evaluation: PortXmitWait as a share of each sweep, PortXmitDiscards per second.
#include "rules/eval_congestion.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "rules/eval_sums.h"
#include "rules/eval_text.h"

namespace ibw::rules {

double wait_ratio(uint64_t ticks, double tick_bits, int width, fabric::Speed speed,
                  int64_t interval_us) {
  return std::min(1.0,
                  wait_share(per_second(ticks, interval_us), tick_bits, link_bps(width, speed)));
}

bool congestion_fires(const Rule& r, const PortWindow& p, int64_t now_us, std::string* what,
                      Evidence* ev) {
  using eval_detail::bit;
  using ingest::Counter;
  const auto wait = static_cast<size_t>(Counter::PortXmitWait);
  const auto drop = static_cast<size_t>(Counter::PortXmitDiscards);
  double ratio = 0, drops = 0;
  uint64_t drops_total = 0;
  int64_t last = 0;
  int samples = 0;
  bool at_least = false;
  // Only sweeps read after the link last went down or came up (either end's event): what a
  // link carried before a reboot or a reseat says nothing of the path it is on now, and would
  // report the same old burst again each time the link came back.
  const int64_t since = p.events.empty() ? INT64_MIN : p.events.back().time_us;
  for (const auto& d : eval_detail::window_deltas(p, now_us, r.window_us)) {
    if (!eval_detail::in_window(d.time_us, now_us, r.window_us) || d.time_us <= since) continue;
    bool used = false;
    if (d.valid & bit(Counter::PortXmitWait)) {
      used = true;
      ratio = std::max(ratio, wait_ratio(d.delta[wait], r.wait_tick_bits, p.active_width,
                                         p.active_speed, d.interval_us));
    }
    if (d.valid & bit(Counter::PortXmitDiscards)) {
      used = true;
      drops = std::max(drops, d.rate(drop));
      drops_total += d.delta[drop];
      at_least |= (d.at_least & bit(Counter::PortXmitDiscards)) != 0;
    }
    samples += used;
    if (used && (d.delta[wait] || d.delta[drop])) last = std::max(last, d.time_us);
  }
  bool by_wait = r.wait_ratio > 0 && ratio >= r.wait_ratio;
  bool by_drops = r.discards_per_s > 0 && drops >= r.discards_per_s;
  if (!by_wait && !by_drops) return false;
  double link_gbps = link_bps(p.active_width, p.active_speed) / 1e9;
  if (ev) {
    ev->window_us = r.window_us;
    ev->counter = ingest::counter_name(by_wait ? Counter::PortXmitWait : Counter::PortXmitDiscards);
    ev->threshold = by_wait ? r.wait_ratio : r.discards_per_s;
    ev->wait_ratio = ratio;
    ev->lost_gbps = ratio * link_gbps;
    ev->total = drops_total, ev->max_rate = drops, ev->at_least = at_least;
    ev->samples = samples, ev->last_time_us = last;
    ev->active_width = p.active_width, ev->active_speed = p.active_speed;
  }
  if (what) {
    using eval_detail::fmt;
    *what = "congested (a signal, not a fault): ";
    if (by_wait)
      *what += "waited to send " + fmt(std::chars_format::fixed, 1, ratio * 100) +
               "% of a sweep (limit " + fmt(std::chars_format::general, 3, r.wait_ratio * 100) +
               "%), about " + fmt(std::chars_format::fixed, 1, ratio * link_gbps) + " of " +
               fmt(std::chars_format::general, 4, link_gbps) + " Gb/s lost";
    if (by_wait && by_drops) *what += "; ";
    if (by_drops)
      *what += "PortXmitDiscards at " + std::string(at_least ? "at least " : "") +
               fmt(std::chars_format::general, 3, drops) + "/s (limit " +
               fmt(std::chars_format::general, 6, r.discards_per_s) + "/s)";
  }
  return true;
}

}  // namespace ibw::rules
