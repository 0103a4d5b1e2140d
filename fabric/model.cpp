#include "fabric/model.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace ibw::fabric {
namespace {
constexpr uint32_t kAmbiguous = UINT32_MAX - 1;
}

std::string_view node_type_name(NodeType t) {
  switch (t) {
    case NodeType::ca:
      return "CA";
    case NodeType::sw:
      return "Switch";
    case NodeType::router:
      return "Router";
    default:
      return "?";
  }
}

std::string_view port_state_name(int s) {
  static constexpr std::string_view kNames[] = {"NoChange", "Down", "Init", "Armed", "Active"};
  return s >= 0 && s < 5 ? kNames[s] : "?";
}

std::string_view phys_state_name(int s) {
  static constexpr std::string_view kNames[] = {
      "NoChange",          "Sleep",  "Polling", "Disabled", "PortConfigurationTraining", "LinkUp",
      "LinkErrorRecovery", "PhyTest"};
  return s >= 0 && s < 8 ? kNames[s] : "?";
}

Port* Node::port(int number) {
  if (number < 0 || static_cast<size_t>(number) >= ports.size()) return nullptr;
  return &ports[number];
}

const Port* Node::port(int number) const {
  if (number < 0 || static_cast<size_t>(number) >= ports.size()) return nullptr;
  return &ports[number];
}

std::string format_guid(uint64_t guid) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(guid));
  return buf;
}

std::optional<uint64_t> parse_guid(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  if (text.empty() || text.size() > 16) return std::nullopt;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<PortSpec> parse_port_spec(std::string_view text, std::string* error) {
  auto slash = text.rfind('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size()) {
    if (error) *error = "expected NODE/PORT or 0xGUID/PORT, got \"" + std::string(text) + "\"";
    return std::nullopt;
  }
  std::string_view node = text.substr(0, slash);
  std::string_view num = text.substr(slash + 1);
  int port = -1;
  auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), port);
  if (ec != std::errc() || ptr != num.data() + num.size() || port < 0 || port > 255) {
    if (error) *error = "port \"" + std::string(num) + "\" is not a number 0-255";
    return std::nullopt;
  }
  PortSpec spec{std::string(node), std::nullopt, port};
  if (node.size() > 2 && node[0] == '0' && (node[1] == 'x' || node[1] == 'X')) {
    spec.guid = parse_guid(node);
    if (!spec.guid) {
      if (error) *error = "\"" + std::string(node) + "\" is not a 64-bit hex GUID";
      return std::nullopt;
    }
  }
  return spec;
}

uint32_t Fabric::add_node(Node node) {
  if (node.ports.size() < static_cast<size_t>(node.num_ports) + 1)
    node.ports.resize(static_cast<size_t>(node.num_ports) + 1);
  for (size_t i = 0; i < node.ports.size(); ++i) node.ports[i].number = static_cast<int>(i);
  auto idx = static_cast<uint32_t>(nodes_.size());
  if (node.guid) by_guid_.emplace(node.guid, idx);
  nodes_.push_back(std::move(node));
  if (!names_.empty()) by_name_.clear(), names_.clear();  // views may dangle now
  return idx;
}

void Fabric::connect(uint32_t a, int a_port, uint32_t b, int b_port) {
  auto grow = [](Node& n, int p) {
    if (static_cast<size_t>(p) >= n.ports.size()) {
      size_t old = n.ports.size();
      n.ports.resize(static_cast<size_t>(p) + 1);
      for (size_t i = old; i < n.ports.size(); ++i) n.ports[i].number = static_cast<int>(i);
      if (n.num_ports < p) n.num_ports = p;
    }
  };
  grow(nodes_[a], a_port);
  grow(nodes_[b], b_port);
  Port& pa = nodes_[a].ports[a_port];
  Port& pb = nodes_[b].ports[b_port];
  pa.present = pb.present = true;
  pa.peer_node = b;
  pa.peer_port = b_port;
  pb.peer_node = a;
  pb.peer_port = a_port;
}

void Fabric::reindex() {
  by_guid_.clear();
  by_name_.clear();
  names_.clear();
  by_guid_.reserve(nodes_.size());
  by_name_.reserve(nodes_.size() * 2);
  names_.reserve(nodes_.size() * 2);
  auto key_of = [this](uint32_t entry) { return names_[entry].name; };
  auto add_name = [&](std::string_view key, uint32_t i) {
    if (key.empty()) return;
    auto [entry, inserted] = by_name_.emplace(key, static_cast<uint32_t>(names_.size()), key_of);
    if (inserted)
      names_.push_back({key, i});
    else if (names_[entry].node != i)
      names_[entry].node = kAmbiguous;
  };
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.guid) by_guid_.emplace(n.guid, i);
    add_name(n.name, i);
    if (n.description != n.name) add_name(n.description, i);
    if (n.id != n.name && n.id != n.description) add_name(n.id, i);
  }
}

uint32_t Fabric::find_guid(uint64_t guid) const {
  return by_guid_.find(guid).value_or(kNoNode);
}

uint32_t Fabric::resolve(std::string_view name, bool* ambiguous) const {
  if (ambiguous) *ambiguous = false;
  auto entry = by_name_.find(name, [this](uint32_t e) { return names_[e].name; });
  if (entry) {
    if (names_[*entry].node == kAmbiguous) {
      if (ambiguous) *ambiguous = true;
      return kNoNode;
    }
    return names_[*entry].node;
  }
  if (auto g = parse_guid(name); g && name.size() > 2 && name[0] == '0') return find_guid(*g);
  return kNoNode;
}

size_t Fabric::link_count() const {
  size_t twice = 0;
  for (const Node& n : nodes_)
    for (const Port& p : n.ports)
      if (p.has_peer()) ++twice;
  return twice / 2;
}

std::string Fabric::port_label(uint32_t node, int port) const {
  const Node& n = nodes_[node];
  std::string label = n.name.empty() ? format_guid(n.guid) : n.name;
  label += '/';
  label += std::to_string(port);
  return label;
}

EnabledRate enabled_rate(const Port& near, const Port* far) {
  if (!far) return {};
  return {std::min(near.width_enabled, far->width_enabled),
          std::min(near.speed_enabled, far->speed_enabled)};
}

}  // namespace ibw::fabric
