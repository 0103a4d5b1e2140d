#include "fabric/host_map.h"

#include "fabric/diagnostics.h"
#include "fabric/text_util.h"

namespace ibw::fabric {

namespace {

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A device name as the kernel gives RDMA devices: letters and digits, '_', then digits
// (mlx5_0, mlx4_1, hfi1_0, qib0 has no '_': not taken), at most 32 characters.
bool looks_like_hca(std::string_view s) {
  size_t us = s.rfind('_');
  if (us == std::string_view::npos || us == 0 || us + 1 == s.size() || s.size() > 32) return false;
  if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return false;
  for (size_t i = 0; i < us; ++i)
    if (!is_alnum(s[i])) return false;
  for (size_t i = us + 1; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

// Splits off the first key: a quoted string or one word. Returns false on an open quote.
bool take_key(std::string_view& line, std::string_view& key) {
  if (!line.empty() && line.front() == '"') {
    size_t close = line.find('"', 1);
    if (close == std::string_view::npos) return false;
    key = line.substr(1, close - 1);
    line = text::trim(line.substr(close + 1));
    return true;
  }
  size_t sp = 0;
  while (sp < line.size() && !text::is_space(line[sp])) ++sp;
  key = line.substr(0, sp);
  line = text::trim(line.substr(sp));
  return true;
}

}  // namespace

bool valid_node_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  return true;
}

std::optional<std::string> host_of_description(std::string_view d) {
  d = text::trim(d);
  size_t sp = d.find(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  std::string_view host = d.substr(0, sp), hca = text::trim(d.substr(sp + 1));
  if (!valid_node_name(host) || !looks_like_hca(hca)) return std::nullopt;
  return std::string(host);
}

HostMapFile parse_host_map(std::string_view data, const std::string& file) {
  HostMapFile map;
  DiagnosticSink sink(file);
  text::for_each_line(data, [&](std::string_view line, int n) {
    line = text::trim(line);
    if (line.empty() || line.front() == '#') return;
    std::string_view key, node;
    if (!take_key(line, key)) return sink.add(n, "key", "unterminated quoted name");
    if (key.empty()) return sink.add(n, "key", "empty CA name");
    take_key(line, node);
    if (node.empty()) return sink.add(n, "node", "missing Slurm node name after the CA");
    if (!line.empty())
      return sink.add(n, "node",
                      "unexpected text after the node name: \"" + std::string(line) + "\"");
    if (!valid_node_name(node))
      return sink.add(
          n, "node",
          "\"" + std::string(node) + "\" is not a Slurm node name (letters, digits, - _ .)");
    std::string value(node);
    if (text::starts_with(key, "0x")) {
      auto guid = parse_guid(key);
      if (!guid) return sink.add(n, "key", "\"" + std::string(key) + "\" is not a 64-bit GUID");
      auto [it, inserted] = map.by_guid.emplace(*guid, value);
      if (!inserted && it->second != value)
        sink.add(n, "key", std::string(key) + " is already mapped to " + it->second);
      return;
    }
    auto [it, inserted] = map.by_name.emplace(std::string(key), value);
    if (!inserted && it->second != value)
      sink.add(n, "key", "\"" + std::string(key) + "\" is already mapped to " + it->second);
  });
  sink.throw_if_any();
  return map;
}

HostMapFile load_host_map(const std::string& path) {
  return parse_host_map(read_file(path), path);
}

HostMap::HostMap(const Fabric& fabric, const HostMapFile* file) {
  for (uint32_t i = 0; i < fabric.size(); ++i) {
    const Node& n = fabric.node(i);
    if (n.type != NodeType::ca) continue;
    std::optional<std::string> node;
    bool from_file = false;
    if (file) {
      auto g = n.guid ? file->by_guid.find(n.guid) : file->by_guid.end();
      if (g != file->by_guid.end()) node = g->second;
      if (!node) {
        auto m = file->by_name.find(n.name);
        if (m == file->by_name.end()) m = file->by_name.find(n.description);
        if (m != file->by_name.end()) node = m->second;
      }
      from_file = node.has_value();
    }
    if (!node) node = host_of_description(n.description);
    if (!node) {
      unmapped_.push_back(i);
      continue;
    }
    by_ca_[i] = mapped_.size();
    by_node_[*node].push_back(i);
    mapped_.push_back({i, std::move(*node), from_file});
  }
}

const std::string* HostMap::node_of(uint32_t ca) const {
  auto it = by_ca_.find(ca);
  return it == by_ca_.end() ? nullptr : &mapped_[it->second].node;
}

const std::vector<uint32_t>& HostMap::cas_of(std::string_view node) const {
  static const std::vector<uint32_t> kNone;
  auto it = by_node_.find(std::string(node));
  return it == by_node_.end() ? kNone : it->second;
}

}  // namespace ibw::fabric
