// ibw-bench-localize_gen: synthetic adaptive-routing observations for the localizer's
// benchmark and lab checks. Random host pairs (sorted by destination leaf, so each leaf's
// minimal-route counts are computed once), `sent` probes each, one-way (as a bandwidth or
// nccl test's packets, no `roundtrip` in the records); a probe is lost with probability
// 1 - prod(1 - rate * share) over the cursed links it can cross src -> dst (share: the
// fraction of the pair's minimal routes through the link, as fabric/route_model.h counts
// them), plus background noise per link crossing on every probe.
// Usage: ibw-bench-localize_gen --topology FILE --count N --out FILE [--sent S] [--seed K]
//        [--noise P] [--cursed NODE/PORT:RATE]...   (PORT: the receiving port; RATE 0-1)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "fabric/node_name_map.h"
#include "fabric/route_model.h"
#include "fabric/topology.h"
#include "ingest/observation.h"

namespace {

using namespace ibw;

struct Cursed {
  uint32_t x, y;  // transmitting and receiving switch
  double rate;
  fabric::RouteModel::Toward from_x;
};

int usage() {
  std::fprintf(stderr,
               "usage: ibw-bench-localize_gen --topology FILE --count N --out FILE [--sent S]"
               " [--seed K] [--noise P] [--cursed NODE/PORT:RATE]...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string topo_file, out_file;
  long count = 0, sent = 100;
  unsigned seed = 1;
  double noise = 1e-6;
  std::vector<std::string> cursed_args;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--topology")
      topo_file = v;
    else if (k == "--out")
      out_file = v;
    else if (k == "--count")
      count = std::stol(v);
    else if (k == "--sent")
      sent = std::stol(v);
    else if (k == "--seed")
      seed = static_cast<unsigned>(std::stoul(v));
    else if (k == "--noise")
      noise = std::stod(v);
    else if (k == "--cursed")
      cursed_args.push_back(v);
    else
      return usage();
  }
  if (topo_file.empty() || out_file.empty() || count <= 0) return usage();
  fabric::Fabric fab = fabric::load_topology_file(topo_file);
  fabric::apply_node_names(fab, nullptr);
  fabric::RouteModel model(fab, nullptr);
  std::vector<Cursed> cursed;
  for (const std::string& c : cursed_args) {
    size_t colon = c.rfind(':');
    std::string err;
    auto e = model.resolve(c.substr(0, colon), &err);
    if (colon == std::string::npos || !e || fab.node(e->node).type != fabric::NodeType::sw) {
      std::fprintf(stderr, "--cursed %s: %s\n", c.c_str(),
                   err.empty() ? "need SWITCH/PORT:RATE" : err.c_str());
      return 2;
    }
    int port = std::stoi(c.substr(c.rfind('/', colon) + 1));
    const fabric::Port* p = fab.node(e->node).port(port);
    if (!p || !p->has_peer()) return std::fprintf(stderr, "--cursed %s: no link\n", c.c_str()), 2;
    // The named port receives: the link is peer -> node.
    cursed.push_back(
        {p->peer_node, e->node, std::stod(c.substr(colon + 1)), model.toward(p->peer_node)});
  }
  std::vector<uint32_t> hosts;
  for (uint32_t i = 0; i < fab.size(); ++i)
    if (fab.node(i).type == fabric::NodeType::ca && model.attach({i, 1})) hosts.push_back(i);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, hosts.size() - 1);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;  // (dst leaf, index) sorted by leaf
  std::vector<std::pair<uint32_t, uint32_t>> ends(static_cast<size_t>(count));
  for (auto& [s, d] : ends) {
    do s = hosts[pick(rng)], d = hosts[pick(rng)];
    while (s == d);
  }
  for (uint32_t i = 0; i < ends.size(); ++i)
    pairs.push_back({model.attach({ends[i].second, 1})->first, i});
  std::sort(pairs.begin(), pairs.end());
  std::ofstream out(out_file);
  uint32_t leaf = fabric::kNoNode;
  fabric::RouteModel::Toward tb;
  for (auto [b, i] : pairs) {
    if (b != leaf) leaf = b, tb = model.toward(b);
    uint32_t a = model.attach({ends[i].first, 1})->first;
    double keep = 1;
    for (const Cursed& c : cursed) {  // share of a -> b's minimal routes through x -> y
      if (a == b || c.from_x.dist[a] < 0 || tb.dist[c.y] < 0) continue;
      if (c.from_x.dist[a] + 1 + tb.dist[c.y] != tb.dist[a]) continue;
      keep *= 1 - c.rate * c.from_x.count[a] * tb.count[c.y] / tb.count[a];
    }
    int hops = 2 + std::max<int>(0, tb.dist[a]);  // src -> dst, host links included
    double p_loss = 1 - keep * std::pow(1 - noise, hops);
    std::binomial_distribution<long> lost(sent, p_loss);
    ingest::Observation o;
    o.src = fab.node(ends[i].first).name + "/1";
    o.dst = fab.node(ends[i].second).name + "/1";
    o.sent = static_cast<uint64_t>(sent);
    o.lost = static_cast<uint64_t>(lost(rng));
    o.routing = ingest::Routing::adaptive;
    out << ingest::observation_jsonl(o) << "\n";
  }
  std::fprintf(stderr, "%ld observations over %zu hosts, %zu cursed links -> %s\n", count,
               hosts.size(), cursed.size(), out_file.c_str());
  return 0;
}
