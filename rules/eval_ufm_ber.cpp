// ufm_high_ber evaluation: UFM's own BER verdicts (high_ber / high_ber_cleared events).
#include "rules/eval_ufm_ber.h"

#include <algorithm>
#include <ctime>
#include <vector>

namespace ibw::rules {
namespace eval_ufm_ber_detail {

// "error from ufm at 2024-05-01T12:00:00Z: UFM 918 Symbol bit error rate ..."
std::string describe(const BerEvent& e) {
  return std::string(ingest::severity_name(e.severity)) + " from " +
         std::string(ingest::source_name(e.source)) + " at " + utc_text(e.time_us) + ": " +
         e.message;
}

std::string window_text(int64_t us) {
  if (us % 3'600'000'000LL == 0) return std::to_string(us / 3'600'000'000LL) + "h";
  if (us % 60'000'000 == 0) return std::to_string(us / 60'000'000) + "m";
  return std::to_string(us / 1'000'000) + "s";
}

}  // namespace eval_ufm_ber_detail

std::string utc_text(int64_t time_us) {
  std::time_t secs = static_cast<std::time_t>(time_us / 1'000'000);
  if (time_us < 0 && time_us % 1'000'000) --secs;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool ufm_high_ber_fires(const Rule& r, const PortWindow& p, int64_t now_us, std::string* what,
                        Evidence* ev) {
  namespace d = eval_ufm_ber_detail;
  if (p.ber_events.empty()) return false;
  // The events after the last clearing up to now; only those in the window with enough
  // severity count. Indexes, so the no-fire path copies nothing.
  size_t from = 0;
  for (size_t i = 0; i < p.ber_events.size() && p.ber_events[i].time_us <= now_us; ++i)
    if (p.ber_events[i].cleared) from = i + 1;
  std::vector<size_t> used;
  for (size_t i = from; i < p.ber_events.size(); ++i) {
    const BerEvent& e = p.ber_events[i];
    if (e.cleared || e.time_us > now_us || e.time_us <= now_us - r.window_us) continue;
    if (e.severity >= r.min_severity) used.push_back(i);
  }
  if (used.empty()) return false;
  ev->window_us = r.window_us;
  for (size_t i : used) {
    ev->ber_events.push_back(p.ber_events[i]);
    ev->last_time_us = std::max(ev->last_time_us, p.ber_events[i].time_us);
  }
  const BerEvent& latest = p.ber_events[used.back()];
  *what = "UFM reports high BER: " + std::to_string(used.size()) +
          " high_ber event(s) >= " + std::string(ingest::severity_name(r.min_severity)) + " in " +
          d::window_text(r.window_us) + ", not cleared; latest " + d::describe(latest);
  return true;
}

}  // namespace ibw::rules
