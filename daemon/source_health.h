// SourceHealthBoard: the latest health of each of the daemon's remote sources ("ufm",
// "ufm_telemetry"), written by the source threads and read by whoever reports it: the log
// (transitions) today, the web API's /health later (snapshot()). A source calls set() after
// every attempt; set() says whether the state changed, so the caller logs transitions only.
// States are ingest::HealthState: ok, degraded (failing, breaker still closed), down (breaker
// open). Thread-safe (one mutex); a handful of entries, so copies are cheap.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "ingest/ufm/breaker.h"

namespace ibw::daemon {

struct SourceHealthEntry {
  std::string name;  // "ufm", "ufm_telemetry"
  ingest::HealthState state = ingest::HealthState::ok;
  std::string detail;      // why it is not ok (the last error); "" when ok; never a secret
  int64_t last_ok_us = 0;  // last successful call; 0 = none yet
  int64_t updated_us = 0;  // when set() was last called
};

class SourceHealthBoard {
 public:
  // Records `entry` (by name); true when its state differs from the previous one (or it is
  // the first report of a state other than ok).
  bool set(SourceHealthEntry entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& e : entries_) {
      if (e.name != entry.name) continue;
      bool changed = e.state != entry.state;
      e = std::move(entry);
      return changed;
    }
    bool changed = entry.state != ingest::HealthState::ok;
    entries_.push_back(std::move(entry));
    return changed;
  }
  std::vector<SourceHealthEntry> snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<SourceHealthEntry> entries_;
};

}  // namespace ibw::daemon
