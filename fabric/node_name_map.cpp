#include "fabric/node_name_map.h"

#include "fabric/diagnostics.h"
#include "fabric/text_util.h"

namespace ibw::fabric {

NodeNameMap parse_node_name_map(std::string_view data, const std::string& file) {
  NodeNameMap map;
  DiagnosticSink sink(file);
  text::for_each_line(data, [&](std::string_view line, int n) {
    line = text::trim(line);
    if (line.empty() || line.front() == '#') return;
    size_t sp = 0;
    while (sp < line.size() && !text::is_space(line[sp])) ++sp;
    std::string_view guid_text = line.substr(0, sp);
    std::string_view rest = text::trim(line.substr(sp));
    auto guid = parse_guid(guid_text);
    if (!guid || !text::starts_with(guid_text, "0x")) {
      sink.add(n, "guid", "\"" + std::string(guid_text) + "\" is not a 0x-prefixed 64-bit GUID");
      return;
    }
    if (!rest.empty() && rest.front() == '"') {
      size_t close = rest.find('"', 1);
      if (close == std::string_view::npos) {
        sink.add(n, "name", "unterminated quoted name");
        return;
      }
      rest = rest.substr(1, close - 1);
    }
    if (rest.empty()) {
      sink.add(n, "name", "missing name after GUID");
      return;
    }
    auto [it, inserted] = map.emplace(*guid, std::string(rest));
    if (!inserted && it->second != rest)
      sink.add(n, "guid", format_guid(*guid) + " is already mapped to \"" + it->second + "\"");
  });
  sink.throw_if_any();
  return map;
}

NodeNameMap load_node_name_map(const std::string& path) {
  return parse_node_name_map(read_file(path), path);
}

void apply_node_names(Fabric& fabric, const NodeNameMap* map) {
  for (uint32_t i = 0; i < fabric.size(); ++i) {
    Node& n = fabric.node(i);
    if (map && n.guid) {
      auto it = map->find(n.guid);
      if (it != map->end()) {
        n.name = it->second;
        continue;
      }
    }
    if (!n.description.empty())
      n.name = n.description;
    else if (!n.id.empty())
      n.name = n.id;
    else
      n.name = format_guid(n.guid);
  }
  fabric.reindex();
}

}  // namespace ibw::fabric
