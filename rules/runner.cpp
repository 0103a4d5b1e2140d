#include "rules/runner.h"

#include <chrono>

namespace ibw::rules {

RuleRunner::RuleRunner(RuleSet rules)
    : rules_(std::move(rules)), needs_(event_needs(rules_)), history_(longest_window(rules_)) {
  history_.follow(rules_);
}

void RuleRunner::add_deltas(const std::vector<ingest::CounterDelta>& deltas) {
  std::lock_guard<std::mutex> lock(mutex_);
  history_.add_deltas(deltas);
}

bool RuleRunner::set_floor(uint64_t node_guid, int port, int64_t since_us) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (history_.floor_of(node_guid, port) >= since_us) return false;
  history_.set_floor(node_guid, port, since_us);
  return true;
}

bool RuleRunner::seen_from_other_source(const ingest::Event& e, bool down) {
  auto& seen = recent_links_[e.node_guid * 256 + static_cast<uint64_t>(e.port & 0xff)];
  std::erase_if(seen, [&](const SeenLink& s) {  // keep the last minute or so
    return s.time_us < e.time_us - 12 * kLinkDedupUs;
  });
  for (const auto& s : seen)
    if (s.down == down && s.source != e.source && s.time_us > e.time_us - kLinkDedupUs &&
        s.time_us < e.time_us + kLinkDedupUs)
      return true;
  seen.push_back({e.time_us, e.source, down});
  return false;
}

size_t RuleRunner::add_events(const std::vector<ingest::Event>& events) {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t kept = 0;
  for (const auto& e : events) {
    if (!wants(e)) continue;
    bool down = e.kind == ingest::kind::link_down;
    bool link = down || e.kind == ingest::kind::link_up;
    if (link && seen_from_other_source(e, down)) continue;
    kept += history_.add_event(e);
  }
  return kept;
}

std::vector<Verdict> RuleRunner::evaluate(const std::vector<LinkInfo>& links, int64_t now_us,
                                          std::vector<Verdict>* reports, EvaluateTimes* times) {
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point& t) {  // microseconds since t; t becomes now
    auto now = Clock::now();
    int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(now - t).count();
    t = now;
    return us;
  };
  EvaluateTimes spent;
  auto t = Clock::now();
  std::lock_guard<std::mutex> lock(mutex_);  // windows borrow the history's deltas
  spent.wait_us = since(t);
  history_.prune(now_us);
  spent.prune_us = since(t);
  std::vector<PortWindow> windows = history_.windows(links);
  spent.windows_us = since(t);
  std::vector<Verdict> out;
  std::vector<Verdict> verdicts = rules::evaluate(rules_, windows, now_us);
  spent.rules_us = since(t);
  if (times) *times = spent;
  for (auto& v : verdicts) {
    if (v.type == RuleType::congestion) {  // a signal of the fabric's load: always reported
      if (reports) reports->push_back(std::move(v));
      continue;
    }
    if (!v.confirmed) continue;
    const Rule* rule = rules_.find(v.rule);
    int64_t window = rule && rule->window_us ? rule->window_us : 60'000'000;
    if (incidents_ && incidents_->covers(v.node_guid, v.port, now_us - window)) continue;
    if (v.action == Action::none || is_congestion_verdict(v)) {  // reported, never acted on
      if (reports) reports->push_back(std::move(v));
      continue;
    }
    out.push_back(std::move(v));
  }
  if (incidents_)
    for (auto& v : incidents_->orders(now_us)) out.push_back(std::move(v));
  return out;
}

}  // namespace ibw::rules
