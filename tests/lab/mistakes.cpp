// Injects cabling mistakes into a generated lab and records the exact audit findings each
// one must produce (see fabric/audit.h for the finding semantics).
#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <stdexcept>

#include "tests/lab/fat_tree.h"

namespace ibw::lab {
namespace {

class Injector {
 public:
  Injector(Lab& lab, uint32_t seed) : lab_(lab), rng_(seed ? seed : 1) {
    allowed_.assign(lab.nodes.size(), 1);
    node_touched_.assign(lab.nodes.size(), 0);
    node_touched_[0] = 1;  // never touch the SM host
    touched_.assign(lab.wires.size(), 0);
    node_wires_.resize(lab.nodes.size());
    for (size_t i = 0; i < lab.wires.size(); ++i) index_wire(i);
    for (const auto& c : lab.plan) occupied_.insert(key(c.a)), occupied_.insert(key(c.b));
  }

  void partition() {
    std::vector<int> leaves = of_tier(1), spines = of_tier(2);
    if (!of_tier(3).empty() || leaves.size() < 2 || spines.size() < 2)
      throw std::runtime_error("partition needs a 2-tier fabric with >= 2 leaves and spines");
    std::set<int> side_b;
    for (size_t i = leaves.size() / 2; i < leaves.size(); ++i) side_b.insert(leaves[i]);
    for (size_t i = spines.size() / 2; i < spines.size(); ++i) side_b.insert(spines[i]);
    for (const auto& w : lab_.wires)  // hosts follow their leaf
      if (lab_.nodes[w.b.node].tier == 0 && side_b.count(w.a.node)) side_b.insert(w.b.node);
    ExpectedFinding f{"partition", {}, {}, {}};
    for (size_t i = 0; i < lab_.wires.size(); ++i) {
      bool a = side_b.count(lab_.wires[i].a.node), b = side_b.count(lab_.wires[i].b.node);
      if (a == b) continue;
      add_planned(f, i);
      removed_.push_back(i);
    }
    for (int n : side_b) allowed_[n] = 0;
    for (int n : side_b)
      if (lab_.nodes[n].tier == 0 && lab_.second_view_host < 0) lab_.second_view_host = n;
    lab_.partitioned = true;
    lab_.expected.push_back(std::move(f));
  }

  void missing_node() {
    auto spine = pick_node(2, [&](int n) {
      for (size_t i : wires_of(n))
        if (touched_[i]) return false;
      return true;
    });
    ExpectedFinding f{"missing_node", {}, {}, {}};
    for (size_t i : wires_of(spine)) add_planned(f, i), removed_.push_back(i);
    node_touched_[spine] = 1;
    lab_.absent.push_back(spine);
    lab_.expected.push_back(std::move(f));
  }

  void swap() {
    for (int attempt = 0; attempt < 200; ++attempt) {
      int leaf = pick_node(1, nullptr);
      bool uplinks = next() % 2 == 0;
      std::vector<size_t> cands;
      for (size_t i : wires_of(leaf))
        if (usable(i) && (lab_.nodes[lab_.wires[i].b.node].tier > 1) == uplinks) cands.push_back(i);
      if (cands.size() < 2) continue;
      size_t x = cands[next() % cands.size()], y = cands[next() % cands.size()];
      if (x == y || lab_.wires[x].b.node == lab_.wires[y].b.node) continue;
      Wire& wx = lab_.wires[x];
      Wire& wy = lab_.wires[y];
      ExpectedFinding f{"swapped", {}, {}, {}};
      add_planned(f, x);
      add_planned(f, y);
      std::swap(wx.b, wy.b);
      f.found = {{lab_.label(wx.a), lab_.label(wx.b)}, {lab_.label(wy.a), lab_.label(wy.b)}};
      touched_[x] = touched_[y] = 1;
      lab_.expected.push_back(std::move(f));
      return;
    }
    throw std::runtime_error("no two cables left to swap");
  }

  void misplug() {
    for (int attempt = 0; attempt < 200; ++attempt) {
      size_t i = next() % lab_.wires.size();
      if (!usable(i)) continue;
      Wire& w = lab_.wires[i];
      bool host = lab_.nodes[w.b.node].tier == 0;
      End& moved = host ? w.a : w.b;  // the switch end moves to a spare port
      int port = free_port(moved.node);
      if (port == 0) continue;
      ExpectedFinding f{"miswired", {}, {}, {}};
      add_planned(f, i);
      moved.port = port;
      occupied_.insert(key(moved));
      const End& fixed = host ? w.b : w.a;
      f.found = {{lab_.label(fixed), lab_.label(moved)}};
      touched_[i] = 1;
      lab_.expected.push_back(std::move(f));
      return;
    }
    throw std::runtime_error("no spare switch port for a misplug");
  }

  void drop() {
    for (int attempt = 0; attempt < 200; ++attempt) {
      size_t i = next() % lab_.wires.size();
      if (!usable(i)) continue;
      const Wire& w = lab_.wires[i];
      bool host = lab_.nodes[w.b.node].tier == 0;
      if (!host && (present_degree(w.a.node, true) < 2 || present_degree(w.b.node, false) < 2))
        continue;
      ExpectedFinding f{"missing", {}, {}, {}};
      add_planned(f, i);
      removed_.push_back(i);
      if (host) lab_.absent.push_back(w.b.node), node_touched_[w.b.node] = 1;
      lab_.expected.push_back(std::move(f));
      return;
    }
    throw std::runtime_error("no cable can be dropped without splitting the fabric");
  }

  void extra() {
    int leaf = pick_node(1, [&](int n) { return free_port(n) != 0; });
    int spine = pick_node(2, [&](int n) { return free_port(n) != 0; });
    End a{leaf, free_port(leaf)};
    occupied_.insert(key(a));
    End b{spine, free_port(spine)};
    occupied_.insert(key(b));
    lab_.wires.push_back({a, b, 4});
    touched_.push_back(1);
    index_wire(lab_.wires.size() - 1);
    lab_.expected.push_back({"unexpected", {}, {}, {{lab_.label(a), lab_.label(b)}}});
  }

  void degrade() {
    for (int attempt = 0; attempt < 200; ++attempt) {
      size_t i = next() % lab_.wires.size();
      if (!usable(i)) continue;
      ExpectedFinding f{"degraded", {}, {}, {}};
      add_planned(f, i);
      lab_.wires[i].width = 1;
      f.found = f.planned;
      touched_[i] = 1;
      lab_.expected.push_back(std::move(f));
      return;
    }
    throw std::runtime_error("no cable left to degrade");
  }

  void unknown(int number) {
    int leaf = pick_node(1, [&](int n) { return free_port(n) != 0; });
    LabNode stray{"stray" + std::to_string(number) + " mlx5_0",
                  false,
                  1,
                  0x0c42a103ff000000ULL + 2 * static_cast<uint64_t>(number),
                  "",
                  0,
                  false};
    lab_.nodes.push_back(stray);
    allowed_.push_back(0);
    node_touched_.push_back(1);
    End host{static_cast<int>(lab_.nodes.size() - 1), 1};
    End sw{leaf, free_port(leaf)};
    occupied_.insert(key(sw));
    lab_.wires.push_back({sw, host, 4});
    touched_.push_back(1);
    index_wire(lab_.wires.size() - 1);
    lab_.expected.push_back({"unknown_node", {}, {}, {{lab_.label(host), lab_.label(sw)}}});
  }

  void finish() {
    std::sort(removed_.begin(), removed_.end());
    for (auto it = removed_.rbegin(); it != removed_.rend(); ++it) {
      lab_.wires.erase(lab_.wires.begin() + static_cast<long>(*it));
    }
    check_reachability();
  }

 private:
  static int key(const End& e) { return e.node * 256 + e.port; }

  uint32_t next() {  // xorshift32: deterministic on every platform
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 17;
    rng_ ^= rng_ << 5;
    return rng_;
  }

  std::vector<int> of_tier(int tier) const {
    std::vector<int> out;
    for (size_t i = 0; i < lab_.nodes.size(); ++i)
      if (lab_.nodes[i].tier == tier && lab_.nodes[i].planned) out.push_back(static_cast<int>(i));
    return out;
  }

  int pick_node(int tier, const std::function<bool(int)>& ok) {
    std::vector<int> cands;
    for (int n : of_tier(tier))
      if (allowed_[n] && !node_touched_[n] && (!ok || ok(n))) cands.push_back(n);
    if (cands.empty())
      throw std::runtime_error("no suitable tier-" + std::to_string(tier) + " node left");
    return cands[next() % cands.size()];
  }

  void index_wire(size_t i) {
    node_wires_.resize(lab_.nodes.size());
    node_wires_[lab_.wires[i].a.node].push_back(i);
    node_wires_[lab_.wires[i].b.node].push_back(i);
  }

  // Wires whose planned ends touch node (swaps/misplugs keep their index).
  const std::vector<size_t>& wires_of(int node) const { return node_wires_[node]; }

  bool is_removed(size_t i) const {
    return std::find(removed_.begin(), removed_.end(), i) != removed_.end();
  }

  bool usable(size_t i) const {
    const Wire& w = lab_.wires[i];
    return i < touched_.size() && !touched_[i] && !is_removed(i) && allowed_[w.a.node] &&
           allowed_[w.b.node] && !node_touched_[w.a.node] && !node_touched_[w.b.node];
  }

  int present_degree(int node, bool upward) const {
    int n = 0;
    for (size_t i : wires_of(node)) {
      if (is_removed(i)) continue;
      const Wire& w = lab_.wires[i];
      int other = w.a.node == node ? w.b.node : w.a.node;
      if (!upward || lab_.nodes[other].tier > lab_.nodes[node].tier) ++n;
    }
    return n;
  }

  int free_port(int node) const {
    for (int p = 1; p <= lab_.nodes[node].ports; ++p)
      if (!occupied_.count(node * 256 + p)) return p;
    return 0;
  }

  void add_planned(ExpectedFinding& f, size_t i) const {
    const Cable& c = lab_.plan[i];
    f.cables.push_back(c.id);
    f.planned.emplace_back(lab_.label(c.a), lab_.label(c.b));
  }

  void check_reachability() const {
    std::vector<std::vector<int>> adj(lab_.nodes.size());
    for (const auto& w : lab_.wires)
      adj[w.a.node].push_back(w.b.node), adj[w.b.node].push_back(w.a.node);
    std::vector<char> seen(lab_.nodes.size(), 0);
    std::queue<int> q;
    q.push(0);
    seen[0] = 1;
    while (!q.empty()) {
      int n = q.front();
      q.pop();
      for (int m : adj[n])
        if (!seen[m]) seen[m] = 1, q.push(m);
    }
    for (size_t n = 0; n < lab_.nodes.size(); ++n) {
      bool gone = std::find(lab_.absent.begin(), lab_.absent.end(), static_cast<int>(n)) !=
                  lab_.absent.end();
      if (allowed_[n] && lab_.nodes[n].planned && !gone && !seen[n])
        throw std::runtime_error("mistakes cut " + lab_.nodes[n].name +
                                 " off the fabric; use another seed");
    }
  }

  Lab& lab_;
  uint32_t rng_;
  std::vector<char> allowed_, node_touched_, touched_;
  std::set<int> occupied_;
  std::vector<size_t> removed_;
  std::vector<std::vector<size_t>> node_wires_;
};

}  // namespace

void inject_mistakes(Lab& lab, const Mistakes& m) {
  Injector inj(lab, m.seed);
  if (m.partition) inj.partition();
  for (int i = 0; i < m.missing_node; ++i) inj.missing_node();
  for (int i = 0; i < m.swap; ++i) inj.swap();
  for (int i = 0; i < m.misplug; ++i) inj.misplug();
  for (int i = 0; i < m.drop; ++i) inj.drop();
  for (int i = 0; i < m.extra; ++i) inj.extra();
  for (int i = 0; i < m.degrade; ++i) inj.degrade();
  for (int i = 0; i < m.unknown; ++i) inj.unknown(i + 1);
  inj.finish();
}

}  // namespace ibw::lab
