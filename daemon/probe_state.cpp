// ProbeState, POST validation and the route-health matrix (daemon/probe_state.h).
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "daemon/probe_state.h"
#include "fabric/diagnostics.h"
#include "fabric/route_model.h"

namespace ibw::daemon {

void ProbeState::publish(nlohmann::json suspects, nlohmann::json route_health) {
  std::lock_guard<std::mutex> lock(mutex_);
  suspects_ = std::move(suspects);
  health_ = std::move(route_health);
}

std::optional<nlohmann::json> ProbeState::suspects() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return suspects_;
}

std::optional<nlohmann::json> ProbeState::route_health() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return health_;
}

bool ProbeState::post(std::vector<ingest::Observation> obs, size_t max_pending) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (posted_.size() + obs.size() > max_pending) return false;
  std::move(obs.begin(), obs.end(), std::back_inserter(posted_));
  return true;
}

std::vector<ingest::Observation> ProbeState::take_posted() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(posted_, {});
}

namespace {
// The lines parse_observations rejected, blanked (numbering kept; blank lines are skipped), so
// the valid ones can still be checked against the fabric and every error reported at once.
// Empty when nothing is left to check (a bad CSV header, an error about the whole body).
std::string without_lines(const std::string& text, const std::vector<fabric::Diagnostic>& bad) {
  std::set<int> drop;
  for (const auto& d : bad) {
    if (d.line <= 0) return {};
    drop.insert(d.line);
  }
  size_t first = text.find_first_not_of(" \t\r\n");
  bool csv = first != std::string::npos && text[first] != '{';
  std::string out;
  int line = 1;
  for (size_t at = 0; at < text.size(); ++line) {
    size_t nl = text.find('\n', at);
    size_t end = nl == std::string::npos ? text.size() : nl + 1;
    if (drop.count(line)) {
      if (csv && out.find_first_not_of(" \t\r\n") == std::string::npos) return {};  // header
      out += '\n';
    } else {
      out.append(text, at, end - at);
    }
    at = end;
  }
  return out;
}
}  // namespace

std::vector<ingest::Observation> validate_posted(const std::string& text, const Topology* topo) {
  const std::string file = "POST /api/v1/probes";
  std::vector<fabric::Diagnostic> diags;
  std::vector<ingest::Observation> obs;
  try {
    obs = ingest::parse_observations(text, file);
  } catch (const fabric::InputError& e) {
    diags = e.diagnostics();
    std::string rest = without_lines(text, diags);
    if (!rest.empty()) {
      try {
        obs = ingest::parse_observations(rest, file);
      } catch (const fabric::InputError&) {  // nothing more to learn from the rest
      }
    }
  }
  if (!topo) {
    diags.push_back({file, 0, "", "no fabric discovered yet; try again"});
    throw fabric::InputError(std::move(diags));
  }
  fabric::RouteModel model(topo->fabric, nullptr);
  for (const auto& o : obs) {
    int line = std::atoi(o.origin.c_str() + o.origin.rfind(':') + 1);
    std::string err;
    if (!model.resolve(o.src, &err)) diags.push_back({file, line, "src", err});
    if (!model.resolve(o.dst, &err)) diags.push_back({file, line, "dst", err});
  }
  if (diags.empty()) return obs;
  std::stable_sort(diags.begin(), diags.end(),
                   [](const auto& a, const auto& b) { return a.line < b.line; });
  throw fabric::InputError(std::move(diags));
}

nlohmann::json route_health_matrix(const fabric::Fabric& fab,
                                   const std::vector<ingest::Observation>& window) {
  fabric::RouteModel model(fab, nullptr);
  std::map<std::string, uint32_t> by_name;  // leaf switches, by display name
  for (uint32_t i = 0; i < fab.size(); ++i) {
    const fabric::Node& n = fab.node(i);
    if (n.type != fabric::NodeType::ca) continue;
    for (const fabric::Port& p : n.ports)
      if (p.number && p.has_peer() && fab.node(p.peer_node).type == fabric::NodeType::sw)
        by_name.emplace(fab.node(p.peer_node).name, p.peer_node);
  }
  std::vector<uint32_t> leaves;
  std::unordered_map<uint32_t, size_t> index;
  for (auto& [name, node] : by_name) index.emplace(node, leaves.size()), leaves.push_back(node);
  const size_t n = leaves.size();
  std::vector<std::vector<uint64_t>> sent(n, std::vector<uint64_t>(n)), lost = sent;
  std::unordered_map<uint64_t, std::pair<double, double>> link;  // DR: (sent, lost) per link
  std::unordered_map<std::string, std::optional<fabric::Endpoint>> ends;
  auto end_of = [&](const std::string& text) {
    auto [it, fresh] = ends.emplace(text, std::nullopt);
    std::string err;
    if (fresh) it->second = model.resolve(text, &err);
    return it->second;
  };
  for (const auto& o : window) {
    auto src = end_of(o.src), dst = end_of(o.dst);
    if (!src || !dst) continue;
    // A directed probe: its last link, both ways when it is a round trip (the prober's are).
    if (o.routing == ingest::Routing::directed) {
      std::vector<fabric::LinkShare> hops;
      std::string err;
      const size_t last = o.roundtrip ? 2 : 1;
      if (!model.directed_route(*src, o.path, &hops, &err, o.roundtrip) || hops.size() < last)
        continue;
      for (size_t k = hops.size() - last; k < hops.size(); ++k) {
        auto& [s, l] = link[fabric::dir_link_key(hops[k].node, hops[k].port)];
        s += static_cast<double>(o.sent), l += static_cast<double>(o.lost + o.slow);
      }
      continue;
    }
    auto a = model.attach(*src), b = model.attach(*dst);
    if (!a || !b || !index.count(a->first) || !index.count(b->first)) continue;
    size_t i = index[a->first], j = index[b->first];
    sent[i][j] += o.sent, lost[i][j] += o.lost + o.slow;
  }
  // Predicted one-way loss toward each leaf, from the per-link loss of the directed probes.
  std::vector<std::vector<double>> toward(n);
  bool predict = !link.empty() && n <= 512;
  auto loss_of = [&](uint32_t node, int port) {
    auto it = link.find(fabric::dir_link_key(node, port));
    return it == link.end() || it->second.first <= 0 ? 0.0 : it->second.second / it->second.first;
  };
  for (size_t j = 0; predict && j < n; ++j) {
    auto v = model.expected_loss(model.toward(leaves[j]), loss_of);
    toward[j].resize(n);
    for (size_t i = 0; i < n; ++i) toward[j][i] = std::min(1.0, v[leaves[i]]);
  }
  nlohmann::json names = nlohmann::json::array(), guids = nlohmann::json::array();
  nlohmann::json js = nlohmann::json::array(), jl = nlohmann::json::array(),
                 jx = nlohmann::json::array();
  for (size_t i = 0; i < n; ++i) {
    names.push_back(fab.node(leaves[i]).name);
    guids.push_back(fabric::format_guid(fab.node(leaves[i]).guid));
    nlohmann::json rs = nlohmann::json::array(), rl = rs, rx = rs;
    for (size_t j = 0; j < n; ++j) {
      rs.push_back(sent[i][j]);
      rl.push_back(lost[i][j]);
      if (sent[i][j])
        rx.push_back(static_cast<double>(lost[i][j]) / static_cast<double>(sent[i][j]));
      else if (predict)  // request to j, reply back to i
        rx.push_back(1 - (1 - toward[j][i]) * (1 - toward[i][j]));
      else
        rx.push_back(nullptr);
    }
    js.push_back(std::move(rs)), jl.push_back(std::move(rl)), jx.push_back(std::move(rx));
  }
  return {{"switches", names}, {"guids", guids}, {"sent", js},
          {"lost", jl},        {"loss", jx},     {"predicted", predict}};
}

}  // namespace ibw::daemon
