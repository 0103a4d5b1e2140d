#include "ingest/sm_tracker.h"

#include <algorithm>

#include "core/time_text.h"
#include "fabric/model.h"

namespace ibw::ingest {
namespace sm_tracker_detail {

std::string sm_text(const fabric::SmInfo& s) {
  return fabric::format_guid(s.guid) + " (LID " + std::to_string(s.lid) + ", priority " +
         std::to_string(s.priority) + ")";
}

nlohmann::ordered_json sm_json(const fabric::SmInfo& s) {
  return {{"guid", fabric::format_guid(s.guid)},
          {"lid", s.lid},
          {"priority", s.priority},
          {"state", fabric::sm_state_name(s.state)}};
}

nlohmann::ordered_json time_or_null(int64_t us) {
  return us > 0 ? nlohmann::ordered_json(core::iso_time_us(us)) : nlohmann::ordered_json(nullptr);
}

}  // namespace sm_tracker_detail

std::string_view sm_status_name(SmStatus s) {
  switch (s) {
    case SmStatus::master:
      return "master";
    case SmStatus::no_master:
      return "no_master";
    case SmStatus::unknown:
      break;
  }
  return "unknown";
}

Event SmTracker::event(std::string_view kind, Severity sev, int64_t time_us, const std::string& msg,
                       const fabric::SmInfo* sm) const {
  Event e;
  e.time_us = time_us;
  e.source = EventSource::opensm;
  e.kind = std::string(kind);
  e.severity = sev;
  if (sm) e.node_guid = sm->guid, e.lid = sm->lid;
  e.node = "subnet manager";
  e.message = msg;
  e.dedup_key = "smwatch:" + std::string(kind) + ":" + std::to_string(time_us);
  return e;
}

bool SmTracker::note_log_state(SmLogState state, int64_t line_us, int64_t now_us) {
  if (state == SmLogState::none || now_us - line_us > kStaleLogStateUs) return false;
  log_poll_ = true;
  return true;
}

int64_t SmTracker::next_poll_us(int64_t last_poll_us, int64_t interval_us) const {
  if (log_poll_) return last_poll_us;
  if (quick_polls_ > 0) return last_poll_us + std::min(interval_us, kQuickPollUs);
  return last_poll_us + interval_us;
}

std::vector<Event> SmTracker::update(const SmPoll& poll) {
  namespace d = sm_tracker_detail;
  std::vector<Event> out;
  const int64_t now = poll.time_us;
  if (log_poll_)  // this poll answers a log state line: fail_polls quick ones follow
    log_poll_ = false, quick_polls_ = config_.fail_polls;
  else if (quick_polls_ > 0)
    --quick_polls_;
  // The master: the SM at MasterSMLID answering MASTER, else any SM answering MASTER.
  const fabric::SmInfo* found = nullptr;
  for (const auto& a : poll.answers)
    if (a.state == fabric::SmState::master && (!found || a.lid == poll.master_lid)) found = &a;
  standby_.clear();
  for (const auto& a : poll.answers)
    if (&a != found) standby_.push_back(a);
  std::sort(standby_.begin(), standby_.end(), [](const auto& a, const auto& b) {
    return a.priority != b.priority ? a.priority > b.priority : a.lid < b.lid;
  });

  std::string why;
  bool frozen = false;
  if (found && found->guid == last_master_guid_) {  // the same master: is it alive?
    if (found->act_count != last_act_) {
      last_act_ = found->act_count;
      last_act_us_ = now;
    } else if (now - last_act_us_ >= config_.freeze_us) {
      why = "the master " + d::sm_text(*found) + " answers but its ActCount stayed at " +
            std::to_string(last_act_) + " for " + std::to_string((now - last_act_us_) / 1000000) +
            " s";
      found = nullptr;
      frozen = true;
    }
  }
  if (found) {
    missed_ = 0;
    if (found->guid != last_master_guid_ || !master_) {
      if (last_master_guid_ && found->guid != last_master_guid_) {
        ++failovers_;
        out.push_back(event(kind::sm_failover, Severity::warning, now,
                            "subnet manager failover: master " +
                                fabric::format_guid(last_master_guid_) + " -> " +
                                d::sm_text(*found),
                            found));
      }
      master_since_us_ = now;
      last_act_ = found->act_count;
      last_act_us_ = now;
    }
    if (status_ == SmStatus::no_master)
      out.push_back(event(kind::sm_master, Severity::info, now,
                          "master subnet manager back: " + d::sm_text(*found) + " after " +
                              std::to_string((now - no_master_since_us_) / 1000000) +
                              " s without one",
                          found));
    master_ = *found;
    last_master_guid_ = found->guid;
    status_ = SmStatus::master;
    no_master_since_us_ = 0;
    detail_.clear();
    return out;
  }
  ++missed_;
  if (why.empty())
    why = poll.answers.empty()
              ? "no subnet manager answers SMInfo" +
                    (poll.master_lid ? " (MasterSMLID " + std::to_string(poll.master_lid) + ")"
                                     : std::string())
              : "no subnet manager is in the MASTER state";
  if (status_ != SmStatus::no_master && (frozen || missed_ >= config_.fail_polls)) {
    status_ = SmStatus::no_master;
    no_master_since_us_ = now;
    detail_ = why;
    const fabric::SmInfo* last = master_ ? &*master_ : nullptr;
    out.push_back(event(
        kind::sm_no_master, Severity::critical, now,
        "no master subnet manager: " + why + "; automatic port actions are held until one is back",
        last));
    master_.reset();
  }
  return out;
}

nlohmann::ordered_json SmTracker::to_json() const {
  namespace d = sm_tracker_detail;
  nlohmann::ordered_json j;
  j["status"] = sm_status_name(status_);
  if (master_) {
    auto m = d::sm_json(*master_);
    m["since"] = d::time_or_null(master_since_us_);
    j["master"] = m;
  } else {
    j["master"] = nullptr;
  }
  j["standby"] = nlohmann::ordered_json::array();
  for (const auto& s : standby_) j["standby"].push_back(d::sm_json(s));
  j["last_sweep"] = d::time_or_null(last_sweep_us_);
  j["failovers"] = failovers_;
  j["no_master_since"] = d::time_or_null(no_master_since_us_);
  j["detail"] = detail_;
  return j;
}

}  // namespace ibw::ingest
