// ProbeWindow: the observations the daemon localizes over: the last `rounds` probe rounds of
// its own prober, plus external observations (spool files, POST /api/v1/probes) received
// within the time those rounds span (rounds x interval). Cleared when an action changes the
// fabric (a disabled link: old routes no longer hold). External observations are bounded:
// past `max_posted` (probes.max_posted) the oldest external batches are dropped, so a flood of
// posts or files cannot grow the window without end. Not thread-safe: the probe thread owns
// it; POSTed observations reach it through a queue (daemon/probe_state.h).
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "ingest/observation.h"

namespace ibw::daemon {

class ProbeWindow {
 public:
  static constexpr size_t kUnbounded = static_cast<size_t>(-1);
  ProbeWindow(int rounds, int64_t interval_us, size_t max_posted = kUnbounded)
      : rounds_(rounds), interval_us_(interval_us), max_posted_(max_posted) {}

  void add_round(std::vector<ingest::Observation> obs, int64_t now_us);
  // Returns how many older external observations were dropped to stay within max_posted
  // (a batch larger than max_posted keeps its newest max_posted records).
  size_t add_posted(std::vector<ingest::Observation> obs, int64_t now_us);
  // Drops posted batches older than rounds x interval (the rounds themselves age by count).
  void expire(int64_t now_us);
  void clear();

  // Every observation in the window: rounds oldest first, then posted batches.
  std::vector<ingest::Observation> all() const;
  int rounds() const { return static_cast<int>(rounds_q_.size()); }
  size_t posted() const;
  int64_t oldest_us() const;  // 0 when empty

 private:
  struct Batch {
    int64_t time_us = 0;
    std::vector<ingest::Observation> obs;
  };
  int rounds_;
  int64_t interval_us_;
  size_t max_posted_;
  size_t posted_count_ = 0;
  std::deque<Batch> rounds_q_;
  std::deque<Batch> posted_q_;
};

}  // namespace ibw::daemon
