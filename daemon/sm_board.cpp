#include "daemon/sm_board.h"

#include <algorithm>

#include "core/time_text.h"

namespace ibw::daemon {

void SmBoard::configure(bool on, std::string why_off) {
  std::lock_guard<std::mutex> lock(mutex_);
  on_ = on;
  why_off_ = std::move(why_off);
}

bool SmBoard::on() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return on_;
}

void SmBoard::publish(nlohmann::ordered_json view) {
  std::lock_guard<std::mutex> lock(mutex_);
  view_ = std::move(view);
  failure_.clear();
}

void SmBoard::fail(const std::string& detail) {
  std::lock_guard<std::mutex> lock(mutex_);
  failure_ = detail;
}

void SmBoard::note_sweep(int64_t time_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_sweep_us_ = std::max(last_sweep_us_, time_us);
}

int64_t SmBoard::last_sweep() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_sweep_us_;
}

void SmBoard::note_log_state(std::string state, int64_t time_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (log_state_ && time_us < log_state_->time_us) return;
  log_state_ = LogState{std::move(state), time_us, core::iso_time_us(time_us)};
  ++log_seq_;
}

void SmBoard::restore_log_state(const nlohmann::json& stored) {
  if (!stored.is_object() || !stored.contains("log_state")) return;
  const auto& l = stored["log_state"];
  if (!l.is_object() || !l.value("state", nlohmann::json()).is_string() ||
      !l.value("at", nlohmann::json()).is_string())
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!log_state_)
    log_state_ = LogState{l["state"].get<std::string>(), 0, l["at"].get<std::string>()};
}

std::optional<SmBoard::LogState> SmBoard::log_state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return log_state_;
}

uint64_t SmBoard::log_seq() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return log_seq_;
}

std::optional<std::string> SmBoard::hold_reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!on_) return std::nullopt;
  if (!failure_.empty()) return "SM state unknown (the SM watcher fails: " + failure_ + ")";
  std::string status = view_.is_object() ? view_.value("status", "unknown") : "unknown";
  if (status == "master") return std::nullopt;
  if (status == "no_master") return std::string(kNoMasterSm);
  return "SM state unknown (no SMInfo poll yet)";
}

nlohmann::ordered_json SmBoard::json() const {
  std::lock_guard<std::mutex> lock(mutex_);
  nlohmann::ordered_json j;
  j["watch"] = on_ ? "on" : "off";
  if (view_.is_object() && on_) {
    for (const auto& [k, v] : view_.items()) j[k] = v;
  } else {
    j["status"] = "unknown";
    j["master"] = nullptr;
    j["standby"] = nlohmann::ordered_json::array();
    j["failovers"] = 0;
  }
  j["last_sweep"] = last_sweep_us_ > 0 ? nlohmann::ordered_json(core::iso_time_us(last_sweep_us_))
                                       : nlohmann::ordered_json(nullptr);
  if (!on_)
    j["detail"] = why_off_;
  else if (!failure_.empty())
    j["status"] = "unknown", j["detail"] = failure_;
  if (log_state_)
    j["log_state"] = {{"state", log_state_->state}, {"at", log_state_->at}};
  else
    j["log_state"] = nullptr;
  return j;
}

}  // namespace ibw::daemon
