#include "daemon/probe_intake.h"

#include <algorithm>

namespace ibw::daemon {

IntakeVerdict IntakeQuota::admit(const std::string& source, uint64_t records, uint64_t bytes,
                                 int64_t now_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = sources_.find(source);
  if (it == sources_.end()) {
    if (sources_.size() >= kMaxSources)
      for (auto s = sources_.begin(); s != sources_.end();)
        s = now_us - s->second.start_us >= limits_.window_us ? sources_.erase(s) : std::next(s);
    // Still full: every new source shares one entry (bounded memory, still limited).
    it = sources_.size() < kMaxSources ? sources_.emplace(source, Window{now_us}).first
                                       : sources_.emplace("(overflow)", Window{now_us}).first;
  }
  Window& w = it->second;
  if (now_us - w.start_us >= limits_.window_us) w = Window{now_us};
  IntakeVerdict v;
  if (w.records + records > limits_.records)
    v.reason = "records";
  else if (w.bytes + bytes > limits_.bytes)
    v.reason = "bytes";
  if (!*v.reason) {
    w.records += records, w.bytes += bytes;
    return v;
  }
  int64_t left_us = w.start_us + limits_.window_us - now_us;
  v.retry_after_s = std::max<int64_t>(1, (left_us + 999'999) / 1'000'000);
  return v;
}

void RefusalCounts::add(const std::string& reason, uint64_t n) {
  if (!n) return;
  std::lock_guard<std::mutex> lock(mutex_);
  counts_[reason] += n;
}

std::map<std::string, uint64_t> RefusalCounts::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

}  // namespace ibw::daemon
