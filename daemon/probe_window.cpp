#include "daemon/probe_window.h"

#include <algorithm>
#include <cstddef>

namespace ibw::daemon {

void ProbeWindow::add_round(std::vector<ingest::Observation> obs, int64_t now_us) {
  rounds_q_.push_back({now_us, std::move(obs)});
  while (static_cast<int>(rounds_q_.size()) > std::max(1, rounds_)) rounds_q_.pop_front();
}

size_t ProbeWindow::add_posted(std::vector<ingest::Observation> obs, int64_t now_us) {
  if (obs.empty()) return 0;
  size_t dropped = 0;
  if (obs.size() > max_posted_) {
    dropped = obs.size() - max_posted_;
    obs.erase(obs.begin(), obs.begin() + static_cast<std::ptrdiff_t>(dropped));
  }
  posted_count_ += obs.size();
  posted_q_.push_back({now_us, std::move(obs)});
  while (posted_count_ > max_posted_) {
    dropped += posted_q_.front().obs.size();
    posted_count_ -= posted_q_.front().obs.size();
    posted_q_.pop_front();
  }
  return dropped;
}

void ProbeWindow::expire(int64_t now_us) {
  int64_t span = static_cast<int64_t>(std::max(1, rounds_)) * interval_us_;
  while (!posted_q_.empty() && now_us - posted_q_.front().time_us > span) {
    posted_count_ -= posted_q_.front().obs.size();
    posted_q_.pop_front();
  }
}

void ProbeWindow::clear() {
  rounds_q_.clear();
  posted_q_.clear();
  posted_count_ = 0;
}

std::vector<ingest::Observation> ProbeWindow::all() const {
  std::vector<ingest::Observation> out;
  for (const auto* q : {&rounds_q_, &posted_q_})
    for (const Batch& b : *q) out.insert(out.end(), b.obs.begin(), b.obs.end());
  return out;
}

size_t ProbeWindow::posted() const {
  return posted_count_;
}

int64_t ProbeWindow::oldest_us() const {
  int64_t t = 0;
  for (const auto* q : {&rounds_q_, &posted_q_})
    if (!q->empty() && (!t || q->front().time_us < t)) t = q->front().time_us;
  return t;
}

}  // namespace ibw::daemon
