#include "store/record_json.h"

#include <cstdio>
#include <ctime>

#include "core/time_text.h"
#include "fabric/model.h"
#include "fabric/speed.h"
#include "ingest/ufm/resources.h"

namespace ibw::store {

std::string iso_time(int64_t us) {
  return core::iso_time_us(us);
}

nlohmann::ordered_json event_json(const StoredEvent& se) {
  const ingest::Event& e = se.event;
  nlohmann::ordered_json j;
  j["id"] = se.id;
  j["time"] = iso_time(e.time_us);
  j["source"] = ingest::source_name(e.source);
  j["kind"] = e.kind;
  j["severity"] = ingest::severity_name(e.severity);
  j["node"] = e.node;
  j["node_guid"] = e.node_guid ? fabric::format_guid(e.node_guid) : "";
  j["port"] = e.port;
  j["peer_node"] = e.peer_node;
  j["peer_port"] = e.peer_port;
  j["cable_id"] = e.cable_id;
  j["message"] = e.message;
  return j;
}

nlohmann::ordered_json ufm_port_json(const ingest::UfmPortState& u, int our_state) {
  nlohmann::ordered_json j;
  j["name"] = u.name;
  j["state"] = u.logical_state;
  j["phys_state"] = u.physical_state;
  j["speed"] = u.speed;
  j["width"] = u.width;
  j["high_ber_severity"] = u.high_ber_severity.empty() ? "N/A" : u.high_ber_severity;
  j["severity"] = u.severity;
  j["peer_node"] = u.peer_node;
  j["peer_guid"] = u.peer_guid ? fabric::format_guid(u.peer_guid) : "";
  j["peer_port"] = u.peer_port;
  j["peer_from"] = u.peer_from;
  const int theirs = ingest::ufm_logical_state(u.logical_state);
  j["state_differs"] = our_state != 0 && theirs != 0 && our_state != theirs;
  j["since"] = iso_time(u.since_us);
  return j;
}

nlohmann::ordered_json port_json(const PortRecord& p) {
  nlohmann::ordered_json j;
  j["node"] = p.node;
  j["node_guid"] = fabric::format_guid(p.node_guid);
  j["port"] = p.port;
  j["lid"] = p.lid;
  j["peer_node"] = p.peer_node;
  j["peer_port"] = p.peer_port;
  j["cable_id"] = p.cable_id;
  j["state"] = p.state ? fabric::port_state_name(p.state) : "?";
  j["phys_state"] = p.phys_state ? fabric::phys_state_name(p.phys_state) : "?";
  j["width"] = p.width ? fabric::width_name(p.width) : "";
  j["speed"] = p.speed;
  nlohmann::ordered_json counters = nlohmann::ordered_json::object();
  nlohmann::ordered_json rates = nlohmann::ordered_json::object();
  nlohmann::ordered_json deltas = nlohmann::ordered_json::object();
  nlohmann::ordered_json saturated = nlohmann::ordered_json::array();
  for (size_t i = 0; i < ingest::kCounterCount; ++i) {
    auto c = static_cast<ingest::Counter>(i);
    std::string name(ingest::counter_name(c));
    if (p.counters.has(c)) counters[name] = p.counters.get(c);
    if (p.rates_valid & (1u << i)) rates[name] = p.rates[i];
    if (p.deltas_valid & (1u << i)) deltas[name] = p.deltas[i];
    if (p.counters.saturated & (1u << i)) saturated.push_back(name);
  }
  j["counters"] = counters;
  j["rates"] = rates;
  j["deltas"] = deltas;
  j["saturated"] = saturated;
  j["counters_time"] = iso_time(p.counters.time_us);
  j["last_change"] = iso_time(p.last_change_us);
  if (p.ufm) j["ufm"] = ufm_port_json(*p.ufm, p.state);
  return j;
}

}  // namespace ibw::store
