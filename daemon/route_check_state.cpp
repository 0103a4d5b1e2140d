// RouteCheckBoard::update: keeps the result and diffs it against the previous check.
#include "daemon/route_check_state.h"

#include <algorithm>

#include "core/time_text.h"
#include "fabric/route_check_report.h"

namespace ibw::daemon {
namespace route_state_detail {

ingest::Event route_event(std::string_view kind, ingest::Severity sev, int64_t now_us,
                          std::string message, const std::string& key) {
  ingest::Event e;
  e.time_us = now_us;
  e.source = ingest::EventSource::opensm;
  e.kind = std::string(kind);
  e.severity = sev;
  e.message = std::move(message);
  e.dedup_key = "route:" + std::string(kind) + ":" + std::to_string(now_us) + ":" + key;
  return e;
}

}  // namespace route_state_detail

std::vector<ingest::Event> RouteCheckBoard::update(const fabric::Fabric& fab,
                                                   const fabric::RouteCheck& check,
                                                   const fabric::RoutingEngineInfo& engine,
                                                   int64_t now_us, double seconds) {
  using route_state_detail::route_event;
  std::vector<ingest::Event> events;
  std::vector<std::string> texts;  // each loop's links, as text
  for (const fabric::CreditLoop& loop : check.credit_loops) {
    // Each link's VL is named once a table moved a link off VL 0 (one VL: as before).
    bool vls = std::any_of(loop.vls.begin(), loop.vls.end(), [](uint8_t v) { return v != 0; });
    std::string text;
    for (size_t i = 0; i < loop.links.size(); ++i) {
      text += (text.empty() ? "" : ", ") + fabric::format_link(fab, loop.links[i]);
      if (vls && i < loop.vls.size()) text += " (VL " + std::to_string(loop.vls[i]) + ")";
    }
    texts.push_back(std::move(text));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  size_t n = 0;
  for (size_t i = 0; i < check.credit_loops.size(); ++i) {
    const auto& loop = check.credit_loops[i];
    const std::string& text = texts[i];
    if (loops_.count(text)) continue;
    ingest::Event e = route_event(
        ingest::kind::credit_loop, ingest::Severity::error, now_us,
        "credit loop of " + std::to_string(loop.links.size()) + " links (deadlock risk): " + text,
        std::to_string(n++));
    const fabric::Node& first = fab.node(loop.links.front().from_node);
    e.node_guid = first.guid;
    e.node = first.name;
    e.port = loop.links.front().from_port;
    events.push_back(std::move(e));
  }
  loops_ = std::set<std::string>(texts.begin(), texts.end());
  std::string fallback =
      engine.fallback() ? engine.configured() + ">" + engine.in_use + ": " + engine.reason : "";
  if (!fallback.empty() && fallback != fallback_)
    events.push_back(route_event(ingest::kind::routing_fallback, ingest::Severity::error, now_us,
                                 "OpenSM fell back from routing engine " + engine.configured() +
                                     " to " + engine.in_use + " (" + engine.reason + ")",
                                 "0"));
  fallback_ = fallback;
  if (check.unreachable_pairs > summary_.unreachable_pairs) {
    std::string example;
    if (!check.unreachable.empty())
      example = ", e.g. LID " + std::to_string(check.unreachable.front().src_lid) + " -> " +
                std::to_string(check.unreachable.front().dst_lid) + ": " +
                check.unreachable.front().reason;
    events.push_back(route_event(
        ingest::kind::unreachable, ingest::Severity::warning, now_us,
        std::to_string(check.unreachable_pairs) + " LID pairs have no working route" + example,
        "0"));
  }
  last_ = fabric::route_check_json(fab, check, engine);
  last_["checked"] = true;
  last_["time"] = core::iso_time_us(now_us);
  last_["seconds"] = seconds;
  summary_.checked = true;
  summary_.credit_loops = check.credit_loops.size();
  summary_.unreachable_pairs = check.unreachable_pairs;
  summary_.balance_ratio = check.balance.ratio;
  summary_.fallback = engine.fallback();
  ++summary_.checks_total;
  last_["checks_total"] = summary_.checks_total;
  return events;
}

nlohmann::json RouteCheckBoard::to_json() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (last_.is_null()) return {{"checked", false}};
  return last_;
}

RouteCheckBoard::Summary RouteCheckBoard::summary() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return summary_;
}

}  // namespace ibw::daemon
