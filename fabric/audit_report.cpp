#include "fabric/audit_report.h"

#include <nlohmann/json.hpp>

namespace ibw::fabric {
namespace {

nlohmann::ordered_json links_json(const std::vector<LinkEnds>& links) {
  auto arr = nlohmann::ordered_json::array();
  for (const auto& l : links) arr.push_back({{"a", l.a}, {"b", l.b}});
  return arr;
}

std::string join_links(const std::vector<LinkEnds>& links, std::string_view sep) {
  std::string s;
  for (const auto& l : links) s += (s.empty() ? "" : std::string(sep)) + l.a + " - " + l.b;
  return s;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : std::string(sep)) + i;
  return s;
}

std::string csv_field(const std::string& v) {
  if (v.find_first_of(",\"\n") == std::string::npos) return v;
  std::string q = "\"";
  for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

nlohmann::ordered_json audit_to_json(const AuditResult& r) {
  nlohmann::ordered_json summary = {{"planned_links", r.summary.planned_links},
                                    {"found_links", r.summary.found_links},
                                    {"ok", r.summary.ok}};
  for (size_t k = 0; k < kFindingKinds; ++k)
    summary[std::string(finding_kind_name(static_cast<FindingKind>(k)))] = r.summary.by_kind[k];
  auto findings = nlohmann::ordered_json::array();
  for (const auto& f : r.findings) {
    findings.push_back({{"kind", finding_kind_name(f.kind)},
                        {"cables", f.cables},
                        {"planned", links_json(f.planned)},
                        {"found", links_json(f.found)},
                        {"locations", f.locations},
                        {"advice", f.advice}});
  }
  return {{"summary", summary}, {"findings", findings}};
}

std::string audit_to_text(const AuditResult& r) {
  const auto& s = r.summary;
  std::string out = "Cabling audit: " + std::to_string(s.planned_links) + " planned links, " +
                    std::to_string(s.found_links) + " found, " + std::to_string(s.ok) + " ok, " +
                    std::to_string(r.findings.size()) + " finding(s)\n";
  std::string counts;
  for (size_t k = 0; k < kFindingKinds; ++k)
    if (s.by_kind[k])
      counts += "  " + std::string(finding_kind_name(static_cast<FindingKind>(k))) + ": " +
                std::to_string(s.by_kind[k]);
  if (!counts.empty()) out += counts + "\n";
  for (const auto& f : r.findings) {
    out += "\n[" + std::string(finding_kind_name(f.kind)) + "]";
    if (!f.cables.empty()) out += " " + join(f.cables, ", ");
    out += "\n";
    if (!f.planned.empty()) out += "  planned: " + join_links(f.planned, ", ") + "\n";
    if (!f.found.empty()) out += "  found:   " + join_links(f.found, ", ") + "\n";
    if (!f.locations.empty()) out += "  where:   " + join(f.locations, ", ") + "\n";
    out += "  advice:  " + f.advice + "\n";
  }
  if (r.findings.empty()) out += "No differences: the fabric matches the plan.\n";
  return out;
}

std::string audit_to_csv(const AuditResult& r) {
  std::string out = "kind,cables,planned,found,locations,advice\n";
  for (const auto& f : r.findings) {
    out += std::string(finding_kind_name(f.kind)) + "," + csv_field(join(f.cables, ";")) + "," +
           csv_field(join_links(f.planned, ";")) + "," + csv_field(join_links(f.found, ";")) + "," +
           csv_field(join(f.locations, ";")) + "," + csv_field(f.advice) + "\n";
  }
  return out;
}

}  // namespace ibw::fabric
