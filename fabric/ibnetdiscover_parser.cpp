#include "fabric/ibnetdiscover_parser.h"

#include <unordered_map>
#include <vector>

#include "fabric/diagnostics.h"
#include "fabric/text_util.h"

namespace ibw::fabric {
namespace {

using text::starts_with;
using text::to_int;
using text::trim;

struct PendingLink {
  uint32_t node;
  int port;
  std::string_view remote_id;
  int remote_port;
  int line;
};

// Reads `"id"` at the start of s; advances s past it.
std::optional<std::string_view> take_quoted(std::string_view& s) {
  s = trim(s);
  if (s.empty() || s.front() != '"') return std::nullopt;
  size_t close = s.find('"', 1);
  if (close == std::string_view::npos) return std::nullopt;
  auto id = s.substr(1, close - 1);
  s.remove_prefix(close + 1);
  return id;
}

// Reads `[n]` and an optional `[ext n]` at the start of s; advances s.
std::optional<int> take_port(std::string_view& s) {
  s = trim(s);
  if (s.empty() || s.front() != '[') return std::nullopt;
  size_t close = s.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  auto n = to_int<int>(s.substr(1, close - 1));
  s.remove_prefix(close + 1);
  if (starts_with(s, "[ext")) {
    size_t c2 = s.find(']');
    if (c2 != std::string_view::npos) s.remove_prefix(c2 + 1);
  }
  if (!n || *n < 0 || *n > 255) return std::nullopt;
  return n;
}

// Skips a `(hexguid)` group at the start of s.
void skip_paren(std::string_view& s) {
  s = trim(s);
  if (!s.empty() && s.front() == '(') {
    size_t close = s.find(')');
    if (close != std::string_view::npos) s.remove_prefix(close + 1);
  }
}

// Description between the first and the last quote of a comment.
std::string_view comment_desc(std::string_view comment) {
  size_t open = comment.find('"');
  size_t close = comment.rfind('"');
  if (open == std::string_view::npos || close <= open) return {};
  return comment.substr(open + 1, close - open - 1);
}

// After the last quote: `lid N WxSPEED ...` -> rate; returns false when absent.
bool comment_rate(std::string_view comment, int* width, Speed* speed) {
  size_t q = comment.rfind('"');
  std::string_view tail = q == std::string_view::npos ? comment : comment.substr(q + 1);
  size_t lid = tail.find("lid ");
  if (lid == std::string_view::npos) return false;
  tail = trim(tail.substr(lid + 4));
  size_t sp = tail.find_first_of(" \t");
  if (sp == std::string_view::npos) return false;
  tail = trim(tail.substr(sp));
  size_t end = tail.find_first_of(" \t");
  std::string_view rate = tail.substr(0, end);
  size_t x = rate.find('x');
  if (x == std::string_view::npos) return false;
  auto w = parse_width(rate.substr(0, x));
  auto s = parse_speed(rate.substr(x + 1));
  if (!w) return false;
  *width = *w;
  *speed = s.value_or(Speed::unknown);
  return true;
}

// Value after `key ` in s, as an integer.
std::optional<int> keyed_int(std::string_view s, std::string_view key) {
  size_t at = s.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  s = trim(s.substr(at + key.size()));
  size_t end = 0;
  while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
  return to_int<int>(s.substr(0, end));
}

NodeType type_from_keyword(std::string_view kw) {
  if (kw == "Switch") return NodeType::sw;
  if (kw == "Ca" || kw == "Hca") return NodeType::ca;
  if (kw == "Rt" || kw == "Router") return NodeType::router;
  return NodeType::unknown;
}

uint64_t guid_from_id(std::string_view id) {
  if (id.size() == 18 && id[1] == '-' && (id[0] == 'S' || id[0] == 'H' || id[0] == 'R'))
    return parse_guid(id.substr(2)).value_or(0);
  return 0;
}

class Parser {
 public:
  Parser(std::string_view data, const std::string& file) : data_(data), sink_(file) {}

  Fabric run() {
    text::for_each_line(data_, [this](std::string_view line, int n) { parse_line(line, n); });
    resolve_links();
    sink_.throw_if_any();
    return std::move(fabric_);
  }

 private:
  void parse_line(std::string_view raw, int n) {
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') return;
    if (line.front() == '[') return parse_port_line(line, n);
    if (starts_with(line, "switchguid=") || starts_with(line, "caguid=") ||
        starts_with(line, "rtguid=")) {
      std::string_view v = line.substr(line.find('=') + 1);
      v = v.substr(0, v.find_first_of("( \t"));
      auto g = parse_guid(v);
      if (!g) sink_.add(n, "guid", "bad GUID \"" + std::string(v) + "\"");
      pending_guid_ = g.value_or(0);
      return;
    }
    if (starts_with(line, "vendid=") || starts_with(line, "devid=") ||
        starts_with(line, "sysimgguid=") || starts_with(line, "Chassis") ||
        starts_with(line, "Hostname:") || starts_with(line, "Non-Chassis Nodes") ||
        starts_with(line, "include ") || starts_with(line, "do "))
      return;
    size_t sp = line.find_first_of(" \t");
    NodeType type = type_from_keyword(line.substr(0, sp));
    if (type == NodeType::unknown) {
      sink_.add(n, "", "unrecognised line \"" + std::string(line.substr(0, 60)) + "\"");
      return;
    }
    parse_node_header(line.substr(sp == std::string_view::npos ? line.size() : sp), type, n);
  }

  void parse_node_header(std::string_view rest, NodeType type, int n) {
    rest = trim(rest);
    size_t sp = rest.find_first_of(" \t\"");
    auto nports = to_int<int>(rest.substr(0, sp));
    if (!nports || *nports < 1 || *nports > 255) {
      sink_.add(n, "ports", "node header needs a port count 1-255");
      current_ = kNoNode;
      return;
    }
    rest.remove_prefix(sp == std::string_view::npos ? rest.size() : sp);
    auto id = take_quoted(rest);
    if (!id || id->empty()) {
      sink_.add(n, "id", "node header needs a quoted node id");
      current_ = kNoNode;
      return;
    }
    Node node;
    node.type = type;
    node.id = std::string(*id);
    node.num_ports = *nports;
    node.guid = pending_guid_ ? pending_guid_ : guid_from_id(*id);
    pending_guid_ = 0;
    size_t hash = rest.find('#');
    uint16_t lid = 0;
    if (hash != std::string_view::npos) {
      std::string_view comment = rest.substr(hash + 1);
      node.description = std::string(comment_desc(comment));
      if (type == NodeType::sw) {
        size_t q = comment.rfind('"');
        lid = static_cast<uint16_t>(
            keyed_int(q == std::string_view::npos ? comment : comment.substr(q), "lid")
                .value_or(0));
      }
    }
    auto [it, inserted] = ids_.emplace(*id, kNoNode);
    if (!inserted && it->second != kNoNode) {
      sink_.add(n, "id", "node \"" + std::string(*id) + "\" is defined twice");
      current_ = kNoNode;
      return;
    }
    current_ = fabric_.add_node(std::move(node));
    it->second = current_;
    Node& added = fabric_.node(current_);
    if (type == NodeType::sw) {
      added.ports[0].present = true;
      added.ports[0].lid = lid;
    }
    current_lid_ = lid;
  }

  void parse_port_line(std::string_view line, int n) {
    if (current_ == kNoNode) {
      sink_.add(n, "port", "port line outside a node record");
      return;
    }
    auto local = take_port(line);
    if (!local || *local == 0) {
      sink_.add(n, "port", "expected [PORT] with a port number 1-255");
      return;
    }
    skip_paren(line);
    auto remote_id = take_quoted(line);
    auto remote_port = remote_id ? take_port(line) : std::nullopt;
    if (!remote_id || !remote_port || *remote_port == 0) {
      sink_.add(n, "peer", "expected \"REMOTE-ID\"[PORT] after [" + std::to_string(*local) + "]");
      return;
    }
    Node& node = fabric_.node(current_);
    if (*local > node.num_ports) {
      sink_.add(n, "port",
                "port " + std::to_string(*local) + " is above the node's " +
                    std::to_string(node.num_ports) + " ports");
      return;
    }
    Port& p = node.ports[*local];
    p.present = true;
    size_t hash = line.find('#');
    if (hash != std::string_view::npos) {
      std::string_view comment = line.substr(hash + 1);
      int width = 0;
      Speed speed = Speed::unknown;
      if (comment_rate(comment, &width, &speed)) {
        p.width_active = static_cast<uint8_t>(width);
        p.speed_active = speed;
      }
      if (node.type == NodeType::sw)
        p.lid = current_lid_;
      else if (auto lid = keyed_int(comment.substr(0, comment.find('"')), "lid"))
        p.lid = static_cast<uint16_t>(*lid);
    } else if (node.type == NodeType::sw) {
      p.lid = current_lid_;
    }
    pending_.push_back({current_, *local, *remote_id, *remote_port, n});
  }

  uint32_t implicit_node(std::string_view id) {
    Node node;
    node.id = std::string(id);
    node.guid = guid_from_id(id);
    node.type = id[0] == 'S' ? NodeType::sw : id[0] == 'R' ? NodeType::router : NodeType::ca;
    node.num_ports = 1;
    uint32_t idx = fabric_.add_node(std::move(node));
    ids_[id] = idx;
    return idx;
  }

  void resolve_links() {
    for (const auto& l : pending_) {
      auto it = ids_.find(l.remote_id);
      uint32_t remote = it == ids_.end() ? implicit_node(l.remote_id) : it->second;
      if (remote == kNoNode) continue;  // its header was malformed and already reported
      const Port* mine = fabric_.node(l.node).port(l.port);
      const Port* theirs = fabric_.node(remote).port(l.remote_port);
      if (mine && mine->has_peer() &&
          (mine->peer_node != remote || mine->peer_port != l.remote_port)) {
        sink_.add(l.line, "peer",
                  "port " + std::to_string(l.port) + " links to \"" + std::string(l.remote_id) +
                      "\"[" + std::to_string(l.remote_port) + "] but is already linked to " +
                      fabric_.node(mine->peer_node).id + "[" + std::to_string(mine->peer_port) +
                      "]");
        continue;
      }
      if (theirs && theirs->has_peer() &&
          (theirs->peer_node != l.node || theirs->peer_port != l.port)) {
        sink_.add(l.line, "peer",
                  "\"" + std::string(l.remote_id) + "\"[" + std::to_string(l.remote_port) +
                      "] is already linked to " + fabric_.node(theirs->peer_node).id + "[" +
                      std::to_string(theirs->peer_port) + "]");
        continue;
      }
      fabric_.connect(l.node, l.port, remote, l.remote_port);
    }
  }

  std::string_view data_;
  DiagnosticSink sink_;
  Fabric fabric_;
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::vector<PendingLink> pending_;
  uint32_t current_ = kNoNode;
  uint16_t current_lid_ = 0;
  uint64_t pending_guid_ = 0;
};

}  // namespace

Fabric parse_ibnetdiscover(std::string_view data, const std::string& file) {
  return Parser(data, file).run();
}

Fabric load_ibnetdiscover_file(const std::string& path) {
  std::string data = read_file(path);
  return parse_ibnetdiscover(data, path);
}

}  // namespace ibw::fabric
