#include "app/rule_runner.h"

namespace ibw::app {

RuleRunner::RuleRunner(rules::RuleSet rules)
    : rules_(std::move(rules)), history_(rules::longest_window(rules_)) {}

void RuleRunner::add_deltas(const std::vector<ingest::CounterDelta>& deltas) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& d : deltas) history_.add_delta(d);
}

void RuleRunner::add_events(const std::vector<ingest::Event>& events) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& e : events) {
    if (!e.node_guid || !e.port) continue;
    if (e.kind == ingest::kind::link_down)
      history_.add_link_event(e.node_guid, e.port, e.time_us, true);
    else if (e.kind == ingest::kind::link_up)
      history_.add_link_event(e.node_guid, e.port, e.time_us, false);
  }
}

std::vector<rules::Verdict> RuleRunner::evaluate(const Topology& topo, int64_t now_us) {
  std::lock_guard<std::mutex> lock(mutex_);  // windows borrow the history's deltas
  history_.prune(now_us);
  std::vector<rules::PortWindow> windows = history_.windows(topo.links);
  std::vector<rules::Verdict> out;
  for (auto& v : rules::evaluate(rules_, windows, now_us))
    if (v.confirmed && v.action != rules::Action::none) out.push_back(std::move(v));
  return out;
}

}  // namespace ibw::app
