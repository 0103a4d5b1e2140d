// Parsing of UFM alarms, ports, links, jobs and unhealthy ports; see ufm_resources.h.
#include "ingest/ufm/resources.h"
#include "ingest/text.h"

#include <algorithm>
#include <cctype>

namespace ibw::ingest {
namespace ufm_resources_detail {

namespace j = ufm_json_detail;

// The first non-empty of two fields.
std::string either(const j::Json& o, std::string_view a, std::string_view b) {
  std::string v = j::str(o, a);
  return v.empty() ? j::str(o, b) : v;
}

std::string not_na(std::string v) {
  return v == "N/A" || v == "n/a" ? std::string() : v;
}

UfmLinkEnd link_end(const j::Json& o, const std::string& side) {
  UfmLinkEnd end;
  end.guid = j::guid(o, side + "_guid");
  end.port = static_cast<int>(j::integer_or(o, side + "_port", 0));
  end.dname = j::str(o, side + "_port_dname");
  end.port_name = j::str(o, side + "_port_name");
  end.node_description = j::str(o, side + "_port_node_description");
  return end;
}

std::string label_key(std::string_view system, std::string_view label) {
  std::string key(system);
  key += '\n';
  key += label;
  return key;
}

}  // namespace ufm_resources_detail

UfmParsed<UfmAlarm> parse_ufm_alarms(std::string_view json, const UfmTimeContext& tc) {
  namespace j = ufm_json_detail;
  namespace d = ufm_resources_detail;
  return j::parse_list<UfmAlarm>(
      json, "alarms", [&](const j::Json& o, size_t index, UfmParsed<UfmAlarm>& out) {
        auto id = j::integer(o, "id");
        if (!o.is_object() || !id) {
          ++out.skipped;
          j::warn(out.warnings, "alarms[" + std::to_string(index) + "]: no integer id");
          return;
        }
        UfmAlarm a;
        a.id = *id;
        a.name = d::either(o, "name", "summary");
        a.event_type =
            static_cast<int>(j::integer_or(o, "event_type", j::integer_or(o, "type", 0)));
        a.severity = j::str(o, "severity");
        a.timestamp = j::str(o, "timestamp");
        a.time_us = parse_ufm_timestamp(a.timestamp, tc.utc_offset_s).value_or(0);
        a.event_count = j::integer_or(o, "event_count", 0);
        a.duration_s = j::integer_or(o, "duration", 0);
        a.reason = j::str(o, "reason");
        a.object_name = d::either(o, "related_object_name", "object_name");
        a.object_path = d::either(o, "related_object_path", "object_path");
        a.object = ufm_event_ends(0, "", a.object_name, a.object_path).port;
        out.items.push_back(std::move(a));
      });
}

ufm_json_detail::ListStream<UfmPort> ufm_ports_stream() {
  namespace j = ufm_json_detail;
  namespace d = ufm_resources_detail;
  return j::ListStream<UfmPort>(
      "ports", [](const j::Json& o, size_t index, UfmParsed<UfmPort>& out) {
        std::string name = j::str(o, "name");
        if (!o.is_object() || name.empty()) {
          ++out.skipped;
          j::warn(out.warnings, "ports[" + std::to_string(index) + "]: no name");
          return;
        }
        UfmPort p;
        p.name = std::move(name);
        auto ref = parse_ufm_port_name(p.name);
        if (ref) p.node_guid = ref->guid;
        p.guid = j::guid(o, "guid");
        p.system_guid = j::guid(o, "systemID");
        p.number = static_cast<int>(j::integer_or(o, "number", ref ? ref->port : 0));
        p.dname = j::str(o, "dname");
        p.system_name = j::str(o, "system_name");
        p.node_description = j::str(o, "node_description");
        p.description = j::str(o, "description");
        p.path = j::str(o, "path");
        p.lid = static_cast<int>(j::integer_or(o, "lid", 0));
        p.tier = static_cast<int>(j::integer_or(o, "tier", 0));
        p.logical_state = j::str(o, "logical_state");
        p.physical_state = j::str(o, "physical_state");
        p.severity = j::str(o, "severity");
        p.high_ber_severity = d::not_na(j::str(o, "high_ber_severity"));
        p.active_speed = d::not_na(j::str(o, "active_speed"));
        p.active_width = d::not_na(j::str(o, "active_width"));
        p.enabled_speed = j::str_list(o, "enabled_speed");
        p.supported_speed = j::str_list(o, "supported_speed");
        p.enabled_width = j::str_list(o, "enabled_width");
        p.supported_width = j::str_list(o, "supported_width");
        p.capabilities = j::str_list(o, "capabilities");
        p.peer = d::not_na(j::str(o, "peer"));
        p.peer_node_name = d::not_na(j::str(o, "peer_node_name"));
        p.peer_port_dname = d::not_na(j::str(o, "peer_port_dname"));
        p.peer_node_description = d::not_na(j::str(o, "peer_node_description"));
        p.peer_guid = j::guid(o, "peer_guid");
        if (!p.peer_guid) p.peer_guid = j::guid(o, "remote_guid");
        if (auto peer = parse_ufm_port_name(p.peer)) {
          if (!p.peer_guid) p.peer_guid = peer->guid;
          p.peer_number = peer->port;
        }
        out.items.push_back(std::move(p));
      });
}

UfmParsed<UfmPort> parse_ufm_ports(std::string_view json) {
  auto stream = ufm_ports_stream();
  stream.feed(json);
  return stream.finish();
}

ufm_json_detail::ListStream<UfmLink> ufm_links_stream() {
  namespace j = ufm_json_detail;
  namespace d = ufm_resources_detail;
  return j::ListStream<UfmLink>(
      "links",
      [](const j::Json& o, size_t index, UfmParsed<UfmLink>& out) {
        UfmLink l;
        if (o.is_object()) {
          l.source = d::link_end(o, "source");
          l.destination = d::link_end(o, "destination");
        }
        if (!l.source.guid || !l.destination.guid) {
          ++out.skipped;
          j::warn(out.warnings, "links[" + std::to_string(index) + "]: no source/destination guid");
          return;
        }
        l.name = j::str(o, "name");
        l.width = j::str(o, "width");
        l.width_lanes = ufm_width_lanes(l.width);
        l.severity = j::str(o, "severity");
        out.items.push_back(std::move(l));
      },
      "data");
}

UfmParsed<UfmLink> parse_ufm_links(std::string_view json) {
  auto stream = ufm_links_stream();
  stream.feed(json);
  return stream.finish();
}

UfmParsed<UfmUnhealthyPort> parse_ufm_unhealthy_ports(std::string_view json) {
  namespace j = ufm_json_detail;
  return j::parse_list<UfmUnhealthyPort>(
      json, "unhealthy_ports",
      [&](const j::Json& o, size_t index, UfmParsed<UfmUnhealthyPort>& out) {
        UfmUnhealthyPort u;
        u.guid = j::guid(o, "UnhealthyGUID");
        if (!o.is_object() || !u.guid) {
          ++out.skipped;
          j::warn(out.warnings, "unhealthy_ports[" + std::to_string(index) + "]: no GUID");
          return;
        }
        u.node = j::str(o, "UnhealthyNode");
        u.port = j::str(o, "UnhealthyPort");
        u.number = static_cast<int>(j::integer_or(o, "UnhealthyPortNumber", 0));
        u.peer_node = j::str(o, "PeerNode");
        u.peer_number = static_cast<int>(j::integer_or(o, "PeerPortNumber", 0));
        u.peer_guid = j::guid(o, "PeerGUID");
        u.state = j::str(o, "State");
        u.conditions = j::str_list(o, "Condition");
        u.status_time = j::str(o, "StatusTime");
        out.items.push_back(std::move(u));
      });
}

std::optional<UfmJob> parse_ufm_job(std::string_view json) {
  namespace j = ufm_json_detail;
  j::Json doc = j::Json::parse(json.begin(), json.end(), nullptr, false);
  if (doc.is_array()) {
    if (doc.empty()) return std::nullopt;
    doc = doc[0];
  }
  if (!doc.is_object() || !j::field(doc, "Status")) return std::nullopt;
  UfmJob job;
  job.id = j::str(doc, "ID");
  job.status = j::str(doc, "Status");
  job.progress = static_cast<int>(j::integer_or(doc, "Progress", 0));
  job.summary = j::str(doc, "Summary");
  job.description = j::str(doc, "Description");
  job.operation = j::str(doc, "Operation");
  job.created = j::str(doc, "Created");
  job.last_updated = j::str(doc, "LastUpdated");
  return job;
}

int ufm_width_lanes(std::string_view width) {
  std::string w = ascii_lower(width);
  if (w.rfind("ib_", 0) == 0) w.erase(0, 3);
  if (w.empty() || w.back() != 'x') return 0;
  w.pop_back();
  auto n = ufm_json_detail::to_int(w);
  return n && *n > 0 && *n <= 12 ? static_cast<int>(*n) : 0;
}

int ufm_logical_state(std::string_view state) {
  std::string s = ascii_lower(state);
  if (s == "down") return 1;
  if (s == "init" || s == "initialize") return 2;
  if (s == "armed") return 3;
  if (s == "active") return 4;
  return 0;
}

int ufm_physical_state(std::string_view state) {
  std::string s = ascii_lower(state);
  if (s == "sleep") return 1;
  if (s == "polling") return 2;
  if (s == "disabled") return 3;
  if (s == "portconfigurationtraining" || s == "training") return 4;
  if (s == "link up" || s == "linkup") return 5;
  if (s == "linkerrorrecovery" || s == "link error recovery") return 6;
  if (s == "phy test" || s == "phytest") return 7;
  return 0;
}

UfmPortIndex::UfmPortIndex(const std::vector<UfmPort>& ports) {
  ports_.reserve(ports.size());
  for (const UfmPort& p : ports) add(p);
  seal();
}

void UfmPortIndex::add(const UfmPort& p) {
  const auto at = static_cast<uint32_t>(ports_.size());
  ports_.push_back({p.node_guid, p.system_guid, p.number, p.dname, p.system_name});
  if (p.node_guid) by_guid_.push_back({p.node_guid, p.number, at});
  if (p.system_guid && p.system_guid != p.node_guid)
    by_guid_.push_back({p.system_guid, p.number, at});
  if (!p.system_name.empty()) {
    by_label_.emplace(ufm_resources_detail::label_key(p.system_name, p.dname), at);
    by_label_.emplace(ufm_resources_detail::label_key(p.system_name, std::to_string(p.number)), at);
  }
}

void UfmPortIndex::seal() {
  // Stable: of two ports with one key the first listed wins, as a map's emplace kept it.
  std::stable_sort(by_guid_.begin(), by_guid_.end(),
                   [](const GuidEntry& a, const GuidEntry& b) { return a.key() < b.key(); });
  ports_.shrink_to_fit();
  by_guid_.shrink_to_fit();
}

const UfmPortKey* UfmPortIndex::by_guid(uint64_t guid, int number) const {
  auto it = std::lower_bound(
      by_guid_.begin(), by_guid_.end(), std::make_pair(guid, number),
      [](const GuidEntry& e, const std::pair<uint64_t, int>& k) { return e.key() < k; });
  if (it == by_guid_.end() || it->guid != guid || it->number != number) return nullptr;
  return &ports_[it->at];
}

const UfmPortKey* UfmPortIndex::by_label(std::string_view system, std::string_view label) const {
  auto it = by_label_.find(ufm_resources_detail::label_key(system, label));
  return it == by_label_.end() ? nullptr : &ports_[it->second];
}

bool UfmPortIndex::resolve(UfmPortRef& ref) const {
  const UfmPortKey* p = nullptr;
  if (ref.guid && ref.port) p = by_guid(ref.guid, ref.port);
  if (!p && !ref.node.empty() && !ref.label.empty()) p = by_label(ref.node, ref.label);
  if (!p) return false;
  if (!ref.guid) ref.guid = p->node_guid ? p->node_guid : p->system_guid;
  if (!ref.port) ref.port = p->number;
  if (ref.label.empty()) ref.label = p->dname;
  if (ref.node.empty()) ref.node = p->system_name;
  return true;
}

}  // namespace ibw::ingest
