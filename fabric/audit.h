// The cabling audit: compares a cabling plan with a discovered fabric and classifies every
// difference. Pure: no I/O; output is data that report.h renders as text, JSON or CSV.
//
// Finding kinds and what each absorbs (so one physical mistake yields one finding):
//  - missing:      a planned link is absent (both planned ports empty, or a single-link node
//                  such as an HCA port was not discovered at all);
//  - miswired:     a planned port is connected somewhere else; the found link(s) are listed;
//  - swapped:      two planned cables whose far ends trade places, one finding for both;
//  - unexpected:   a found link touching no planned port of a planned node;
//  - degraded:     a correctly cabled link whose active width/speed is below the plan's, or
//                  below the best both ends have enabled;
//  - missing_node: a planned node with several planned links (e.g. a spine) not discovered
//                  while its neighbours were;
//  - unknown_node: a discovered node the plan does not mention (its links are listed);
//  - partition:    the fabric splits into more than one connected component: one finding per
//                  part cut off from the main one, either seen directly (several discovered
//                  components, e.g. merged views) or as a group of two or more planned nodes,
//                  one of them multi-link (a leaf and its hosts), unreachable from where
//                  discovery ran. The planned cables that should join the part are listed
//                  and not reported again as missing.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "fabric/model.h"
#include "fabric/plan.h"

namespace ibw::fabric {

enum class FindingKind : uint8_t {
  missing,
  miswired,
  swapped,
  unexpected,
  degraded,
  missing_node,
  unknown_node,
  partition,
};
inline constexpr size_t kFindingKinds = 8;
std::string_view finding_kind_name(FindingKind k);

struct LinkEnds {
  std::string a;  // port notation NODE/PORT
  std::string b;
};

struct Finding {
  FindingKind kind;
  std::vector<std::string> cables;
  std::vector<LinkEnds> planned;
  std::vector<LinkEnds> found;
  std::vector<std::string> locations;
  std::string advice;
};

struct AuditSummary {
  size_t planned_links = 0;
  size_t found_links = 0;
  size_t ok = 0;  // planned links found exactly as planned and not degraded
  std::array<size_t, kFindingKinds> by_kind{};
};

struct AuditResult {
  AuditSummary summary;
  std::vector<Finding> findings;
};

// Throws InputError when a plan node name matches several fabric nodes (a node-name-map is
// then needed to tell them apart).
AuditResult run_audit(const Plan& plan, const Fabric& fabric);

}  // namespace ibw::fabric
