// The cursed-route localizer (rules/localize.h).
#include "rules/localize.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <unordered_map>

#include "rules/localize_state.h"

namespace ibw::rules {
namespace localize_detail {

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
      st.sums[l].traffic += sent, st.sums[l].bad += bad, st.sums[l].sig += tag;
      st.sums[l].fixed_traffic += sent, st.sums[l].fixed_bad += bad;
    }
    if (it.a == fabric::kNoNode) continue;
    uint32_t a = st.model.ordinal(it.a), b = st.model.ordinal(it.b);
    flows.push_back({a, b, {sent, bad, tag}});                    // request (or one-way data)
    if (it.roundtrip) flows.push_back({b, a, {sent, bad, tag}});  // reply
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
    st.sums[l].traffic += out[e * K], st.sums[l].bad += out[e * K + 1],
        st.sums[l].sig += out[e * K + 2];
  }
  if (sign > 0) return;
  constexpr double kZero = 1e-6;
  for (size_t l = 0; l < st.sums.size(); ++l) {
    if (st.sums[l].traffic < kZero) st.sums[l].traffic = st.sums[l].bad = st.sums[l].sig = 0;
    if (st.sums[l].bad < kZero) st.sums[l].bad = 0;
    if (st.sums[l].fixed_traffic < kZero) st.sums[l].fixed_traffic = st.sums[l].fixed_bad = 0;
    if (st.sums[l].fixed_bad < kZero) st.sums[l].fixed_bad = 0;
  }
}

// ln P(X >= b) for X ~ Poisson(expect): the chance that background noise alone gives a
// group b bad probes or more (b may be fractional: sprayed shares). The regularized lower
// incomplete gamma P(b, expect) by its series, which converges fast where it matters (expect
// below b); 0 (certain) when expect >= b. Unlike a normal approximation it stays right for the
// few probes of a small lab: 4 lost of 20 where noise expects 0.002 is ~1e-12, not z = 4.
double log_noise_tail(double b, double expect) {
  if (b <= 0 || expect >= b) return 0;
  if (expect <= 0) return -std::numeric_limits<double>::infinity();
  double term = 1, sum = 1;
  for (int n = 1; n < 10'000 && term > sum * 1e-15; ++n) term *= expect / (b + n), sum += term;
  return b * std::log(expect) - expect - std::lgamma(b + 1) + std::log(sum);
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

// True when some minimal route of the adaptive item (a -> b, and back for a round trip)
// crosses one of the links.
bool crosses(State& st, const Item& it, const std::vector<SwitchLink>& links) {
  const fabric::DestTables& t = st.tables;
  uint32_t a = st.model.ordinal(it.a), b = st.model.ordinal(it.b);
  for (const SwitchLink& l : links) {
    int dab = t.dist(b, a), dyb = t.dist(b, l.y), dax = l.from_x[a];  // request a -> b
    if (dab >= 0 && dyb >= 0 && dax >= 0 && dax + 1 + dyb == dab) return true;
    if (!it.roundtrip) continue;
    int dba = t.dist(a, b), dya = t.dist(a, l.y), dbx = l.from_x[b];  // reply b -> a
    if (dba >= 0 && dya >= 0 && dbx >= 0 && dbx + 1 + dya == dba) return true;
  }
  return false;
}

}  // namespace localize_detail

Localizer::Localizer(const fabric::RouteModel& model, const LocalizeOptions& options)
    : st_(std::make_unique<localize_detail::State>(model, options)) {}
Localizer::~Localizer() = default;

void Localizer::reserve(size_t records) {
  st_->items.reserve(records);
  st_->by_pair.reserve(records);
  st_->pool.reserve(records * 4);
}

void Localizer::add(const ingest::Observation& o, const std::string& file, int line) {
  st_->add(o, file, line);
}

LocalizeResult localize(const fabric::RouteModel& model,
                        const std::vector<ingest::Observation>& observations,
                        const LocalizeOptions& opt) {
  Localizer loc(model, opt);
  loc.reserve(observations.size());
  std::string file;
  for (const ingest::Observation& o : observations) {
    size_t colon = o.origin.rfind(':');
    int line = colon == std::string::npos ? 0 : std::atoi(o.origin.c_str() + colon + 1);
    file.assign(o.origin, 0, colon == std::string::npos ? o.origin.size() : colon);
    loc.add(o, file.empty() ? "observations" : file, line);
  }
  return loc.run();
}

LocalizeResult Localizer::run() {
  using namespace localize_detail;
  State& st = *st_;
  const fabric::RouteModel& model = st.model;
  const LocalizeOptions& opt = st.opt;
  if (!st.errors.empty()) throw fabric::InputError(std::move(st.errors));
  st.index_fixed_links();
  st.stamp.assign(st.items.size(), 0);
  LocalizeResult result;
  result.observations = st.observations;
  result.pairs = st.items.size();
  result.skipped = st.skipped;
  result.skipped_unresolved = st.skipped_unresolved;
  const fabric::Fabric& fab = model.fabric();
  double noise_pair = -1;  // background loss of one probe: noise x the links it crosses
  std::vector<uint32_t> change(st.items.size());  // items to add (first round) or take out
  for (uint32_t i = 0; i < change.size(); ++i) change[i] = i;
  double sign = 1;
  while (static_cast<int>(result.suspects.size()) < opt.max_suspects) {
    accumulate(st, change, sign);
    change.clear(), sign = -1;
    if (noise_pair < 0) {  // the mean number of links a probe crosses (both ways if a round trip)
      double links_sum = 0, sent_sum = 0;
      for (const Item& it : st.items) {
        double n = static_cast<double>(st.links(it).size());
        if (it.a != fabric::kNoNode)
          n += (it.roundtrip ? 2.0 : 1.0) *
               std::max<int>(1, st.tables.dist(model.ordinal(it.b), model.ordinal(it.a)));
        links_sum += n * it.sent, sent_sum += it.sent;
      }
      noise_pair = opt.noise * std::max(1.0, sent_sum > 0 ? links_sum / sent_sum : 1);
    }
    // Links no observation tells apart have the same traffic and bad: one group each. A group
    // is judged on its totals (its members share the votes of the flows sprayed over them).
    std::unordered_map<std::pair<int64_t, int64_t>, std::vector<uint32_t>, PairHash> groups;
    for (size_t l = 0; l < st.sums.size(); ++l)
      if (st.sums[l].bad > 0 && st.sums[l].traffic > 0)
        groups[{rel_key(st.sums[l].traffic),
                rel_key(st.sums[l].bad) * 1'000'003 + rel_key(st.sums[l].sig)}]
            .push_back(static_cast<uint32_t>(l));
    // A group's case: the bad and traffic of the distinct observations behind it (share-1
    // routes counted once however many members they cross) plus the flows sprayed over it.
    auto judge = [&](const std::vector<uint32_t>& members, double* b, double* tr, double* loss) {
      double bf = 0, tf = 0, ba = 0, ta = 0, top = 0;
      ++st.epoch;
      for (uint32_t l : members) {
        ba += st.sums[l].bad - st.sums[l].fixed_bad,
            ta += st.sums[l].traffic - st.sums[l].fixed_traffic;
        top = std::max(top, st.sums[l].traffic);
        for (uint32_t i : st.items_on(l))
          if (st.items[i].alive && st.stamp[i] != st.epoch)
            st.stamp[i] = st.epoch, bf += st.items[i].bad, tf += st.items[i].sent;
      }
      // A group holding both directions of its links counts every sprayed flow twice (its
      // request over one direction, its reply over the other): count it once. (Only round
      // trips cross both: a one-way flow's item never has the same sums on a link's two
      // directions, so a group with both holds round-trip flows.)
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
    // One-sided normal tail at min_z: the noise floor as a probability.
    const double log_p_max = std::log(0.5 * std::erfc(min_z / std::sqrt(2.0)));
    const std::vector<uint32_t>* best = nullptr;
    double best_gain = 0;
    for (const auto& [key, members] : groups) {
      // First a bound that needs no pass over the items: a group's bad is at most its
      // members' summed bad (most noise groups stop here).
      double bound = 0, top = 0;
      for (uint32_t l : members) bound += st.sums[l].bad, top = std::max(top, st.sums[l].traffic);
      if (bound < opt.min_bad * (1 - 1e-9) || bound < opt.min_loss * top * (1 - 1e-9)) continue;
      double b = 0, tr = 0, loss = 0;
      judge(members, &b, &tr, &loss);
      // Significant when noise alone is as unlikely as a normal deviate of min_z.
      double expect = noise_pair * tr;
      if (b < opt.min_bad || loss < opt.min_loss || log_noise_tail(b, expect) > log_p_max) continue;
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
        hit = reaches(model.ordinal(it.a), model.ordinal(it.b)) ||  // request, reply
              (it.roundtrip && reaches(model.ordinal(it.b), model.ordinal(it.a)));
      else if (!hit && it.a != fabric::kNoNode && !switch_links.empty())
        hit = crosses(st, it, switch_links);
      if (!hit) continue;
      it.alive = false;
      change.push_back(static_cast<uint32_t>(i));
      s.bad_observations += it.bad_recs;
      s.good_observations += it.good_recs;
      if (it.bad_info != UINT32_MAX) {
        const BadInfo& info = st.bad_info[it.bad_info];
        s.last_bad_us = std::max(s.last_bad_us, info.last_bad_us);
        samples.insert(samples.end(), info.samples.begin(), info.samples.end());
      }
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
