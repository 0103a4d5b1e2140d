// SmBoard: the subnet manager's state as the daemon knows it, published by the SM watcher
// (daemon/sources/sm_watch.cpp) and read by the action worker (hold_reason: automatic port
// actions wait while there is no master), the web API (/health, /metrics, the dashboard) and,
// through the stored cursor "subnet_manager", `ibwarden status`. Thread-safe (one mutex).
//
// The conservative rule: with the watcher on, a daemon that cannot tell whether there is a
// master (before the first poll, or the watcher failing) holds actions as if there were none.
// With the watcher off (sm_watch.enabled false, or auto without MADs) nothing is held, and
// the state says so ("watch": "off").
//
// The local OpenSM's logged state ("log_state"): the last state line of the OpenSM log
// (ingest/opensm_sm_state.h), noted as its sm_state events pass the publish sequence. It is
// shown and it wakes the SM watcher (log_seq) for an early SMInfo poll, but it never holds or
// releases actions: the log may be stale, or another host's SM may be the master; only the
// watcher's SMInfo polls decide "no master".
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
  // A state line of the OpenSM log at time_us ("master", "exiting", ...: sm_log_state_name).
  // A line older than the one kept is ignored (a backlog read after a newer one).
  void note_log_state(std::string state, int64_t time_us);
  // The logged state as the last run stored it (the "subnet_manager" cursor, json() of that
  // run): kept until a state line is read, so a restarted daemon still shows it. Bad or
  // missing "log_state" is ignored.
  void restore_log_state(const nlohmann::json& stored);
  struct LogState {
    std::string state;
    int64_t time_us = 0;  // 0 when restored
    std::string at;       // ISO time
  };
  std::optional<LogState> log_state() const;
  // Moves with every note_log_state (the SM watcher naps until it moves).
  uint64_t log_seq() const;

  // Why automatic port actions must wait now; nullopt when they may go ahead.
  std::optional<std::string> hold_reason() const;
  // {"watch": "on" | "off", "status", "master", "standby", "last_sweep", "failovers",
  //  "no_master_since", "detail", "log_state": {"state", "at"} | null}: the state for status,
  //  /health and the dashboard.
  nlohmann::ordered_json json() const;

 private:
  mutable std::mutex mutex_;
  bool on_ = false;
  std::string why_off_ = "the SM watcher has not started";
  nlohmann::ordered_json view_;  // null before the first poll
  std::string failure_;
  int64_t last_sweep_us_ = 0;
  std::optional<LogState> log_state_;
  uint64_t log_seq_ = 0;
};

// The hold reason while there is no master SM (decisions record it).
inline constexpr const char* kNoMasterSm = "no master SM";

}  // namespace ibw::daemon
