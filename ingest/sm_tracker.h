// SmTracker: the subnet manager's state as the SM watcher (daemon/sources/sm_watch.cpp) sees
// it, poll by poll. Pure: each poll's SMInfo answers go in, events come out.
//
// A master is an SM whose SMInfo answers with state MASTER (the one at the local port's
// MasterSMLID first). There is no master when, for `fail_polls` polls in a row, no SM answers
// as MASTER, or when the master's ActCount has not moved for `freeze_us` (a hung SM).
// Events (source opensm):
//  - sm_no_master (critical): no master SM; automatic actions are held meanwhile;
//  - sm_failover (warning): a master with another GUID than the last one seen;
//  - sm_master (info): a master again after sm_no_master (or the first master seen after a
//    start that began without one).
// Heavy sweeps are the OpenSM log's `sweep` events (ingest/opensm_log.h) and the incidents'
// sm_resweep; note_sweep() keeps the last one's time for the view.
//
// The OpenSM log's state lines (ingest/opensm_sm_state.h: "Exiting SM", "Entering STANDBY
// state", "Entering MASTER state" ...) only pace the polls: note_log_state() asks for a poll at
// once and the next `fail_polls` polls at kQuickPollUs, so MADs confirm what the log says
// (no master, a new master) in well under a second instead of `fail_polls` intervals. A log
// line never changes the status by itself: the log may be stale, or belong to an SM that is
// not the master; "no master" takes `fail_polls` polls without a MASTER answer as always.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/sm_info.h"
#include "ingest/event.h"
#include "ingest/opensm_sm_state.h"

namespace ibw::ingest {

namespace kind {
inline constexpr std::string_view sm_no_master = "sm_no_master";
inline constexpr std::string_view sm_failover = "sm_failover";
inline constexpr std::string_view sm_master = "sm_master";
}  // namespace kind

// The pace of the polls after a log state line (bounded by the configured interval).
inline constexpr int64_t kQuickPollUs = 250'000;
// A state line older than this (at the time it is noted) paces nothing: a backlog.
inline constexpr int64_t kStaleLogStateUs = 60'000'000;

struct SmTrackerConfig {
  int fail_polls = 2;              // polls without a master before "no master"
  int64_t freeze_us = 30'000'000;  // a master whose ActCount stays this long is hung
};

// One poll's answers.
struct SmPoll {
  int64_t time_us = 0;
  uint16_t master_lid = 0;              // the local port's MasterSMLID (0: unknown)
  std::vector<fabric::SmInfo> answers;  // every SM that answered SMInfo
};

enum class SmStatus : uint8_t { unknown, master, no_master };
std::string_view sm_status_name(SmStatus s);  // "unknown", "master", "no_master"

class SmTracker {
 public:
  explicit SmTracker(SmTrackerConfig config = {}) : config_(config) {}

  // Takes one poll; returns the events it gives (none most of the time).
  std::vector<Event> update(const SmPoll& poll);
  // The last heavy sweep (an OpenSM `sweep` or `subnet_up` event).
  void note_sweep(int64_t time_us) { last_sweep_us_ = std::max(last_sweep_us_, time_us); }
  // A state line of the OpenSM log, written at line_us, noted at now_us. Returns whether it
  // paces the polls (false for none and for a stale line).
  bool note_log_state(SmLogState state, int64_t line_us, int64_t now_us);
  // When the poll after the one at last_poll_us is due, for polls every interval_us:
  // last_poll_us itself after a log state line not polled for yet, last_poll_us +
  // min(interval_us, kQuickPollUs) for the quick polls that follow it, else + interval_us.
  int64_t next_poll_us(int64_t last_poll_us, int64_t interval_us) const;

  SmStatus status() const { return status_; }
  const std::optional<fabric::SmInfo>& master() const { return master_; }
  const std::vector<fabric::SmInfo>& standby() const { return standby_; }
  uint64_t failovers() const { return failovers_; }
  // Why there is no master ("" otherwise).
  const std::string& detail() const { return detail_; }

  // {"status", "master": {"guid", "lid", "priority", "state", "since"} | null,
  //  "standby": [{"guid", "lid", "priority", "state"}], "last_sweep": ISO | null,
  //  "failovers": N, "no_master_since": ISO | null, "detail"}.
  nlohmann::ordered_json to_json() const;

 private:
  Event event(std::string_view kind, Severity sev, int64_t time_us, const std::string& msg,
              const fabric::SmInfo* sm) const;

  SmTrackerConfig config_;
  SmStatus status_ = SmStatus::unknown;
  std::optional<fabric::SmInfo> master_;
  int64_t master_since_us_ = 0;
  uint64_t last_master_guid_ = 0;
  uint32_t last_act_ = 0;
  int64_t last_act_us_ = 0;  // when the master's ActCount last moved
  std::vector<fabric::SmInfo> standby_;
  int missed_ = 0;
  int64_t no_master_since_us_ = 0;
  int64_t last_sweep_us_ = 0;
  uint64_t failovers_ = 0;
  std::string detail_;
  bool log_poll_ = false;  // a log state line came after the last poll
  int quick_polls_ = 0;    // polls left at kQuickPollUs
};

}  // namespace ibw::ingest
