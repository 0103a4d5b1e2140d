// Format detection and the cross-row checks shared by every plan format.
#include <unordered_map>

#include "fabric/diagnostics.h"
#include "fabric/flat_map.h"
#include "fabric/model.h"
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
    if (line.find(',') != std::string_view::npos &&
        line.find("cable_id") != std::string_view::npos) {
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
    case PlanFormat::yaml:
      return parse_plan_yaml(data, file);
    case PlanFormat::ndt:
      return parse_plan_ndt(data, file);
    default:
      return parse_plan_csv(data, file);
  }
}

Plan load_plan(const std::string& path) {
  FileText text(path);  // mapped: a 42 MB plan is neither zero-filled nor copied
  return parse_plan(text.text(), path);
}

std::unordered_map<uint64_t, std::string> planned_cables(const Fabric& fab, const Plan& plan) {
  std::unordered_map<uint64_t, std::string> out;
  for (const auto& l : plan.links)
    for (const PlanEnd* e : {&l.a, &l.b})
      if (uint32_t n = fab.resolve(e->node); n != kNoNode)
        out[planned_cable_key(fab.node(n).guid, e->port)] = l.cable_id;
  return out;
}

void finish_plan(Plan& plan, DiagnosticSink& sink) {
  // Interning once here means neither these checks nor the audit hash node-name strings per
  // cable; on 200k-cable plans string-keyed maps dominated the audit's run time.
  StringIndex ids;
  ids.reserve(plan.links.size());
  plan.nodes.clear();
  auto node_of = [&plan](uint32_t id) -> std::string_view { return plan.nodes[id]; };
  std::string_view last;
  uint32_t last_id = 0;
  auto intern = [&](PlanEnd& e) {
    if (!plan.nodes.empty() && e.node == last) {
      e.node_id = last_id;
      return;
    }
    auto [id, inserted] = ids.emplace(e.node, static_cast<uint32_t>(plan.nodes.size()), node_of);
    if (inserted) plan.nodes.push_back(e.node);
    e.node_id = id;
    last = e.node;
    last_id = e.node_id;
  };
  for (auto& l : plan.links) intern(l.a), intern(l.b);

  StringIndex cables;  // cable ID -> link index
  cables.reserve(plan.links.size());
  auto cable_of = [&plan](uint32_t i) -> std::string_view { return plan.links[i].cable_id; };
  FlatMap64 ports;  // node id << 8 | port -> link index
  ports.reserve(plan.links.size() * 2);
  for (size_t i = 0; i < plan.links.size(); ++i) {
    const PlannedLink& l = plan.links[i];
    bool port_clash = false;
    for (const auto* end : {&l.a, &l.b}) {
      if (end->node.empty() || end->port == 0) continue;  // already reported as a bad field
      uint64_t key = (static_cast<uint64_t>(end->node_id) << 8) | static_cast<uint8_t>(end->port);
      auto [first, inserted] = ports.emplace(key, static_cast<uint32_t>(i));
      if (!inserted) {
        port_clash = true;
        const PlannedLink& other = plan.links[first];
        sink.add(l.line, end == &l.a ? "a_port" : "b_port",
                 "port " + end->node + "/" + std::to_string(end->port) +
                     " is already used by cable " + other.cable_id + " on line " +
                     std::to_string(other.line));
      }
    }
    if (!l.a.node.empty() && l.a.node_id == l.b.node_id) {
      sink.add(l.line, "b_node",
               "self-link: cable " + l.cable_id + " connects " + l.a.node + " to itself");
    }
    if (!l.cable_id.empty() && !(port_clash && plan.format == PlanFormat::ndt)) {
      auto [first, inserted] = cables.emplace(l.cable_id, static_cast<uint32_t>(i), cable_of);
      if (!inserted)
        sink.add(l.line, "cable_id",
                 "cable ID " + l.cable_id + " already used on line " +
                     std::to_string(plan.links[first].line));
    }
  }
}

}  // namespace ibw::fabric
