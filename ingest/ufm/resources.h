// Pure parsing of UFM's other REST resources into plain structs, and an index of UFM's ports to
// resolve the port references found in event text. Shapes from ../shared/reference/ufm-api.md:
//  - GET /app/alarms (§3.2) [H]: name or summary, event_type, severity, timestamp,
//    event_count, duration, reason, related_object_name/_path (some clients read object_name
//    [L]; both are accepted).
//  - GET /resources/ports (§3.3) [H]: name "<guid>_<num>", guid, systemID, system_name,
//    node_description, number, dname, logical_state, physical_state, active/enabled/supported
//    speed and width, peer fields, high_ber_severity ("N/A", warning, error).
//  - GET /resources/links (§3.4) [H]: source_* and destination_* (guid, port, dname, port
//    name, node description), width, severity. The paged form {"data": [...]} (a workaround
//    for an old UFM bug, SDK ufm_rest_client.py) [M] is accepted too.
//  - GET /jobs/<id> (§3.6) [H]: ID, Status, Progress, Summary, Description, Operation; an
//    unknown id gives an empty list.
//  - GET /app/unhealthy_ports (§3.7) [H]: Unhealthy*/Peer* fields, Condition as a string
//    (older) or a list (6.22).
// All parsers are lenient per field (missing fields stay empty/0) and skip records without
// their identity (an alarm without id, a port without name, a link without both GUIDs).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ingest/ufm/description.h"
#include "ingest/ufm/events.h"
#include "ingest/ufm/json.h"

namespace ibw::ingest {

struct UfmAlarm {
  int64_t id = 0;
  std::string name;  // "name", else "summary" ("Module status FAULT")
  int event_type = 0;
  std::string severity;
  std::string timestamp;  // raw, server-local
  int64_t time_us = 0;    // UTC (0 when unreadable)
  int64_t event_count = 0;
  int64_t duration_s = 0;
  std::string reason;
  std::string object_name;  // related_object_name (or object_name)
  std::string object_path;  // related_object_path (or object_path)
  UfmPortRef object;        // what object_name/object_path identify
};

struct UfmPort {
  std::string name;          // "<guid>_<num>"
  uint64_t guid = 0;         // port GUID
  uint64_t system_guid = 0;  // systemID (the object id of actions)
  uint64_t node_guid = 0;    // GUID part of the name
  int number = 0;
  std::string dname;  // display name / label ("1/3/1" on NDR and later, else the number)
  std::string system_name;
  std::string node_description;
  std::string description;  // "Switch IB Port", "Computer IB Port"
  std::string path;
  int lid = 0;
  int tier = 0;
  std::string logical_state;   // Active, Down, Init, Armed
  std::string physical_state;  // "Link Up", Polling, Disabled
  std::string severity;
  std::string high_ber_severity;  // "" when "N/A" or absent; else warning / error
  std::string active_speed;       // "" when null (link down)
  std::string active_width;       // "4x" (older "IB_4x")
  std::vector<std::string> enabled_speed, supported_speed, enabled_width, supported_width;
  std::vector<std::string> capabilities;  // reset, disable, healthy_operations, ...
  std::string peer;                       // peer port name; "" when none
  std::string peer_node_name;
  std::string peer_port_dname;
  std::string peer_node_description;
  uint64_t peer_guid = 0;  // peer_guid, else remote_guid, else from the peer name
  int peer_number = 0;     // from the peer port name
};

struct UfmLinkEnd {
  uint64_t guid = 0;
  int port = 0;
  std::string dname;
  std::string port_name;
  std::string node_description;
};

struct UfmLink {
  std::string name;  // "<src port name>:<dst port name>"
  UfmLinkEnd source;
  UfmLinkEnd destination;
  std::string width;  // "4x"
  int width_lanes = 0;
  std::string severity;
};

struct UfmJob {
  std::string id;
  std::string status;  // Running, Completed, "Completed With Errors", Aborted, ...
  int progress = 0;
  std::string summary;
  std::string description;
  std::string operation;
  std::string created;
  std::string last_updated;
};

struct UfmUnhealthyPort {
  std::string node;  // UnhealthyNode
  std::string port;  // UnhealthyPort
  int number = 0;
  uint64_t guid = 0;
  std::string peer_node;
  int peer_number = 0;
  uint64_t peer_guid = 0;
  std::string state;                    // Info / Warning
  std::vector<std::string> conditions;  // MANUAL, FLAPPING, ...
  std::string status_time;
};

UfmParsed<UfmAlarm> parse_ufm_alarms(std::string_view json, const UfmTimeContext& tc);
UfmParsed<UfmPort> parse_ufm_ports(std::string_view json);
UfmParsed<UfmLink> parse_ufm_links(std::string_view json);
// The same two lists read as their text arrives (json.h ListStream): fed the body in any
// pieces, finish() gives what parse_ufm_ports / parse_ufm_links give for the whole body, and
// only one record's text is held at a time.
ufm_json_detail::ListStream<UfmPort> ufm_ports_stream();
ufm_json_detail::ListStream<UfmLink> ufm_links_stream();
UfmParsed<UfmUnhealthyPort> parse_ufm_unhealthy_ports(std::string_view json);
// One job: an object, or a list whose first element is it; nullopt for an empty list
// (unknown id) or anything else.
std::optional<UfmJob> parse_ufm_job(std::string_view json);

// "4x" / "IB_4x" / "4X" -> 4; 0 when not a width.
int ufm_width_lanes(std::string_view width);
// IBA PortState for UFM's logical_state (Down 1, Init 2, Armed 3, Active 4; else 0) and
// PortPhysicalState for physical_state (Sleep 1, Polling 2, Disabled 3, PortConfigurationTraining
// 4, "Link Up" 5, LinkErrorRecovery 6, Phy Test 7; else 0).
int ufm_logical_state(std::string_view state);
int ufm_physical_state(std::string_view state);

// What UfmPortIndex keeps of a port: the keys it is found by and what resolve() fills in.
struct UfmPortKey {
  uint64_t node_guid = 0;    // GUID part of UFM's port name
  uint64_t system_guid = 0;  // systemID
  int number = 0;
  std::string dname;  // label ("1/17/1")
  std::string system_name;
};

// UFM's ports by GUID + number and by system name + label, to complete port refs parsed from
// event text ("(Switch:leaf001:1/17/1)" has no number; "Peer Port sw:1/19/2" no GUID). Built
// from GET /resources/ports; immutable afterwards. It keeps only each port's key (about 100
// bytes with its entries, against about 1.1 KB for a whole UfmPort: 393,216 ports on a
// 65,536-endpoint fabric), since the daemon holds it from one ports read to the next.
class UfmPortIndex {
 public:
  explicit UfmPortIndex(const std::vector<UfmPort>& ports);
  // Built port by port (a list read as it arrives): add() each in list order, then seal()
  // once, before the first lookup.
  UfmPortIndex() = default;
  void add(const UfmPort& port);
  void seal();
  const UfmPortKey* by_guid(uint64_t guid, int number) const;
  const UfmPortKey* by_label(std::string_view system, std::string_view label) const;
  // Fills guid and port of ref from the port it names (by GUID + number, else system name
  // + label); true when a port was found.
  bool resolve(UfmPortRef& ref) const;
  size_t size() const { return ports_.size(); }

 private:
  struct GuidEntry {
    uint64_t guid = 0;
    int number = 0;
    uint32_t at = 0;  // in ports_
    auto key() const { return std::make_pair(guid, number); }
  };
  std::vector<UfmPortKey> ports_;
  std::vector<GuidEntry> by_guid_;                    // sorted by (guid, number); first wins
  std::unordered_map<std::string, size_t> by_label_;  // system + '\n' + label
};

}  // namespace ibw::ingest
