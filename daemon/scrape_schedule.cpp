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
  ended_us_ = now_us;
  next_due_us_ = next_due_us;
}

void ScrapeSchedule::stored(int64_t took_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_store_us_ = took_us;
}

bool ScrapeSchedule::clear_for(int64_t now_us, int64_t read_us) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (running_) return false;
  if (!next_due_us_) return true;
  if (now_us < ended_us_ + last_store_us_) return false;  // its batch is likely being written
  // The read [now, now + read] against the next scrape [due, due + last took + store].
  return now_us + read_us <= next_due_us_ ||
         now_us >= next_due_us_ + last_took_us_ + last_store_us_;
}

}  // namespace ibw::daemon
