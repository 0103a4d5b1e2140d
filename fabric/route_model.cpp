#include "fabric/route_model.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <span>

#include "fabric/text_util.h"

namespace ibw::fabric {

RouteModel::RouteModel(const Fabric& fabric, const RoutingTables* tables)
    : fabric_(fabric), tables_(tables), lids_(fabric) {
  first_.assign(fabric.size() + 1, 0);
  for (uint32_t i = 0; i < fabric.size(); ++i) {
    first_[i] = static_cast<uint32_t>(edges_.size());
    const Node& n = fabric.node(i);
    if (n.type != NodeType::sw) continue;
    for (const Port& p : n.ports) {
      if (p.number == 0 || !usable(p)) continue;
      if (fabric.node(p.peer_node).type != NodeType::sw) continue;
      edge_of_[dir_link_key(i, p.number)] = static_cast<uint32_t>(edges_.size());
      edges_.push_back({p.peer_node, static_cast<uint8_t>(p.number)});
    }
  }
  first_[fabric.size()] = static_cast<uint32_t>(edges_.size());
  down_.assign(edges_.size(), 0);
  ord_.assign(fabric.size(), UINT32_MAX);
  for (uint32_t i = 0; i < fabric.size(); ++i)
    if (fabric.node(i).type == NodeType::sw)
      ord_[i] = static_cast<uint32_t>(sw_.size()), sw_.push_back(i);
  from_.resize(edges_.size());
  for (uint32_t i = 0; i < fabric.size(); ++i)
    for (uint32_t e = first_[i]; e < first_[i + 1]; ++e) from_[e] = ord_[i];
}

namespace {
// Breadth-first from the nodes already in t.order (dist and count set), over links that are
// up: dist and the number of minimal routes for every switch that reaches them.
template <typename Next>
void fill_table(RouteModel::Table& t, Next&& next) {
  for (size_t head = 0; head < t.order.size(); ++head) {
    uint32_t x = t.order[head];
    int8_t dx = t.dist[x];
    next(x, [&](uint32_t y) {
      if (t.dist[y] < 0) {
        t.dist[y] = static_cast<int8_t>(std::min(dx + 1, 127));
        t.order.push_back(y);
      } else if (t.dist[y] == dx - 1) {  // y was finished one level earlier: a step toward dest
        t.count[x] += t.count[y];
      }
    });
  }
}
}  // namespace

RouteModel::Table RouteModel::table(uint32_t dest_switch) const {
  Table t;
  t.dest = ord_[dest_switch];
  t.dist.assign(sw_.size(), -1);
  t.count.assign(sw_.size(), 0);
  t.dist[t.dest] = 0, t.count[t.dest] = 1;
  t.order.reserve(sw_.size());
  t.order.push_back(t.dest);
  fill_table(t, [&](uint32_t x, auto&& visit) {
    for (uint32_t e = first_[sw_[x]]; e < first_[sw_[x] + 1]; ++e)
      if (!down_[e]) visit(ord_[edges_[e].to]);
  });
  return t;
}

std::vector<uint32_t> RouteModel::dest_classes(std::vector<std::vector<uint32_t>>* members) const {
  std::map<std::vector<uint32_t>, uint32_t> by_neighbours;
  std::vector<uint32_t> of(sw_.size());
  members->clear();
  for (uint32_t x = 0; x < sw_.size(); ++x) {
    std::vector<uint32_t> nb;
    for (uint32_t e = first_[sw_[x]]; e < first_[sw_[x] + 1]; ++e)
      if (!down_[e]) nb.push_back(ord_[edges_[e].to]);
    std::sort(nb.begin(), nb.end());
    auto [it, fresh] = by_neighbours.emplace(std::move(nb), members->size());
    if (fresh) members->emplace_back();
    of[x] = it->second;
    (*members)[it->second].push_back(x);
  }
  return of;
}

RouteModel::Table RouteModel::class_table(uint32_t member) const {
  Table t;
  t.dest = kVirtual;
  t.dist.assign(sw_.size(), -1);
  t.count.assign(sw_.size(), 0);
  t.order.reserve(sw_.size());
  for (uint32_t e = first_[sw_[member]]; e < first_[sw_[member] + 1]; ++e) {
    if (down_[e]) continue;
    uint32_t n = ord_[edges_[e].to];
    if (t.dist[n] < 0) t.dist[n] = 1, t.order.push_back(n);
    t.count[n] += 1;  // parallel links: one route over each
  }
  fill_table(t, [&](uint32_t x, auto&& visit) {
    for (uint32_t e = first_[sw_[x]]; e < first_[sw_[x] + 1]; ++e)
      if (!down_[e]) visit(ord_[edges_[e].to]);
  });
  return t;
}

std::vector<uint32_t> RouteModel::last_hops(uint32_t ordinal) const {
  std::vector<uint32_t> neighbours, out;
  const uint32_t node = sw_[ordinal];
  for (uint32_t e = first_[node]; e < first_[node + 1]; ++e)
    if (!down_[e]) neighbours.push_back(edges_[e].to);
  std::sort(neighbours.begin(), neighbours.end());
  neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
  for (uint32_t n : neighbours)
    for (uint32_t e = first_[n]; e < first_[n + 1]; ++e)
      if (!down_[e] && edges_[e].to == node) out.push_back(e);
  return out;
}

std::vector<uint8_t> RouteModel::edge_mask(
    const std::vector<std::pair<uint32_t, int>>& links) const {
  std::vector<uint8_t> mask(edges_.size(), 0);
  for (auto [node, port] : links)
    if (auto it = edge_of_.find(dir_link_key(node, port)); it != edge_of_.end())
      mask[it->second] = 1;
  return mask;
}

void RouteModel::crossing(const Table& t, const std::vector<uint8_t>& mask,
                          std::vector<uint8_t>& out) const {
  out.assign(sw_.size(), 0);
  for (uint32_t x : t.order) {
    if (t.dist[x] < 1 || (t.dist[x] == 1 && t.dest == kVirtual)) continue;
    uint32_t node = sw_[x];
    for (uint32_t e = first_[node]; e < first_[node + 1]; ++e) {
      uint32_t y = ord_[edges_[e].to];
      if (down_[e] || t.dist[y] != t.dist[x] - 1) continue;
      if (mask[e] || out[y]) {
        out[x] = 1;
        break;
      }
    }
  }
}

bool RouteModel::usable(const Port& p) const {
  if (!p.present || !p.has_peer()) return false;
  const Port* far = fabric_.node(p.peer_node).port(p.peer_port);
  auto up = [](const Port& q) { return q.state != 1 && q.phys_state != kPhysDisabled; };
  return up(p) && (!far || up(*far));
}

void RouteModel::set_down(uint32_t node, int port) {
  const Port* p = fabric_.node(node).port(port);
  if (!p || !p->has_peer()) return;
  for (auto [n, q] : {std::pair{node, port}, std::pair{p->peer_node, p->peer_port}}) {
    uint64_t k = dir_link_key(n, q);
    if (auto it = edge_of_.find(k); it != edge_of_.end()) down_[it->second] = 1;
    down_links_[k] = true;
  }
}

bool RouteModel::link_up(uint32_t node, int port) const {
  const Port* p = fabric_.node(node).port(port);
  return p && usable(*p) && !down_links_.count(dir_link_key(node, port));
}

std::optional<Endpoint> RouteModel::resolve(std::string_view text, std::string* error) const {
  std::string_view name = text::trim(text);
  std::optional<int> port;
  if (size_t slash = name.rfind('/'); slash != std::string_view::npos) {
    port = text::to_int<int>(name.substr(slash + 1));
    if (!port || *port < 0 || *port > 255) {
      *error = "\"" + std::string(text) + "\": the port after '/' must be 0-255";
      return std::nullopt;
    }
    name = name.substr(0, slash);
  }
  Endpoint e;
  bool digits = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (digits && !port) {
    auto lid = text::to_int<uint32_t>(name);
    auto at = lid && *lid < 0xc000 ? lids_.find(static_cast<uint16_t>(*lid)) : std::nullopt;
    if (!at) {
      *error = "no port with LID " + std::string(name) + " in the fabric";
      return std::nullopt;
    }
    return Endpoint{at->first, at->second};
  }
  bool ambiguous = false;
  if (name.size() > 2 && name[0] == '0' && (name[1] == 'x' || name[1] == 'X')) {
    auto guid = parse_guid(name);
    e.node = guid ? fabric_.find_guid(*guid) : kNoNode;
  } else {
    e.node = fabric_.resolve(name, &ambiguous);
  }
  if (e.node == kNoNode) {
    *error = ambiguous ? "\"" + std::string(name) + "\" names several nodes"
                       : "no node \"" + std::string(name) + "\" in the fabric";
    return std::nullopt;
  }
  const Node& n = fabric_.node(e.node);
  if (n.type == NodeType::sw) return e;  // a switch is reached at its port 0
  if (port) {
    e.port = *port;
  } else {
    for (const Port& p : n.ports)
      if (p.number && p.has_peer()) {
        e.port = p.number;
        break;
      }
  }
  if (!n.port(e.port) || !n.port(e.port)->has_peer()) {
    *error = "\"" + std::string(text) + "\" has no connected port" +
             (port ? " " + std::to_string(*port) : "");
    return std::nullopt;
  }
  return e;
}

std::optional<std::pair<uint32_t, int>> RouteModel::attach(const Endpoint& e) const {
  if (e.node == kNoNode) return std::nullopt;
  if (fabric_.node(e.node).type == NodeType::sw) return std::pair{e.node, 0};
  const Port* p = fabric_.node(e.node).port(e.port);
  if (!p || !link_up(e.node, e.port)) return std::nullopt;
  return std::pair{p->peer_node, p->peer_port};
}

RouteModel::Toward RouteModel::toward(uint32_t dest) const {
  Toward t;
  t.dest = dest;
  t.dist.assign(fabric_.size(), -1);
  t.count.assign(fabric_.size(), 0);
  t.dist[dest] = 0;
  t.count[dest] = 1;
  t.order.push_back(dest);
  for (size_t head = 0; head < t.order.size(); ++head) {
    uint32_t x = t.order[head];
    for (uint32_t e = first_[x]; e < first_[x + 1]; ++e) {
      if (down_[e]) continue;
      uint32_t y = edges_[e].to;
      if (t.dist[y] < 0) t.dist[y] = static_cast<int16_t>(t.dist[x] + 1), t.order.push_back(y);
    }
  }
  for (size_t i = 1; i < t.order.size(); ++i) {  // N(x) = sum of N(y) over steps toward dest
    uint32_t x = t.order[i];
    double n = 0;
    for (uint32_t e = first_[x]; e < first_[x + 1]; ++e)
      if (!down_[e] && t.dist[edges_[e].to] == t.dist[x] - 1) n += t.count[edges_[e].to];
    t.count[x] = n;
  }
  return t;
}

void RouteModel::spray(const Toward& t, const std::vector<double>& weight,
                       const std::function<void(uint32_t, int, double)>& fn) const {
  // F(x) = sum over sources a of w(a) / N(a) * M_a(x); the flow on x -> y is F(x) * N(y).
  std::vector<double> f(fabric_.size(), 0);
  for (uint32_t x : t.order)
    if (weight[x] != 0 && t.count[x] > 0) f[x] = weight[x] / t.count[x];
  for (size_t i = t.order.size(); i-- > 1;) {
    uint32_t x = t.order[i];
    if (f[x] == 0) continue;
    for (uint32_t e = first_[x]; e < first_[x + 1]; ++e) {
      uint32_t y = edges_[e].to;
      if (down_[e] || t.dist[y] != t.dist[x] - 1) continue;
      fn(x, edges_[e].port, f[x] * t.count[y]);
      f[y] += f[x];
    }
  }
}

std::vector<double> RouteModel::expected_loss(
    const Toward& t, const std::function<double(uint32_t, int)>& loss) const {
  std::vector<double> v(fabric_.size(), 0);
  for (size_t i = 1; i < t.order.size(); ++i) {  // increasing distance: V(y) is final
    uint32_t x = t.order[i];
    double sum = 0;
    for (uint32_t e = first_[x]; e < first_[x + 1]; ++e) {
      uint32_t y = edges_[e].to;
      if (down_[e] || t.dist[y] != t.dist[x] - 1) continue;
      sum += t.count[y] * (loss(x, edges_[e].port) + v[y]);
    }
    v[x] = t.count[x] > 0 ? sum / t.count[x] : 0;
  }
  return v;
}

bool RouteModel::on_minimal_route(const Toward& t, uint32_t a, uint32_t node, int port,
                                  const Toward& from_node) const {
  auto it = edge_of_.find(dir_link_key(node, port));
  if (it == edge_of_.end() || down_[it->second]) return false;
  uint32_t y = edges_[it->second].to;
  return t.dist[a] >= 0 && from_node.dist[a] >= 0 && t.dist[y] >= 0 &&
         from_node.dist[a] + 1 + t.dist[y] == t.dist[a];
}

void RouteModel::append_lft_path(uint16_t from, uint16_t to, std::vector<LinkShare>* out,
                                 std::string* error, bool* ok) const {
  PathResult path = trace_path(fabric_, *tables_, lids_, from, to);
  if (!path.ok()) {
    *error = "no static route from LID " + std::to_string(from) + " to " + std::to_string(to) +
             ": " + path.error;
    *ok = false;
    return;
  }
  for (const Hop& h : path.hops)
    if (h.out_port) out->push_back({h.node, h.out_port, 1});
}

bool RouteModel::static_route(const Endpoint& src, const Endpoint& dst, std::vector<LinkShare>* out,
                              std::string* error, bool roundtrip) const {
  if (!tables_) return *error = "no routing tables (opensm-lfts.dump) for static routes", false;
  auto lid_of = [&](const Endpoint& e) -> uint16_t {
    const Port* p = fabric_.node(e.node).port(e.port);
    return p ? p->lid : 0;
  };
  uint16_t a = lid_of(src), b = lid_of(dst);
  if (!a || !b) return *error = "an endpoint has no LID", false;
  bool ok = true;
  append_lft_path(a, b, out, error, &ok);
  if (ok && roundtrip) append_lft_path(b, a, out, error, &ok);
  return ok;
}

bool RouteModel::adaptive_route(const Endpoint& src, const Endpoint& dst,
                                std::vector<LinkShare>* out, std::string* error,
                                bool roundtrip) const {
  auto a = attach(src), b = attach(dst);
  if (!a || !b) return *error = "an endpoint has no link up", false;
  if (a->second) {  // src's host link into the fabric, and back for a round trip
    out->push_back({src.node, src.port, 1});
    if (roundtrip) out->push_back({a->first, a->second, 1});
  }
  if (b->second) {  // dst's host link out of the fabric, and back for a round trip
    if (roundtrip) out->push_back({dst.node, dst.port, 1});
    out->push_back({b->first, b->second, 1});
  }
  if (a->first == b->first) return true;
  const std::pair<uint32_t, uint32_t> ways[] = {{a->first, b->first}, {b->first, a->first}};
  for (auto [from, to] : std::span(ways, roundtrip ? 2 : 1)) {
    Toward t = toward(to);
    if (t.dist[from] < 0) return *error = "no route between the two switches", false;
    std::vector<double> w(fabric_.size(), 0);
    w[from] = 1;
    spray(t, w, [&](uint32_t n, int p, double flow) { out->push_back({n, p, flow}); });
  }
  return true;
}

bool RouteModel::directed_route(const Endpoint& start, const std::vector<int>& path,
                                std::vector<LinkShare>* out, std::string* error,
                                bool roundtrip) const {
  if (path.empty() || path[0] != 0)
    return *error = "a directed route starts with 0 (the start node itself)", false;
  uint32_t cur = start.node;
  for (size_t i = 1; i < path.size(); ++i) {
    const Port* p = fabric_.node(cur).port(path[i]);
    if (!p || !link_up(cur, path[i]))
      return *error = "hop " + std::to_string(i) + ": " + fabric_.port_label(cur, path[i]) +
                      " has no link up",
             false;
    out->push_back({cur, path[i], 1});
    if (roundtrip) out->push_back({p->peer_node, p->peer_port, 1});
    cur = p->peer_node;
  }
  return true;
}

}  // namespace ibw::fabric
