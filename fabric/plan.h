// The cabling plan: the links the fabric is supposed to have, with cable IDs and locations.
// Three input formats, chosen by content (not only by extension):
//  - CSV with header; required cable_id,a_node,a_port,b_node,b_port; optional
//    kind,a_location,b_location,length_m,speed,width; unknown columns are an error;
//  - YAML: `cables:` (or `links:`) list of maps with the same keys as the CSV columns;
//  - UFM NDT: `#StartDevice,StartPort,EndDevice,EndPort,LinkType` with ports as `Port N`.
// Validation is strict and collects every problem (file:line: field: message) before failing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fabric/speed.h"

namespace ibw::fabric {

struct PlanEnd {
  std::string node;  // as written: a name or 0xGUID
  int port = 0;
  uint32_t node_id = 0;  // index into Plan::nodes (set by finish_plan)
  std::string location;  // rack/U or any free text; may be empty
};

struct PlannedLink {
  std::string cable_id;
  PlanEnd a, b;
  std::string kind;              // free text, e.g. "host", "leaf-spine", "optical"
  double length_m = 0;           // 0 = not given
  Speed speed = Speed::unknown;  // unknown = not given
  int width = 0;                 // lanes; 0 = not given
  int line = 0;                  // where it came from
};

enum class PlanFormat { csv, yaml, ndt };

struct Plan {
  std::string file;
  PlanFormat format = PlanFormat::csv;
  std::vector<PlannedLink> links;
  std::vector<std::string> nodes;  // every distinct node name, indexed by PlanEnd::node_id
};

class Fabric;
// The planned cable at each port of the fabric: both ends of every planned link whose node the
// fabric knows, keyed by planned_cable_key(node GUID, port).
inline uint64_t planned_cable_key(uint64_t guid, int port) {
  return guid * 256 + static_cast<uint64_t>(port);
}
std::unordered_map<uint64_t, std::string> planned_cables(const Fabric& fabric, const Plan& plan);

// Detects the format from the content; nullopt when it cannot tell.
std::optional<PlanFormat> detect_plan_format(std::string_view text);

// Pure parsers; each throws InputError with all diagnostics.
Plan parse_plan_csv(std::string_view text, const std::string& file);
Plan parse_plan_yaml(std::string_view text, const std::string& file);
Plan parse_plan_ndt(std::string_view text, const std::string& file);
// Detects the format and parses.
Plan parse_plan(std::string_view text, const std::string& file);
Plan load_plan(const std::string& path);

// Shared last step of every parser: interns node names (PlanEnd::node_id, Plan::nodes) and
// runs the cross-row checks: duplicate cable IDs, a port used twice, self-links. Adds to the
// caller's diagnostics.
class DiagnosticSink;
void finish_plan(Plan& plan, DiagnosticSink& sink);

}  // namespace ibw::fabric
