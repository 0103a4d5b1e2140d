// Storm grouping of UFM events. On a UFM restart or reboot, and on mass events such as a switch
// going down, UFM writes hundreds of events within a second; public tooling drops bursts of
// more than 50 events within 1 s as noise (ufm-api.md §4, IMB). Here they are not dropped but
// summarised: one storm summary (kind ufm_storm) replaces the individual, actionable events.
//
// The exact rule (split_storms), with W = window_us (1 s) and N = threshold (50):
//  - events are ordered by (time, id); an event is *stormy* when some half-open interval
//    [t, t + W) contains it together with more than N events in all (N + 1 or more);
//  - stormy events whose times are less than W apart (in that order) form one storm, so a
//    storm that lasts longer than W stays one summary;
//  - every other event is *calm* and returned individually, in id order;
//  - events without a time (time_us == 0: unreadable timestamp) are always calm.
//
// Across polls (UfmStormGrouper): a storm can straddle two polls. The grouper therefore
//  - counts the events of earlier polls that lie within W of a new batch towards its density
//    (they were already delivered; they are not delivered again nor counted in a summary);
//  - holds back the calm events of the batch's last window when that window already holds
//    more than hold_threshold events (10): they are decided with the next batch, and released
//    by it whatever it holds (an event is held at most once, so at most one poll late).
// So at most hold_threshold events of a storm can be delivered individually before it is
// recognised, and a storm split by a poll gives two summaries.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ingest/event.h"
#include "ingest/ufm/events.h"

namespace ibw::ingest {

struct UfmStormOptions {
  int64_t window_us = 1'000'000;
  size_t threshold = 50;       // more than this many events within one window make a storm
  size_t hold_threshold = 10;  // a batch's last window this full is held for the next batch
};

struct UfmStorm {
  int64_t first_us = 0;  // time of the earliest and latest event
  int64_t last_us = 0;
  size_t count = 0;      // events summarised
  int64_t first_id = 0;  // lowest and highest UFM id among them
  int64_t last_id = 0;
  std::string first_timestamp;                  // raw timestamp of the earliest (dedup key)
  std::vector<std::pair<int, size_t>> by_type;  // event type -> count, most frequent first
};

struct UfmStormSplit {
  std::vector<UfmEvent> calm;    // delivered individually, in id order
  std::vector<UfmStorm> storms;  // in time order
};

UfmStormSplit split_storms(std::vector<UfmEvent> events, const UfmStormOptions& options = {});

// The summary as an internal event: kind ufm_storm, severity warning, time of the first
// event, message "UFM event storm: 812 events in 0.9 s (ids 100-911; 329 x400, 328 x400,
// 702 x12)", dedup_key "ufm-storm:<first id>:<its timestamp to the second, digits only>".
Event storm_event(const UfmStorm& storm);

class UfmStormGrouper {
 public:
  explicit UfmStormGrouper(UfmStormOptions options = {}) : options_(options) {}
  // Splits the next batch (new events only, any order); see the rules at the top.
  UfmStormSplit feed(std::vector<UfmEvent> batch);
  // Events held back by the last feed, decided by the next one.
  const std::vector<UfmEvent>& held() const { return held_; }

 private:
  UfmStormOptions options_;
  std::vector<int64_t> recent_;  // times of already delivered events near the newest one
  std::vector<UfmEvent> held_;
};

}  // namespace ibw::ingest
