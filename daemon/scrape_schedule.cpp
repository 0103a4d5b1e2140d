// When the UFM inventory read may start; see daemon/scrape_schedule.h.
#include "daemon/scrape_schedule.h"

namespace ibw::daemon {

void ScrapeSchedule::begin(int64_t now_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  running_ = true;
  began_us_ = now_us;
}

void ScrapeSchedule::end(int64_t now_us, int64_t next_due_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_) last_took_us_ = now_us - began_us_;
  running_ = false;
  next_due_us_ = next_due_us;
}

bool ScrapeSchedule::clear_for(int64_t now_us, int64_t read_us) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_) return false;
  if (!next_due_us_) return true;
  // The read [now, now + read] against the next scrape [due, due + last took].
  return now_us + read_us <= next_due_us_ || now_us >= next_due_us_ + last_took_us_;
}

}  // namespace ibw::daemon
