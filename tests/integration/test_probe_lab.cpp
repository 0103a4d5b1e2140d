// Integration: `ibwarden probe` on a live ibsim + OpenSM fat tree under umad2sim. On a clean
// fabric every LID answers every probe and the directed-route probes cover every link once;
// with ibsim's `Error` on one spine port, exactly the directed routes that cross that link
// lose probes, seen from two vantage points.
//
// Why exact zeros are safe here: ibsim drops packets only on ports with an error rate, and it
// answers a dropped MAD at once with ETIMEDOUT, so a long per-MAD timeout (2 s) costs nothing
// and keeps a loaded machine from faking loss.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fabric/ibnetdiscover_parser.h"
#include "fabric/node_name_map.h"
#include "ingest/sequential.h"
#include "tests/lab/daemon_config.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using ibw::fabric::Fabric;
using ibw::lab::DaemonConfig;
using nlohmann::json;

namespace probe_lab {

// A link as its two (node, port) ends, lower end first.
using End = std::pair<uint32_t, int>;
using Link = std::pair<End, End>;

Link link_of(End a, End b) {
  return a < b ? Link{a, b} : Link{b, a};
}

struct Walk {
  uint32_t reached = ibw::fabric::kNoNode;
  int in_port = 0;
  std::vector<Link> crossed;
};

// Follows a directed route ("0,1,3,2") through the model from `from`.
Walk walk(const Fabric& fab, uint32_t from, const std::string& path) {
  Walk w;
  w.reached = from;
  std::stringstream in(path);
  std::string hop;
  std::getline(in, hop, ',');  // hop 0: the local node itself
  REQUIRE(hop == "0");
  while (std::getline(in, hop, ',')) {
    int out = std::stoi(hop);
    const ibw::fabric::Port* p = fab.node(w.reached).port(out);
    REQUIRE(p);
    REQUIRE(p->has_peer());
    w.crossed.push_back(link_of({w.reached, out}, {p->peer_node, p->peer_port}));
    w.reached = p->peer_node;
    w.in_port = p->peer_port;
  }
  return w;
}

struct Lab {
  ibw::lab::SimLab sim;
  Fabric fab;
  std::string config;
};

// 4 leaves x 2 spines x 2 hosts: 14 nodes, 16 links.
std::unique_ptr<Lab> start_lab() {
  auto gen = ibw::lab::two_tier_lab(4, 2, 2);
  auto lab = std::unique_ptr<Lab>(new Lab{ibw::lab::SimLab({ibw::lab::to_ibsim_net(gen)}), {}, {}});
  auto disc = lab->sim.run({"ibnetdiscover"});
  REQUIRE(disc.status == 0);
  std::ofstream(lab->sim.dir() + "/topology.txt") << disc.out;
  lab->fab = ibw::fabric::parse_ibnetdiscover(disc.out, "disc");
  ibw::fabric::apply_node_names(lab->fab, nullptr);
  lab->config = lab->sim.dir() + "/ibwarden.yaml";
  DaemonConfig()
      .set("fabric", "discovery", "topology.txt")
      .set("probes", "timeout", "2s")
      .write(lab->config);
  return lab;
}

struct Output {
  std::vector<json> lid, directed;
  std::string err;
};

Output probe(const Lab& lab, std::vector<std::string> args, const std::string& host = "",
             const std::string& config = "") {
  std::vector<std::string> argv = {IBW_BINARY, "probe", "--config",
                                   config.empty() ? lab.config : config};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = lab.sim.run(argv, host, std::chrono::seconds(60));
  INFO("ibwarden probe stderr: " << r.err);
  REQUIRE(r.status == 0);
  Output out;
  out.err = r.err;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line);
    (j["routing"] == "directed" ? out.directed : out.lid).push_back(j);
  }
  return out;
}

uint32_t node(const Fabric& fab, const std::string& name) {
  uint32_t n = fab.resolve(name);
  REQUIRE(n != ibw::fabric::kNoNode);
  return n;
}

std::set<Link> all_links(const Fabric& fab) {
  std::set<Link> links;
  for (uint32_t i = 0; i < fab.size(); ++i)
    for (const auto& p : fab.node(i).ports)
      if (p.number > 0 && p.has_peer())
        links.insert(link_of({i, p.number}, {p.peer_node, p.peer_port}));
  return links;
}

std::string dst_of(const Fabric& fab, uint32_t n, int port) {
  std::string s = ibw::fabric::format_guid(fab.node(n).guid);
  return fab.node(n).type == ibw::fabric::NodeType::sw ? s : s + "/" + std::to_string(port);
}

// Every directed observation: reaches the node it names, was probed until decided, and loses
// probes exactly when its route crosses `lossy`.
void check_directed(const Fabric& fab, const Output& out, uint32_t from, int count,
                    const std::optional<Link>& lossy) {
  int crossing = 0;
  for (const auto& o : out.directed) {
    INFO(o.dump());
    Walk w = walk(fab, from, o["path"]);
    CHECK(o["dst"] == dst_of(fab, w.reached, w.in_port));
    CHECK(o["src"] == std::to_string(fab.node(from).ports[1].lid));
    CHECK(o["roundtrip"] == true);  // out along the route, the answer back along it
    // The round's count, then batches of it until Wald's test decided (ingest/sequential.h).
    CHECK(o["sent"] >= count);
    CHECK(o["sent"].get<int>() % count == 0);
    CHECK(ibw::ingest::sprt(o["sent"], o["lost"], {}) != ibw::ingest::SprtVerdict::undecided);
    bool crosses = lossy && std::count(w.crossed.begin(), w.crossed.end(), *lossy);
    crossing += crosses;
    if (crosses)
      CHECK(o["lost"] > 0);  // P(no loss in `count` tries at >= 40%) = 0.6^30 ~ 2e-7
    else
      CHECK(o["lost"] == 0);
  }
  if (lossy) CHECK(crossing > 0);
}

TEST_CASE("probe: clean fabric - every LID answers and every link is probed once",
          "[integration][probe]") {
  auto lab = start_lab();
  const Fabric& fab = lab->fab;
  uint32_t self = node(fab, "node0001 mlx5_0");
  Output out = probe(*lab, {"--count", "5"});

  // LID-routed: every switch and CA LID but our own, each answering all 5 probes.
  std::set<int> lids;
  for (const auto& n : fab.nodes())
    for (const auto& p : n.ports)
      if (p.lid && (n.type == ibw::fabric::NodeType::sw ? p.number == 0 : p.has_peer()))
        lids.insert(p.lid);
  lids.erase(fab.node(self).ports[1].lid);
  std::set<int> probed;
  for (const auto& o : out.lid) {
    INFO(o.dump());
    probed.insert(std::stoi(o["dst"].get<std::string>()));
    CHECK(o["routing"] == "static");
    CHECK(o["roundtrip"] == true);  // the reply comes back over the reverse LFT path
    CHECK(o["sent"] == 5);
    CHECK(o["lost"] == 0);
    CHECK(o["rtt_p50_us"] > 0);
    CHECK(o["rtt_p50_us"] <= o["rtt_p99_us"]);
  }
  CHECK(out.lid.size() == lids.size());
  CHECK(probed == lids);

  // Directed: one observation per link, the last hop of each route being that link.
  CHECK(out.directed.size() == fab.link_count());
  std::set<Link> last_hops;
  for (const auto& o : out.directed) last_hops.insert(walk(fab, self, o["path"]).crossed.back());
  CHECK(last_hops == all_links(fab));
  check_directed(fab, out, self, 5, std::nullopt);
  CHECK(out.err.find(" 0 lost") != std::string::npos);

  // Another vantage point, the fabric discovered live from there: the same coverage.
  std::string live = lab->sim.dir() + "/live.yaml";
  DaemonConfig().set("probes", "timeout", "2s").write(live);
  uint32_t other = node(fab, "node0005 mlx5_0");
  Output b = probe(*lab, {"--count", "5"}, "node0005 mlx5_0", live);
  CHECK(b.lid.size() == lids.size());  // the same number: all but its own LID
  CHECK(b.directed.size() == fab.link_count());
  last_hops.clear();
  for (const auto& o : b.directed) last_hops.insert(walk(fab, other, o["path"]).crossed.back());
  CHECK(last_hops == all_links(fab));
  check_directed(fab, b, other, 5, std::nullopt);

  // CSV: a header, then one row per target.
  std::string csv = lab->sim.dir() + "/probe.csv";
  auto r = lab->sim.run({IBW_BINARY, "probe", "--config", lab->config, "--count", "1", "--format",
                         "csv", "--output", csv});
  REQUIRE(r.status == 0);
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  CHECK(line == "src,dst,sent,lost,rtt_p50_us,rtt_p99_us,routing,path,time,roundtrip");
  size_t rows = 0;
  while (std::getline(in, line)) rows += line.ends_with(",true");  // every probe is a round trip
  CHECK(rows == lids.size() + fab.link_count());

  // Usage and port errors: exit 2 with a message.
  r = lab->sim.run({IBW_BINARY, "probe", "--config", lab->config, "--format", "xml"});
  CHECK(r.status == 2);
  CHECK(r.err.find("--format") != std::string::npos);
  std::string bad_ca = lab->sim.dir() + "/bad-ca.yaml";
  DaemonConfig()
      .set("fabric", "discovery", "topology.txt")
      .set("fabric", "ca", "mlx9_9")
      .write(bad_ca);
  r = lab->sim.run({IBW_BINARY, "probe", "--config", bad_ca});
  CHECK(r.status == 2);
  CHECK(r.err.find("mlx9_9") != std::string::npos);
}

TEST_CASE("probe: a lossy spine port shows on exactly the routes through it - two vantage points",
          "[integration][probe]") {
  auto lab = start_lab();
  const Fabric& fab = lab->fab;
  // spine001's port to leaf002: neither vantage point's own leaf.
  uint32_t spine = node(fab, "spine001"), leaf = node(fab, "leaf002");
  int port = 0;
  for (const auto& p : fab.node(spine).ports)
    if (p.has_peer() && p.peer_node == leaf) port = p.number;
  REQUIRE(port > 0);
  Link lossy = link_of({spine, port}, {leaf, fab.node(spine).ports[port].peer_port});
  lab->sim.console("Error \"spine001\"[" + std::to_string(port) + "] 40");

  Output a = probe(*lab, {"--count", "30"});
  CHECK(a.directed.size() == fab.link_count());
  check_directed(fab, a, node(fab, "node0001 mlx5_0"), 30, lossy);

  // From a host on leaf003. (The model comes from before the fault: a live discovery across
  // a 40% lossy link may itself miss the link.)
  Output b = probe(*lab, {"--count", "30"}, "node0005 mlx5_0");
  CHECK(b.directed.size() == fab.link_count());
  check_directed(fab, b, node(fab, "node0005 mlx5_0"), 30, lossy);

  // Cleared: no loss anywhere.
  lab->sim.console("Error \"spine001\"[" + std::to_string(port) + "] 0");
  Output c = probe(*lab, {"--count", "10"});
  check_directed(fab, c, node(fab, "node0001 mlx5_0"), 10, std::nullopt);
  for (const auto& o : c.lid) CHECK(o["lost"] == 0);
}

}  // namespace probe_lab
