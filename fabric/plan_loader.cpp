// Format detection and the cross-row checks shared by every plan format.
#include <unordered_map>

#include "fabric/plan.h"
#include "fabric/plan_fields.h"
#include "fabric/text_util.h"

namespace ibw::fabric {

std::optional<PlanFormat> detect_plan_format(std::string_view data) {
  std::optional<PlanFormat> found;
  bool decided = false;
  text::for_each_line(data, [&](std::string_view line, int) {
    if (decided) return;
    line = text::trim(line);
    if (line.empty()) return;
    if (text::starts_with(line, "#StartDevice") || text::starts_with(line, "StartDevice,")) {
      found = PlanFormat::ndt;
      decided = true;
      return;
    }
    if (line.front() == '#' || text::starts_with(line, "---")) return;
    if (text::starts_with(line, "cables:") || text::starts_with(line, "links:") ||
        text::starts_with(line, "- ")) {
      found = PlanFormat::yaml;
      decided = true;
      return;
    }
    if (line.find(',') != std::string_view::npos && line.find("cable_id") != std::string_view::npos) {
      found = PlanFormat::csv;
    }
    decided = true;
  });
  return found;
}

Plan parse_plan(std::string_view data, const std::string& file) {
  auto format = detect_plan_format(data);
  if (!format) {
    throw InputError({{file, 0, "",
                       "cannot tell the plan format: expected a CSV header with cable_id, a YAML "
                       "\"cables:\" list, or an NDT #StartDevice header"}});
  }
  switch (*format) {
    case PlanFormat::yaml: return parse_plan_yaml(data, file);
    case PlanFormat::ndt: return parse_plan_ndt(data, file);
    default: return parse_plan_csv(data, file);
  }
}

Plan load_plan(const std::string& path) { return parse_plan(read_file(path), path); }

void validate_plan(const Plan& plan, DiagnosticSink& sink) {
  std::unordered_map<std::string, int> cables;
  std::unordered_map<std::string, std::pair<std::string, int>> ports;
  for (const auto& l : plan.links) {
    bool port_clash = false;
    for (const auto* end : {&l.a, &l.b}) {
      if (end->node.empty() || end->port == 0) continue;  // already reported as a bad field
      std::string key = end->node + "/" + std::to_string(end->port);
      auto [it, inserted] = ports.emplace(key, std::make_pair(l.cable_id, l.line));
      if (!inserted) {
        port_clash = true;
        sink.add(l.line, end == &l.a ? "a_port" : "b_port",
                 "port " + key + " is already used by cable " + it->second.first + " on line " +
                     std::to_string(it->second.second));
      }
    }
    if (!l.a.node.empty() && l.a.node == l.b.node) {
      sink.add(l.line, "b_node",
               "self-link: cable " + l.cable_id + " connects " + l.a.node + " to itself");
    }
    if (!l.cable_id.empty() && !(port_clash && plan.format == PlanFormat::ndt)) {
      auto [it, inserted] = cables.emplace(l.cable_id, l.line);
      if (!inserted)
        sink.add(l.line, "cable_id",
                 "cable ID " + l.cable_id + " already used on line " + std::to_string(it->second));
    }
  }
}

}  // namespace ibw::fabric
