// What the incident tracker reports: lists, coverage, work-order verdicts, metrics, the feed
// event and the JSON shape (incidents.h).
#include <algorithm>

#include "core/time_text.h"
#include "fabric/model.h"
#include "rules/incidents.h"

namespace ibw::rules {

std::string IncidentTracker::name(uint64_t guid) const {
  if (!guid) return "subnet manager";
  auto it = names_.find(guid);
  return it != names_.end() && !it->second.empty() ? it->second : fabric::format_guid(guid);
}

std::string IncidentTracker::state_of(const Incident& inc, int64_t now_us) const {
  return inc.down > 0 || now_us - inc.last_us < opt_.quiet_us ? "active" : "resolved";
}

std::string IncidentTracker::kind_now(const Incident& inc, int64_t now_us) const {
  bool stays_down = inc.down_since_us && now_us - inc.down_since_us >= opt_.down_for_us;
  return inc.kind == "switch_reboot" && stays_down ? "switch_down" : inc.kind;
}

std::vector<Incident> IncidentTracker::list(int64_t since_us, int64_t now_us) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Incident> out;
  for (const auto& inc : incidents_) {
    std::string state = state_of(inc, now_us);
    if (state != "active" && inc.last_us < since_us) continue;
    Incident& o = out.emplace_back(inc);
    o.state = state;
    o.kind = kind_now(inc, now_us);
    o.node = name(inc.node_guid);
    for (End l : inc.links) {
      o.ports.push_back({l.guid, l.port, name(l.guid)});
      if (auto p = peer_.find(l); p != peer_.end())
        o.ports.push_back({p->second.guid, p->second.port, name(p->second.guid)});
    }
  }
  return out;
}

bool IncidentTracker::covers(uint64_t guid, int port, int64_t since_us) const {
  std::lock_guard<std::mutex> lock(mutex_);
  End link = link_id({guid, port});
  for (const auto& inc : incidents_) {
    // A host link that keeps going down and up is not a host rebooting but the link
    // flapping: the flap rule decides (and the guard keeps the host on the fabric).
    if (inc.kind == "host_down" && inc.cycles >= opt_.order_cycles) continue;
    if (inc.last_us >= since_us && inc.links.count(link)) return true;
  }
  return false;
}

std::vector<Verdict> IncidentTracker::orders(int64_t now_us) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<Verdict> out;
  for (const auto& inc : incidents_) {
    std::string kind = kind_now(inc, now_us);
    if (state_of(inc, now_us) != "active" || (kind != "switch_reboot" && kind != "switch_down"))
      continue;
    if (kind == "switch_reboot" && inc.cycles < opt_.order_cycles) continue;
    Verdict& v = out.emplace_back();
    v.rule = "incident_" + kind;
    v.type = RuleType::link_flap;
    v.action = Action::work_order;
    v.severity = ingest::Severity::error;
    v.node_guid = inc.node_guid;
    v.port = 0;
    v.confirmed = true;
    std::string what = kind == "switch_down"
                           ? "down since " + core::iso_time_us(inc.down_since_us) + " (" +
                                 std::to_string(inc.links.size()) + " links)"
                           : "rebooted " + std::to_string(inc.cycles) + " times since " +
                                 core::iso_time_us(inc.first_us) + " (every one of its " +
                                 std::to_string(inc.links.size()) + " links down at once)";
    v.explanation = fabric::format_guid(inc.node_guid) + "/0: " + v.rule + ": switch " +
                    name(inc.node_guid) + " " + what + "; incident " + inc.id;
    v.evidence.flaps = inc.cycles;
    v.evidence.last_time_us = inc.last_us;
  }
  return out;
}

std::map<std::string, uint64_t> IncidentTracker::opened() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return opened_;
}

std::map<std::string, int> IncidentTracker::active(int64_t now_us) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<std::string, int> out;
  for (const auto& inc : incidents_)
    if (state_of(inc, now_us) == "active") ++out[kind_now(inc, now_us)];
  return out;
}

uint64_t IncidentTracker::dropped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

ingest::Event IncidentTracker::feed_event(const Incident& inc, const ingest::Event& cause) const {
  ingest::Event e;
  e.time_us = cause.time_us;
  e.source = cause.source;
  e.kind = "incident";
  e.severity = inc.kind == "switch_reboot" || inc.kind == "host_down" ? ingest::Severity::warning
                                                                      : ingest::Severity::info;
  e.node_guid = inc.node_guid;
  e.node = inc.node_guid ? name(inc.node_guid) : "";
  std::string links =
      std::to_string(inc.links.size()) + " link" + (inc.links.size() == 1 ? "" : "s");
  if (inc.kind == "switch_reboot")
    e.message = "switch_reboot: " + name(inc.node_guid) + " lost " + std::to_string(inc.down) +
                " of its " + links + " at once (reboot " + std::to_string(inc.cycles) + ")";
  else if (inc.kind == "host_down")
    e.message = "host_down: " + name(inc.node_guid) + " lost its " + links;
  else if (inc.kind == "sm_resweep")
    e.message = "sm_resweep: the subnet manager re-initialised " + links;
  else
    e.message = inc.kind + ": counter queries of " + std::to_string(inc.links.size()) +
                " hosts behind " + name(inc.node_guid) + " fail";
  e.message += "; their own findings are held (incident " + inc.id + ")";
  e.dedup_key = "incident:" + inc.id + ":" + inc.kind + ":" + std::to_string(inc.cycles);
  return e;
}

nlohmann::json incident_json(const Incident& inc) {
  nlohmann::json ports = nlohmann::json::array();
  for (const auto& p : inc.ports) ports.push_back(p.node + "/" + std::to_string(p.port));
  return {{"id", inc.id},
          {"kind", inc.kind},
          {"node", inc.node},
          {"node_guid", inc.node_guid ? fabric::format_guid(inc.node_guid) : ""},
          {"ports", std::move(ports)},
          {"first", core::iso_time_us(inc.first_us)},
          {"last", core::iso_time_us(inc.last_us)},
          {"events", inc.events},
          {"cycles", inc.cycles},
          {"state", inc.state}};
}

}  // namespace ibw::rules
