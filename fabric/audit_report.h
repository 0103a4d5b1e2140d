// Renders an AuditResult for people (text), programs (JSON, the contract below) and
// spreadsheets (CSV).
// JSON: {"summary": {"planned_links": N, "found_links": N, "ok": N, "<kind>": N, ...},
//        "findings": [{"kind", "cables", "planned": [{"a","b"}], "found": [{"a","b"}],
//                      "locations", "advice"}]}
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "fabric/audit.h"

namespace ibw::fabric {

nlohmann::ordered_json audit_to_json(const AuditResult& result);
std::string audit_to_text(const AuditResult& result);
std::string audit_to_csv(const AuditResult& result);

}  // namespace ibw::fabric
