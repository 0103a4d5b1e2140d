// The cursed-route localizer (rules/localize.h).
#include "rules/localize.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <span>
#include <unordered_map>

#include "fabric/dest_tables.h"
#include "fabric/diagnostics.h"
#include "fabric/flat_map.h"

namespace ibw::rules {
namespace localize_detail {

using fabric::RouteModel;

// Records with the same endpoints and routing, summed.
struct Item {
  uint32_t links_begin = 0, links_end = 0;  // State::pool: port indices with share 1
  uint32_t a = fabric::kNoNode;             // adaptive: source switch
  uint32_t b = fabric::kNoNode;             // adaptive: destination switch
  double sent = 0, bad = 0;
  int64_t bad_recs = 0, good_recs = 0;
  int64_t last_bad_us = 0;
  std::vector<std::pair<double, std::string>> samples;  // (loss, "src -> dst: lost/sent")
  bool alive = true;
};

struct State {
  const RouteModel& model;
  std::vector<uint32_t> offset;  // port index = offset[node] + port
  std::vector<Item> items;
  std::vector<uint32_t> pool;  // items' fixed links (fixed routes, host links), item after item
  fabric::DestTables tables;   // minimal routes toward each destination class, kept
  std::vector<double> traffic, bad, sig;         // sig: the items crossing a link, as a random sum
  std::vector<double> fixed_traffic, fixed_bad;  // the share-1 part (fixed routes, host links)
  std::vector<uint32_t> on_start, on_items;      // link -> items with it on a fixed route (CSR)
  std::vector<uint32_t> stamp;                   // per item: last group that counted it
  uint32_t epoch = 0;
  size_t skipped = 0;  // records whose route is gone (skip_unroutable)

  explicit State(const RouteModel& m) : model(m), tables(m) {
    const fabric::Fabric& f = m.fabric();
    offset.resize(f.size() + 1);
    for (uint32_t i = 0; i < f.size(); ++i) {
      offset[i + 1] = offset[i] + static_cast<uint32_t>(f.node(i).ports.size());
    }
    traffic.assign(offset.back(), 0);
    bad.assign(offset.back(), 0);
    sig.assign(offset.back(), 0);
    fixed_traffic.assign(offset.back(), 0);
    fixed_bad.assign(offset.back(), 0);
  }
  uint32_t index(uint32_t node, int port) const {
    return offset[node] + static_cast<uint32_t>(port);
  }
  std::span<const uint32_t> items_on(uint32_t link) const {
    return {on_items.data() + on_start[link], on_start[link + 1] - on_start[link]};
  }
  std::span<const uint32_t> links(const Item& it) const {
    return {pool.data() + it.links_begin, it.links_end - it.links_begin};
  }
  std::pair<uint32_t, int> port_of(uint32_t index) const {
    auto it = std::upper_bound(offset.begin(), offset.end(), index);
    uint32_t node = static_cast<uint32_t>(it - offset.begin() - 1);
    return {node, static_cast<int>(index - offset[node])};
  }
};

double bad_of(const ingest::Observation& o) {
  double b = static_cast<double>(o.lost + o.slow);
  if (o.gbps && o.expected_gbps && *o.expected_gbps > 0 && *o.gbps < 0.9 * *o.expected_gbps)
    b += static_cast<double>(o.sent) * (1 - *o.gbps / *o.expected_gbps);
  return std::min(b, static_cast<double>(o.sent));
}

void diag(fabric::DiagnosticSink& sink, const ingest::Observation& o, const std::string& field,
          const std::string& message) {
  size_t colon = o.origin.rfind(':');
  int line = colon == std::string::npos ? 0 : std::atoi(o.origin.c_str() + colon + 1);
  sink.add(line, field, message);
}

// Resolves and groups the records into items.
void build(State& st, const std::vector<ingest::Observation>& obs, const LocalizeOptions& opt,
           fabric::DiagnosticSink& sink) {
  std::unordered_map<std::string, fabric::Endpoint> ends;
  // Records with the same ends and routing are one item: keyed by the resolved ends (and the
  // path of a directed route).
  struct Key {
    uint64_t src, dst;
    std::string path;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(k.src * 0x9E3779B97F4A7C15ULL ^ k.dst) ^
             std::hash<std::string>()(k.path);
    }
  };
  std::unordered_map<Key, uint32_t, KeyHash> by_key;  // directed routes (and huge fabrics)
  fabric::FlatMap64 by_pair;
  by_pair.reserve(obs.size());
  st.items.reserve(obs.size());
  st.pool.reserve(obs.size() * 4);
  std::vector<uint32_t> fixed;  // one item's fixed links
  auto resolve = [&](const ingest::Observation& o, const std::string& text,
                     const char* field) -> std::optional<fabric::Endpoint> {
    if (auto it = ends.find(text); it != ends.end()) return it->second;
    std::string err;
    auto e = st.model.resolve(text, &err);
    if (!e) return diag(sink, o, field, err), std::nullopt;
    return ends[text] = *e;
  };
  for (const ingest::Observation& o : obs) {
    auto routing = o.routing == ingest::Routing::unspecified ? opt.default_routing : o.routing;
    auto src = resolve(o, o.src, "src");
    auto dst = resolve(o, o.dst, "dst");
    if (!src || !dst) continue;
    const uint64_t a_key = static_cast<uint64_t>(src->node) << 9 | static_cast<uint64_t>(src->port);
    const uint64_t b_key = static_cast<uint64_t>(dst->node) << 9 | static_cast<uint64_t>(dst->port);
    // Most records: both ends and the routing in one integer key (nodes < 2^20).
    const bool flat = o.path.empty() && src->node < (1u << 20) && dst->node < (1u << 20);
    const uint64_t pair_key = a_key << 31 | b_key << 2 | static_cast<uint64_t>(routing);
    Key key;
    std::optional<uint32_t> found;
    if (flat) {
      found = by_pair.find(pair_key);
    } else {
      key = Key{a_key, b_key | static_cast<uint64_t>(routing) << 60, {}};
      for (int p : o.path) key.path += std::to_string(p) + ",";
      if (auto it = by_key.find(key); it != by_key.end()) found = it->second;
    }
    if (!found) {
      fixed.clear();
      Item item;
      std::vector<fabric::LinkShare> links;
      std::string err;
      bool ok = true;
      if (routing == ingest::Routing::adaptive) {
        auto a = st.model.attach(*src), b = st.model.attach(*dst);
        ok = a && b;
        if (!ok) err = "an endpoint has no link up";
        for (const auto& [e, at] : {std::pair{*src, a}, std::pair{*dst, b}})
          if (ok && at->second) {
            fixed.push_back(st.index(e.node, e.port));
            fixed.push_back(st.index(at->first, at->second));
          }
        if (ok && a->first != b->first) item.a = a->first, item.b = b->first;
      } else if (routing == ingest::Routing::static_lft) {
        ok = st.model.static_route(*src, *dst, &links, &err);
      } else {
        ok = st.model.directed_route(*src, o.path, &links, &err);
      }
      if (!ok) {
        if (opt.skip_unroutable)
          ++st.skipped;
        else
          diag(sink, o, routing == ingest::Routing::directed ? "path" : "dst", err);
        continue;
      }
      for (const auto& l : links) fixed.push_back(st.index(l.node, l.port));
      std::sort(fixed.begin(), fixed.end());
      fixed.erase(std::unique(fixed.begin(), fixed.end()), fixed.end());
      item.links_begin = static_cast<uint32_t>(st.pool.size());
      st.pool.insert(st.pool.end(), fixed.begin(), fixed.end());
      item.links_end = static_cast<uint32_t>(st.pool.size());
      found = static_cast<uint32_t>(st.items.size());
      st.items.push_back(std::move(item));
      if (flat)
        by_pair.emplace(pair_key, *found);
      else
        by_key.emplace(std::move(key), *found);
    }
    Item& item = st.items[*found];
    double b = bad_of(o);
    item.sent += static_cast<double>(o.sent);
    item.bad += b;
    if (b > 0) {
      ++item.bad_recs;
      item.last_bad_us = std::max(item.last_bad_us, o.time_us);
      double loss = o.sent ? b / static_cast<double>(o.sent) : 1;
      if (item.samples.size() < 3 || loss > item.samples.back().first) {
        item.samples.push_back({loss, o.src + " -> " + o.dst + ": " +
                                          std::to_string(o.lost + o.slow) + "/" +
                                          std::to_string(o.sent)});
        std::sort(item.samples.rbegin(), item.samples.rend());
        if (item.samples.size() > 3) item.samples.pop_back();
      }
    } else {
      ++item.good_recs;
    }
  }
}

// The items on each link's fixed routes, as one array (counting sort by link).
void index_fixed_links(State& st) {
  st.on_start.assign(st.offset.back() + 1, 0);
  for (const Item& it : st.items)
    for (uint32_t l : st.links(it)) ++st.on_start[l + 1];
  for (size_t l = 0; l + 1 < st.on_start.size(); ++l) st.on_start[l + 1] += st.on_start[l];
  st.on_items.resize(st.on_start.back());
  std::vector<uint32_t> next(st.on_start.begin(), st.on_start.end() - 1);
  for (uint32_t i = 0; i < st.items.size(); ++i)
    for (uint32_t l : st.links(st.items[i])) st.on_items[next[l]++] = i;
}

// A random weight per item: links crossed by the same items with the same shares get the same
// sum of tags; others almost surely not.
double tag_of(size_t i) {
  uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ULL;
  x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ULL, x ^= x >> 29;
  return 0.5 + static_cast<double>(x >> 11) / 9007199254740992.0;
}

// Adds (sign 1) or takes out (sign -1) the items' traffic, bad and tags on every directed
// link. The first round adds every item; later ones take out only what the last suspect
// explained, which leaves what a recount of the rest would give up to rounding: anything left
// under a millionth of a probe is zero.
void accumulate(State& st, const std::vector<uint32_t>& which, double sign) {
  std::vector<fabric::DestTables::Flow> flows;
  std::vector<uint32_t> ends;
  flows.reserve(which.size() * 2);
  ends.reserve(which.size() * 2);
  for (uint32_t i : which) {
    const Item& it = st.items[i];
    const double sent = sign * it.sent, bad = sign * it.bad, tag = sign * tag_of(i);
    for (uint32_t l : st.links(it)) {
      st.traffic[l] += sent, st.bad[l] += bad, st.sig[l] += tag;
      st.fixed_traffic[l] += sent, st.fixed_bad[l] += bad;
    }
    if (it.a == fabric::kNoNode) continue;
    uint32_t a = st.model.ordinal(it.a), b = st.model.ordinal(it.b);
    flows.push_back({a, b, {sent, bad, tag}});  // request
    flows.push_back({b, a, {sent, bad, tag}});  // reply
    ends.push_back(a), ends.push_back(b);
  }
  // The three weights (sent, bad, tag) sprayed together over every minimal route, one pass
  // per destination class (fabric/dest_tables.h).
  st.tables.prepare(ends);
  constexpr int K = fabric::DestTables::K;
  std::vector<double> out(static_cast<size_t>(st.model.edges()) * K, 0);
  st.tables.spray(flows, out);
  for (uint32_t e = 0; e < st.model.edges(); ++e) {
    if (out[e * K] == 0 && out[e * K + 1] == 0 && out[e * K + 2] == 0) continue;
    uint32_t l = st.index(st.model.switch_node(st.model.edge_from(e)), st.model.edge_port(e));
    st.traffic[l] += out[e * K], st.bad[l] += out[e * K + 1], st.sig[l] += out[e * K + 2];
  }
  if (sign > 0) return;
  constexpr double kZero = 1e-6;
  for (size_t l = 0; l < st.traffic.size(); ++l) {
    if (st.traffic[l] < kZero) st.traffic[l] = st.bad[l] = st.sig[l] = 0;
    if (st.bad[l] < kZero) st.bad[l] = 0;
    if (st.fixed_traffic[l] < kZero) st.fixed_traffic[l] = st.fixed_bad[l] = 0;
    if (st.fixed_bad[l] < kZero) st.fixed_bad[l] = 0;
  }
}

// Equal up to ~1e-6 relative (sums of the same shares in another order differ in the last bits).
int64_t rel_key(double x) {
  return std::llround(std::log(x) * 1e6);
}

struct PairHash {
  size_t operator()(const std::pair<int64_t, int64_t>& p) const {
    return std::hash<int64_t>()(p.first) * 31 + std::hash<int64_t>()(p.second);
  }
};

// A switch-to-switch link of a suspect group: its ends (ordinals) and the distances from x.
struct SwitchLink {
  uint32_t x, y;
  std::vector<int8_t> from_x;
};

// True when some minimal route of the adaptive item (either way) crosses one of the links.
bool crosses(State& st, const Item& it, const std::vector<SwitchLink>& links) {
  const fabric::DestTables& t = st.tables;
  uint32_t a = st.model.ordinal(it.a), b = st.model.ordinal(it.b);
  for (const SwitchLink& l : links) {
    int dab = t.dist(b, a), dyb = t.dist(b, l.y), dax = l.from_x[a];  // request a -> b
    if (dab >= 0 && dyb >= 0 && dax >= 0 && dax + 1 + dyb == dab) return true;
    int dba = t.dist(a, b), dya = t.dist(a, l.y), dbx = l.from_x[b];  // reply b -> a
    if (dba >= 0 && dya >= 0 && dbx >= 0 && dbx + 1 + dya == dba) return true;
  }
  return false;
}

}  // namespace localize_detail

LocalizeResult localize(const fabric::RouteModel& model,
                        const std::vector<ingest::Observation>& observations,
                        const LocalizeOptions& opt) {
  using namespace localize_detail;
  State st(model);
  fabric::DiagnosticSink sink(
      observations.empty()
          ? "observations"
          : observations.front().origin.substr(0, observations.front().origin.rfind(':')));
  build(st, observations, opt, sink);
  sink.throw_if_any();
  index_fixed_links(st);
  st.stamp.assign(st.items.size(), 0);
  LocalizeResult result;
  result.observations = observations.size();
  result.pairs = st.items.size();
  result.skipped = st.skipped;
  const fabric::Fabric& fab = model.fabric();
  double noise_pair = -1;  // background loss of one probe: noise x the links it crosses
  std::vector<uint32_t> change(st.items.size());  // items to add (first round) or take out
  for (uint32_t i = 0; i < change.size(); ++i) change[i] = i;
  double sign = 1;
  while (static_cast<int>(result.suspects.size()) < opt.max_suspects) {
    accumulate(st, change, sign);
    change.clear(), sign = -1;
    if (noise_pair < 0) {  // the mean number of links a probe crosses, both ways
      double links_sum = 0, sent_sum = 0;
      for (const Item& it : st.items) {
        double n = static_cast<double>(st.links(it).size());
        if (it.a != fabric::kNoNode)
          n += 2.0 * std::max<int>(1, st.tables.dist(model.ordinal(it.b), model.ordinal(it.a)));
        links_sum += n * it.sent, sent_sum += it.sent;
      }
      noise_pair = opt.noise * std::max(1.0, sent_sum > 0 ? links_sum / sent_sum : 1);
    }
    // Links no observation tells apart have the same traffic and bad: one group each. A group
    // is judged on its totals (its members share the votes of the flows sprayed over them).
    std::unordered_map<std::pair<int64_t, int64_t>, std::vector<uint32_t>, PairHash> groups;
    for (size_t l = 0; l < st.traffic.size(); ++l)
      if (st.bad[l] > 0 && st.traffic[l] > 0)
        groups[{rel_key(st.traffic[l]), rel_key(st.bad[l]) * 1'000'003 + rel_key(st.sig[l])}]
            .push_back(static_cast<uint32_t>(l));
    // A group's case: the bad and traffic of the distinct observations behind it (share-1
    // routes counted once however many members they cross) plus the flows sprayed over it.
    auto judge = [&](const std::vector<uint32_t>& members, double* b, double* tr, double* loss) {
      double bf = 0, tf = 0, ba = 0, ta = 0, top = 0;
      ++st.epoch;
      for (uint32_t l : members) {
        ba += st.bad[l] - st.fixed_bad[l], ta += st.traffic[l] - st.fixed_traffic[l];
        top = std::max(top, st.traffic[l]);
        for (uint32_t i : st.items_on(l))
          if (st.items[i].alive && st.stamp[i] != st.epoch)
            st.stamp[i] = st.epoch, bf += st.items[i].bad, tf += st.items[i].sent;
      }
      // A group holding both directions of its links counts every sprayed flow twice (its
      // request over one direction, its reply over the other): count it once.
      size_t both = 0;
      for (uint32_t l : members) {
        auto [node, port] = st.port_of(l);
        const fabric::Port* p = fab.node(node).port(port);
        if (p && p->has_peer() &&
            std::binary_search(members.begin(), members.end(),
                               st.index(p->peer_node, p->peer_port)))
          ++both;
      }
      double twice = 1 + static_cast<double>(both) / static_cast<double>(members.size());
      *b = bf + ba / twice, *tr = tf + ta / twice;
      *loss = std::min(1.0, *b / top);  // of the one bad member, if only one is bad
    };
    // Many links tested at once: the noise floor's z grows with their number (the largest of
    // N normal deviates is ~sqrt(2 ln N)), so a 65,536-endpoint fabric's hundreds of
    // thousands of links do not throw up a noise suspect.
    double min_z = std::max(
        opt.min_z,
        std::sqrt(2 * std::log(std::max<double>(2, static_cast<double>(groups.size())))) + 1);
    const std::vector<uint32_t>* best = nullptr;
    double best_gain = 0;
    for (const auto& [key, members] : groups) {
      double b = 0, tr = 0, loss = 0;
      judge(members, &b, &tr, &loss);
      double expect = noise_pair * tr;
      double z = (b - expect) / std::sqrt(expect + 1);
      if (b < opt.min_bad || loss < opt.min_loss || z < min_z) continue;
      // Likelihood-style gain: the bad probes explained, weighted by how far the loss rate
      // stands above the noise (007's votes, deTector's hit ratio).
      double gain = b * std::log(b / tr / noise_pair);
      if (gain > best_gain) best_gain = gain, best = &members;
    }
    if (!best) break;
    std::vector<uint32_t> group = *best;
    std::sort(group.begin(), group.end());
    Suspect s;
    judge(group, &s.score, &s.traffic, &s.loss);
    // Explain: every item crossing the group.
    std::vector<std::pair<uint32_t, int>> sw_links;  // the group's switch-to-switch links
    for (uint32_t l : group) {
      auto [node, port] = st.port_of(l);
      s.links.push_back({node, port});
      const fabric::Port* p = fab.node(node).port(port);
      if (p && fab.node(node).type == fabric::NodeType::sw && p->has_peer() &&
          fab.node(p->peer_node).type == fabric::NodeType::sw)
        sw_links.push_back({node, port});
    }
    // Small groups: each observation against each link (distances from its transmitting end).
    // Large ones (all of a pod's core links): one reachability pass per destination switch.
    const bool per_dest = sw_links.size() > 16;
    std::vector<SwitchLink> switch_links;
    fabric::DestTables::Crossing reaches(
        st.tables, per_dest ? model.edge_mask(sw_links) : std::vector<uint8_t>{});
    if (!per_dest) {
      for (auto [node, port] : sw_links)
        switch_links.push_back({model.ordinal(node),
                                model.ordinal(fab.node(node).port(port)->peer_node),
                                model.table(node).dist});
    }
    std::vector<std::pair<double, std::string>> samples;
    ++st.epoch;  // items with a group link on a fixed route (host links, static, DR)
    for (uint32_t l : group)
      for (uint32_t i : st.items_on(l)) st.stamp[i] = st.epoch;
    for (size_t i = 0; i < st.items.size(); ++i) {
      Item& it = st.items[i];
      if (!it.alive) continue;
      bool hit = st.stamp[i] == st.epoch;
      if (!hit && it.a != fabric::kNoNode && per_dest)
        hit = reaches(model.ordinal(it.a), model.ordinal(it.b)) ||
              reaches(model.ordinal(it.b), model.ordinal(it.a));  // request, reply
      else if (!hit && it.a != fabric::kNoNode && !switch_links.empty())
        hit = crosses(st, it, switch_links);
      if (!hit) continue;
      it.alive = false;
      change.push_back(static_cast<uint32_t>(i));
      s.bad_observations += it.bad_recs;
      s.good_observations += it.good_recs;
      s.last_bad_us = std::max(s.last_bad_us, it.last_bad_us);
      samples.insert(samples.end(), it.samples.begin(), it.samples.end());
    }
    std::sort(samples.rbegin(), samples.rend());
    for (size_t i = 0; i < samples.size() && i < 5; ++i)
      s.sample_bad_pairs.push_back(samples[i].second);
    s.rank = static_cast<int>(result.suspects.size()) + 1;
    result.suspects.push_back(std::move(s));
  }
  return result;
}

std::string suspect_label(const fabric::Fabric& fabric, const Suspect& s) {
  std::string out;
  for (const SuspectLink& l : s.links) {
    const fabric::Port* p = fabric.node(l.node).port(l.port);
    out += (out.empty() ? "" : ", ") + fabric.port_label(l.node, l.port) + " -> " +
           (p && p->has_peer() ? fabric.port_label(p->peer_node, p->peer_port) : "?");
  }
  return out;
}

nlohmann::ordered_json localize_json(const fabric::Fabric& fabric, const LocalizeResult& result,
                                     const CableLookup& cable_of) {
  auto end = [&](uint32_t node, int port) {
    const fabric::Node& n = fabric.node(node);
    return nlohmann::ordered_json{
        {"node", n.name}, {"port", port}, {"guid", fabric::format_guid(n.guid)}};
  };
  auto suspects = nlohmann::ordered_json::array();
  for (const Suspect& s : result.suspects) {
    auto links = nlohmann::ordered_json::array();
    for (const SuspectLink& l : s.links) {
      const fabric::Port* p = fabric.node(l.node).port(l.port);
      nlohmann::ordered_json j = {{"from", end(l.node, l.port)}};
      if (p && p->has_peer()) j["to"] = end(p->peer_node, p->peer_port);
      std::string cable = cable_of ? cable_of(fabric.node(l.node).guid, l.port) : "";
      if (cable.empty() && cable_of && p && p->has_peer())
        cable = cable_of(fabric.node(p->peer_node).guid, p->peer_port);
      if (!cable.empty()) j["cable_id"] = cable;
      links.push_back(std::move(j));
    }
    suspects.push_back({{"rank", s.rank},
                        {"score", s.score},
                        {"loss", s.loss},
                        {"links", std::move(links)},
                        {"bad_observations", s.bad_observations},
                        {"good_observations", s.good_observations},
                        {"sample_bad_pairs", s.sample_bad_pairs}});
  }
  return {{"observations", result.observations},
          {"pairs", result.pairs},
          {"suspects", std::move(suspects)}};
}

}  // namespace ibw::rules
