// SmBoard: the subnet manager's state as the daemon knows it, published by the SM watcher
// (daemon/sources/sm_watch.cpp) and read by the action worker (hold_reason: automatic port
// actions wait while there is no master), the web API (/health, /metrics, the dashboard) and,
// through the stored cursor "subnet_manager", `ibwarden status`. Thread-safe (one mutex).
//
// The conservative rule: with the watcher on, a daemon that cannot tell whether there is a
// master (before the first poll, or the watcher failing) holds actions as if there were none.
// With the watcher off (sm_watch.enabled false, or auto without MADs) nothing is held, and
// the state says so ("watch": "off").
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ibw::daemon {

class SmBoard {
 public:
  // Whether the watcher runs; `why_off` says why not (shown in the state).
  void configure(bool on, std::string why_off = "");
  bool on() const;
  // The watcher's latest view: ingest::SmTracker::to_json() ("status" master | no_master |
  // unknown, ...).
  void publish(nlohmann::ordered_json view);
  // The watcher could not poll (the local port cannot be opened): state unknown, why.
  void fail(const std::string& detail);
  // A heavy sweep (OpenSM log `sweep` or `subnet_up` events pass the publish sequence).
  void note_sweep(int64_t time_us);
  int64_t last_sweep() const;

  // Why automatic port actions must wait now; nullopt when they may go ahead.
  std::optional<std::string> hold_reason() const;
  // {"watch": "on" | "off", "status", "master", "standby", "last_sweep", "failovers",
  //  "no_master_since", "detail"}: the state for status, /health and the dashboard.
  nlohmann::ordered_json json() const;

 private:
  mutable std::mutex mutex_;
  bool on_ = false;
  std::string why_off_ = "the SM watcher has not started";
  nlohmann::ordered_json view_;  // null before the first poll
  std::string failure_;
  int64_t last_sweep_us_ = 0;
};

// The hold reason while there is no master SM (decisions record it).
inline constexpr const char* kNoMasterSm = "no master SM";

}  // namespace ibw::daemon
