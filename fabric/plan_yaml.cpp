// YAML plan reader: a top-level `cables:` (or `links:`) sequence of maps whose keys are the
// CSV column names. Line numbers come from yaml-cpp marks.
#include <yaml-cpp/yaml.h>

#include "fabric/plan.h"
#include "fabric/plan_fields.h"

namespace ibw::fabric {

Plan parse_plan_yaml(std::string_view data, const std::string& file) {
  Plan plan{file, PlanFormat::yaml, {}};
  DiagnosticSink sink(file);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(data));
  } catch (const YAML::Exception& e) {
    sink.add(e.mark.line + 1, "", "YAML syntax error: " + e.msg);
    sink.throw_if_any();
  }
  YAML::Node list;
  if (root.IsMap()) {
    for (auto it = root.begin(); it != root.end(); ++it) {
      auto key = it->first.as<std::string>("");
      if (key == "cables" || key == "links") list = it->second;
      else
        sink.add(it->first.Mark().line + 1, key, "unknown top-level key; expected \"cables\"");
    }
  } else if (root.IsSequence()) {
    list = root;
  }
  if (!list || !list.IsSequence()) {
    sink.add(root ? root.Mark().line + 1 : 0, "cables", "expected a list of cables");
    sink.throw_if_any();
  }
  for (const auto& item : list) {
    int line = item.Mark().line + 1;
    if (!item.IsMap()) {
      sink.add(line, "", "each cable must be a map of column: value");
      continue;
    }
    PlannedLink link;
    link.line = line;
    std::vector<std::string> seen;
    for (auto it = item.begin(); it != item.end(); ++it) {
      auto key = it->first.as<std::string>("");
      int key_line = it->first.Mark().line + 1;
      if (!plan_fields::is_known(key)) {
        sink.add(key_line, key, "unknown key; known: " + plan_fields::known_list());
        continue;
      }
      if (!it->second.IsScalar()) {
        sink.add(key_line, key, "expected a single value");
        continue;
      }
      seen.push_back(key);
      plan_fields::set_field(link, key, it->second.Scalar(), key_line, sink);
    }
    for (auto req : plan_fields::kRequired) {
      if (std::find(seen.begin(), seen.end(), req) == seen.end())
        sink.add(line, std::string(req), "required key missing");
    }
    plan.links.push_back(std::move(link));
  }
  finish_plan(plan, sink);
  sink.throw_if_any();
  return plan;
}

}  // namespace ibw::fabric
