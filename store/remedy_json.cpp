#include "store/remedy_json.h"

#include <cstdio>
#include <ctime>

#include "fabric/model.h"
#include "store/record_json.h"

namespace ibw::store {

namespace remedy_json_detail {

nlohmann::json evidence_object(const std::string& text) {
  if (text.empty()) return nlohmann::json::object();
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : nlohmann::json::object();
}

std::string guid_or_empty(uint64_t guid) {
  return guid ? fabric::format_guid(guid) : std::string();
}

// "NODE/PORT" ("NODE" for port 0: an order about a whole switch); the GUID stands in for a
// missing name; "" for an unknown end.
std::string end_label(const LinkEnd& e) {
  std::string name = e.node.empty() ? guid_or_empty(e.guid) : e.node;
  if (name.empty() || e.port == 0) return name;
  return name + "/" + std::to_string(e.port);
}

}  // namespace remedy_json_detail

nlohmann::json decision_json(const DecisionRecord& d) {
  using namespace remedy_json_detail;
  nlohmann::json j;
  j["id"] = d.id;
  j["time"] = iso_time(d.time_us);
  j["rule"] = d.rule;
  j["node"] = d.node;
  j["node_guid"] = guid_or_empty(d.node_guid);
  j["port"] = d.port;
  j["peer_node"] = d.peer_node;
  j["peer_port"] = d.peer_port;
  j["cable_id"] = d.cable_id;
  j["action"] = d.action;
  j["status"] = d.status;
  j["reason"] = d.reason;
  j["evidence"] = evidence_object(d.evidence_json);
  return j;
}

nlohmann::json workorder_json(const WorkOrder& o) {
  using namespace remedy_json_detail;
  nlohmann::json j;
  j["id"] = o.id;
  j["cable_id"] = o.cable_id;
  j["a"] = end_label(o.a);
  j["b"] = end_label(o.b);
  nlohmann::json locations = nlohmann::json::array();
  for (const LinkEnd* e : {&o.a, &o.b})
    if (!e->location.empty()) locations.push_back(e->location);
  j["locations"] = std::move(locations);
  j["status"] = o.status;
  j["rule"] = o.rule;
  j["summary"] = o.summary;
  j["offences"] = o.offences;
  j["opened"] = iso_time(o.opened_us);
  j["updated"] = iso_time(o.updated_us);
  j["severity"] = o.severity;
  j["advice"] = o.advice;
  j["needs_human"] = o.needs_human;
  j["port_disabled"] = o.port_disabled;
  j["assignee"] = o.assignee;
  j["note"] = o.note;
  j["resolved"] = o.resolved_us > 0 ? nlohmann::json(iso_time(o.resolved_us)) : nullptr;
  j["version"] = o.version;
  j["link_key"] = o.link_key;
  j["evidence"] = evidence_object(o.evidence_json);
  j["a_guid"] = guid_or_empty(o.a.guid);
  j["b_guid"] = guid_or_empty(o.b.guid);
  // The stored {"hosts", "unmapped", "jobs"} (actions/affected_jobs.h); null when not known.
  auto affected = nlohmann::json::parse(o.affected_json, nullptr, /*allow_exceptions=*/false);
  bool known = affected.is_object() && affected.contains("jobs") && affected["jobs"].is_array();
  j["affected_hosts"] = known ? affected.value("hosts", nlohmann::json(0)) : nullptr;
  j["affected_jobs"] = known ? affected["jobs"] : nullptr;
  return j;
}

nlohmann::json slurm_json(const std::vector<DecisionRecord>& decisions) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& d : decisions) {
    if (d.rule != core::kSlurmRule || d.action.rfind("slurm_", 0) != 0) continue;
    list.push_back({{"node", d.node},
                    {"action", d.action.substr(6)},
                    {"status", d.status},
                    {"at", iso_time(d.time_us)},
                    {"reason", d.reason}});
  }
  return list;
}

nlohmann::json order_slurm_json(RemedyStore& store, const WorkOrder& o) {
  if (o.link_key.empty()) return nlohmann::json::array();
  DecisionQuery q;
  q.link_key = o.link_key;
  q.limit = 0;
  return slurm_json(store.decisions(q));
}

}  // namespace ibw::store
