#include "fabric/opensm_subnet.h"

#include <cctype>
#include <charconv>
#include <optional>

#include "fabric/port_info.h"

namespace ibw::fabric {
namespace {

std::optional<uint64_t> hex_after(std::string_view s, std::string_view key, size_t* at) {
  size_t k = s.find(key, *at);
  if (k == std::string_view::npos) return std::nullopt;
  size_t b = k + key.size(), e = b;
  while (e < s.size() && std::isxdigit(static_cast<unsigned char>(s[e]))) ++e;
  uint64_t v = 0;
  if (e == b || std::from_chars(s.data() + b, s.data() + e, v, 16).ec != std::errc())
    return std::nullopt;
  *at = e;
  return v;
}

// One "{ ... NodeGUID:X ... } PN:Y }" end, starting the search at *at.
bool read_end(std::string_view line, size_t* at, uint64_t* guid, int* port) {
  auto g = hex_after(line, "NodeGUID:", at);
  // The description in braces may hold anything but "} LID:"; PN follows it.
  size_t desc_end = line.find("} LID:", *at);
  if (!g || desc_end == std::string_view::npos) return false;
  *at = desc_end;
  auto p = hex_after(line, " PN:", at);
  if (!p || *p > 255) return false;
  *guid = *g;
  *port = static_cast<int>(*p);
  return true;
}

bool port_free(const Port* p) {
  return p && !p->has_peer() &&
         (!p->present || p->state == 0 ||
          (p->state == kPortActive && p->phys_state != kPhysDisabled));
}

}  // namespace

std::vector<SubnetLink> parse_opensm_subnet(std::string_view text, size_t* skipped) {
  std::vector<SubnetLink> out;
  size_t bad = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    SubnetLink l;
    size_t at = 0;
    if (!read_end(line, &at, &l.a_guid, &l.a_port) || !read_end(line, &at, &l.b_guid, &l.b_port)) {
      ++bad;
      continue;
    }
    l.active = line.find("LOG=ACT", at) != std::string_view::npos;
    out.push_back(l);
  }
  if (skipped) *skipped = bad;
  return out;
}

std::vector<std::string> connect_subnet_links(Fabric& fabric,
                                              const std::vector<SubnetLink>& links) {
  std::vector<std::string> added;
  for (const SubnetLink& l : links) {
    if (!l.active || l.a_port < 1 || l.b_port < 1) continue;
    uint32_t a = fabric.find_guid(l.a_guid), b = fabric.find_guid(l.b_guid);
    if (a == kNoNode || b == kNoNode || (a == b && l.a_port == l.b_port)) continue;
    if (!port_free(fabric.node(a).port(l.a_port)) || !port_free(fabric.node(b).port(l.b_port)))
      continue;
    for (auto [n, p] : {std::pair{a, l.a_port}, std::pair{b, l.b_port}}) {
      Port* port = fabric.node(n).port(p);
      if (!port->present) {  // not read by the discovery: as OpenSM saw it
        port->present = true;
        port->state = kPortActive;
        port->phys_state = kPhysLinkUp;
        if (fabric.node(n).type == NodeType::sw && !fabric.node(n).ports.empty())
          port->lid = fabric.node(n).ports[0].lid;
      }
    }
    fabric.connect(a, l.a_port, b, l.b_port);
    added.push_back(fabric.port_label(a, l.a_port) + " - " + fabric.port_label(b, l.b_port));
  }
  return added;
}

}  // namespace ibw::fabric
