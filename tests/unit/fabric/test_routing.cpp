// Routing tables: the LFT parser on dumps recorded from OpenSM, dump_fts and ibroute on ibsim
// (tests/data/routing/README.md), trace_path against recorded ibtracert output and on small
// fabrics built in code (every error), and pairs_crossing against tracing every pair.
#include <catch2/catch.hpp>

#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fabric/diagnostics.h"
#include "fabric/ibnetdiscover_parser.h"
#include "fabric/model.h"
#include "fabric/node_name_map.h"
#include "fabric/routing.h"
#include "tests/test_paths.h"
#include "tests/unit/fabric/test_net.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::fabric;

namespace ibw::fabric {
std::ostream& operator<<(std::ostream& os, const Hop& h) {
  return os << "{node " << h.node << ", in " << h.in_port << ", out " << h.out_port << "}";
}
}  // namespace ibw::fabric

namespace routing_test {

const std::string kData = std::string(IBW_TEST_DATA) + "/routing/";

constexpr uint64_t kLeaf001 = 0xb83fd20300000001ULL;
constexpr uint64_t kLeaf004 = 0xb83fd20300000004ULL;
constexpr uint64_t kSpine002 = 0xb83fd20300000006ULL;

// leaf001's table in opensm-lfts.dump, LIDs 1-22.
const std::vector<int> kLeaf001Ports = {1, 0, 5, 5, 5, 2, 5, 6, 3, 4, 5,
                                        6, 5, 6, 5, 6, 5, 6, 5, 6, 5, 6};

// One hop line of ibtracert: `[out] -> switch port {0xGUID}[in] lid A-B "desc"`.
struct TracertHop {
  int out_port = 0;
  uint64_t guid = 0;
  int in_port = 0;
  int lid = 0;
  std::string desc;
};
struct Tracert {
  uint64_t from_guid = 0, to_guid = 0;  // node GUIDs
  std::vector<TracertHop> hops;
};

Tracert parse_tracert(const std::string& text) {
  static const std::regex from(
      R"re(^(From|To) \w+ \{0x([0-9a-f]+)\} portnum \d+ lid \d+-\d+ ".*"$)re");
  static const std::regex hop(
      R"re(^\[(\d+)\] -> \w+ port \{0x([0-9a-f]+)\}\[(\d+)\] lid (\d+)-\d+ "(.*)"$)re");
  Tracert t;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, from)) {
      (m[1] == "From" ? t.from_guid : t.to_guid) = std::stoull(m[2], nullptr, 16);
    } else if (std::regex_match(line, m, hop)) {
      t.hops.push_back({std::stoi(m[1]), std::stoull(m[2], nullptr, 16), std::stoi(m[3]),
                        std::stoi(m[4]), m[5]});
    }
  }
  return t;
}

// Hop-by-hop comparison of a traced path with ibtracert's: out and in ports, LIDs, names,
// and the GUIDs of switches (ibtracert prints port GUIDs; a CA's differs from its node's).
void check_same_as_tracert(const Fabric& fab, const PathResult& path, const Tracert& t) {
  REQUIRE(path.ok());
  REQUIRE(path.hops.size() == t.hops.size() + 1);
  CHECK(fab.node(path.hops.front().node).guid == t.from_guid);
  CHECK(fab.node(path.hops.back().node).guid == t.to_guid);
  for (size_t k = 0; k < t.hops.size(); ++k) {
    const Hop& here = path.hops[k];
    const Hop& next = path.hops[k + 1];
    const Node& n = fab.node(next.node);
    INFO("hop " << k << " to " << t.hops[k].desc);
    CHECK(here.out_port == t.hops[k].out_port);
    CHECK(next.in_port == t.hops[k].in_port);
    CHECK(n.description == t.hops[k].desc);
    CHECK(n.ports[n.type == NodeType::sw ? 0 : next.in_port].lid == t.hops[k].lid);
    if (n.type == NodeType::sw) CHECK(n.guid == t.hops[k].guid);
  }
}

// Small fabrics built in code.
using Net = ibw::test_net::LftNet;

// leaf1 (hosts a1, a2 on ports 1, 2) and leaf2 (host b1 on port 1) joined through spine
// (leafN port 8 -> spine port N), with shortest-path LFTs.
struct SmallTree : Net {
  uint32_t leaf1 = sw("leaf1"), leaf2 = sw("leaf2"), spine = sw("spine");
  uint32_t a1 = ca("a1 mlx5_0"), a2 = ca("a2 mlx5_0"), b1 = ca("b1 mlx5_0");
  SmallTree() {
    link(leaf1, 1, a1, 1);
    link(leaf1, 2, a2, 1);
    link(leaf2, 1, b1, 1);
    link(leaf1, 8, spine, 1);
    link(leaf2, 8, spine, 2);
    for (uint16_t d : {lid(a1), lid(a2), lid(leaf1)}) {
      route(leaf2, d, 8);
      route(spine, d, 1);
    }
    for (uint16_t d : {lid(b1), lid(leaf2)}) {
      route(leaf1, d, 8);
      route(spine, d, 2);
    }
    route(leaf1, lid(a1), 1);
    route(leaf1, lid(a2), 2);
    route(leaf2, lid(b1), 1);
    route(leaf1, lid(spine), 8);
    route(leaf2, lid(spine), 8);
    for (uint32_t s : {leaf1, leaf2, spine}) route(s, lid(s), 0);
    done();
  }
};

std::vector<std::pair<uint16_t, uint16_t>> brute_force_pairs(const Net& net, const LidIndex& lids,
                                                             uint32_t node, int port,
                                                             bool include_switches) {
  const Port* p = net.fab.node(node).port(port);
  std::vector<std::pair<uint16_t, uint16_t>> out;
  std::vector<uint16_t> ends;
  for (uint16_t l : lids.lids())
    if (include_switches || net.fab.node(lids.find(l)->first).type != NodeType::sw)
      ends.push_back(l);
  for (uint16_t s : ends)
    for (uint16_t d : ends) {
      if (s == d) continue;
      for (const Hop& h : trace_path(net.fab, net.tables, lids, s, d).hops)
        if ((h.node == node && h.out_port == port) ||
            (p->has_peer() && h.node == p->peer_node && h.out_port == p->peer_port)) {
          out.emplace_back(s, d);
          break;
        }
    }
  return out;
}

// pairs_crossing must equal brute_force_pairs on every port of the fabric.
void check_pairs_on_every_port(const Net& net) {
  LidIndex lids(net.fab);
  for (uint32_t n = 0; n < net.fab.size(); ++n)
    for (int port = 1; port <= net.fab.node(n).num_ports; ++port)
      for (bool switches : {false, true}) {
        INFO(net.fab.port_label(n, port) << (switches ? " with switch LIDs" : ""));
        CHECK(pairs_crossing(net.fab, net.tables, lids, n, port, switches) ==
              brute_force_pairs(net, lids, n, port, switches));
      }
}

}  // namespace routing_test

using namespace routing_test;

TEST_CASE("routing: opensm-lfts.dump gives exact entries per switch GUID", "[routing]") {
  RoutingTables t = load_lft_dump(kData + "opensm-lfts.dump");
  REQUIRE(t.by_switch.size() == 6);
  const Lft* leaf = t.find(kLeaf001);
  REQUIRE(leaf);
  CHECK(leaf->switch_guid == kLeaf001);
  CHECK(leaf->switch_lid == 2);
  REQUIRE(leaf->out_port.size() == 23);  // [0-22]
  CHECK(leaf->out_port[0] == kNoLftEntry);
  for (size_t lid = 1; lid <= 22; ++lid) {
    INFO("LID " << lid);
    CHECK(leaf->out_port[lid] == kLeaf001Ports[lid - 1]);
  }
  const Lft* spine = t.find(kSpine002);
  REQUIRE(spine);
  CHECK(spine->switch_lid == 8);
  CHECK(spine->out_port[7] == kNoLftEntry);  // spine002 has no route to spine001
  CHECK(spine->out_port[8] == 0);
  CHECK(spine->out_port[20] == 4);
  CHECK(spine->port_for(23) == kNoLftEntry);
}

TEST_CASE("routing: dump_fts and ibroute output match the OpenSM dump of the same run",
          "[routing]") {
  RoutingTables osm = load_lft_dump(kData + "opensm-lfts.dump");
  RoutingTables fts = load_lft_dump(kData + "dump_fts.txt");
  REQUIRE(fts.by_switch.size() == osm.by_switch.size());
  for (const auto& [guid, lft] : osm.by_switch) {
    const Lft* other = fts.find(guid);
    REQUIRE(other);
    INFO(format_guid(guid));
    CHECK(other->out_port == lft.out_port);
    CHECK(other->switch_lid == lft.switch_lid);  // inferred from the port-0 row (DR header)
  }
  CHECK(fts.find(kLeaf004)->switch_lid == 5);

  RoutingTables by_lid = load_lft_dump(kData + "ibroute-lid.txt");  // ibroute 2
  REQUIRE(by_lid.by_switch.size() == 1);
  CHECK(by_lid.find(kLeaf001)->out_port == osm.find(kLeaf001)->out_port);

  for (const char* f : {"ibroute-a.txt", "ibroute-n.txt"}) {  // ibroute -a 8, ibroute -n 8
    INFO(f);
    RoutingTables t = load_lft_dump(kData + f);
    REQUIRE(t.find(kSpine002));
    CHECK(t.find(kSpine002)->out_port == osm.find(kSpine002)->out_port);
    CHECK(t.find(kSpine002)->switch_lid == 8);
  }

  RoutingTables range = load_lft_dump(kData + "ibroute-range.txt");  // ibroute -a 8 1 12
  const Lft* part = range.find(kSpine002);
  REQUIRE(part);
  REQUIRE(part->out_port.size() == 13);
  CHECK(part->out_port[0] == kNoLftEntry);
  for (uint16_t lid = 1; lid <= 12; ++lid)
    CHECK(part->out_port[lid] == osm.find(kSpine002)->out_port[lid]);
  CHECK(!same_routes(*part, *osm.find(kSpine002)));
}

TEST_CASE("routing: LMC 1 dump_fts rows (path #2 out of 2) are entries too", "[routing]") {
  RoutingTables t = load_lft_dump(kData + "dump_fts-lmc1.txt");
  const Lft* leaf = t.find(kLeaf004);
  REQUIRE(leaf);
  CHECK(leaf->out_port.size() == 0x28);
  CHECK(leaf->out_port[2] == 5);
  CHECK(leaf->out_port[3] == 6);
  CHECK(leaf->switch_lid == 7);
}

TEST_CASE("routing: hand-written dump with comments - CRLF - tabs and unknown destinations",
          "[routing]") {
  std::string text =
      "# written by hand\r\n"
      "\r\n"
      "Unicast lids [0x0-0x5] of switch Lid 3 guid 0x00000000000000AB (odd [name] - guid 0x1):\r\n"
      "0x0001\t017 # unknown node and type\r\n"
      "0x0003 000 # Switch portguid 0x00000000000000ab: 'odd'\r\n"
      "0x0005 2\r\n"
      "5 lids dumped\r\n";
  RoutingTables t = parse_lft_dump(text, "hand.dump");
  const Lft* sw = t.find(0xab);
  REQUIRE(sw);
  CHECK(sw->switch_lid == 3);
  CHECK(sw->out_port == std::vector<uint8_t>{kNoLftEntry, 17, kNoLftEntry, 0, kNoLftEntry, 2});
}

TEST_CASE("routing: same_routes pads the shorter table with no entry", "[routing]") {
  Lft a{1, 1, {kNoLftEntry, 0, 3}};
  Lft b{1, 1, {kNoLftEntry, 0, 3, kNoLftEntry, kNoLftEntry}};
  CHECK(same_routes(a, b));
  b.out_port[4] = 2;
  CHECK(!same_routes(a, b));
}

TEST_CASE("routing: malformed dumps report every line as file:line", "[routing]") {
  std::string text = ibw::test::join_lines({
      "0x0001 001",                                                                // 1 no header
      "Unicast lids [0-4] of switch Lid 2 guid 0x0000000000000001 ('s1'):",        // 2
      "0x0001 001 # Channel Adapter portguid 0x0000000000000011: 'h1'",            // 3
      "0xzz 001",                                                                  // 4 lid
      "0x0002 256",                                                                // 5 port
      "0x0002 x",                                                                  // 6 port
      "0x0003 002 junk",                                                           // 7 line
      "0x0005 001",                                                                // 8 range
      "0x0001 002",                                                                // 9 twice
      "4 lids dumped",                                                             // 10
      "0x0002 001",                                                                // 11 after
      "Unicast lids [0-4] of switch Lid 3 guid 0x0000000000000001 ('s1'):",        // 12 twice
      "Unicast lids [4-0] of switch Lid 3 guid 0x0000000000000002 ('s2'):",        // 13 range
      "Unicast lids [0-4] of switch Lid 3 ('s3'):",                                // 14 guid
      "Unicast lids [0-4] of switch Lid x guid 0x0000000000000003 ('s3'):",        // 15 lid
      "Multicast mlids [0xc000-0xc001] of switch Lid 3 guid 0x0000000000000004:",  // 16
      "0xc000 0001",                                                               // 17 skipped
      "hello",                                                                     // 18
  });
  auto diags = ibw::test::errors_of(parse_lft_dump, text, "lfts.dump");
  CHECK(ibw::test::keys(diags) == std::vector<std::string>{"11:lid", "12:guid", "13:header",
                                                           "14:guid", "15:header", "16:header",
                                                           "18:line", "1:lid", "4:lid", "5:port",
                                                           "6:port", "7:line", "8:lid", "9:lid"});
  const Diagnostic* twice = ibw::test::find_diag(diags, 9, "lid");
  REQUIRE(twice);
  CHECK(twice->message == "0x0001 is already listed at line 3");
  CHECK(format_diagnostic(*twice) == "lfts.dump:9: lid: 0x0001 is already listed at line 3");
  CHECK(ibw::test::find_diag(diags, 12, "guid")->message ==
        "switch 0x0000000000000001 is already listed at line 2");
  CHECK_THROWS_AS(load_lft_dump(kData + "no-such-file"), InputError);
  CHECK(parse_lft_dump("", "empty").by_switch.empty());
}

TEST_CASE("routing: LidIndex maps switch LIDs to port 0 and CA LIDs to their port", "[routing]") {
  SmallTree t;
  Node extra;
  extra.type = NodeType::ca;
  extra.num_ports = 2;
  uint32_t dual = t.fab.add_node(extra);
  t.fab.node(dual).ports[1].lid = 40;
  t.fab.node(dual).ports[2].lid = t.lid(t.a1);  // a duplicate: a1 keeps it
  LidIndex lids(t.fab);
  CHECK(lids.find(t.lid(t.spine)) == std::make_pair(t.spine, 0));
  CHECK(lids.find(t.lid(t.b1)) == std::make_pair(t.b1, 1));
  CHECK(lids.find(t.lid(t.a1)) == std::make_pair(t.a1, 1));
  CHECK(lids.find(40) == std::make_pair(dual, 1));
  CHECK(!lids.find(0));
  CHECK(!lids.find(39));
  CHECK(!lids.find(60000));
  CHECK(lids.lids() == std::vector<uint16_t>{1, 2, 3, 4, 5, 6, 40});
}

TEST_CASE("routing: trace on the recorded fabric matches recorded ibtracert hop by hop",
          "[routing]") {
  Fabric fab = load_ibnetdiscover_file(kData + "ibnetdiscover.txt");
  apply_node_names(fab, nullptr);
  RoutingTables tables = load_lft_dump(kData + "opensm-lfts.dump");
  LidIndex lids(fab);
  CHECK(lids.lids().size() == 22);
  for (auto [src, dst, file] :
       {std::tuple{1, 20, "ibtracert-1-20.txt"}, std::tuple{20, 1, "ibtracert-20-1.txt"}}) {
    INFO(file);
    PathResult p = trace_path(fab, tables, lids, uint16_t(src), uint16_t(dst));
    check_same_as_tracert(fab, p, parse_tracert(ibw::fabric::read_file(kData + file)));
  }
  CHECK(format_path(fab, trace_path(fab, tables, lids, 1, 20)) ==
        "node0001 mlx5_0/1 -> leaf001/1 leaf001/6 -> spine002/1 spine002/4 -> leaf004/6 "
        "leaf004/2 -> node0014 mlx5_0/1");
}

TEST_CASE("routing: trace_path on a small tree - to CAs and switches", "[routing]") {
  SmallTree t;
  LidIndex lids(t.fab);
  PathResult p = trace_path(t.fab, t.tables, lids, t.lid(t.a1), t.lid(t.b1));
  REQUIRE(p.ok());
  CHECK(p.hops ==
        std::vector<Hop>{
            {t.a1, 0, 1}, {t.leaf1, 1, 8}, {t.spine, 1, 2}, {t.leaf2, 8, 1}, {t.b1, 1, 0}});
  CHECK(format_path(t.fab, p) ==
        "a1 mlx5_0/1 -> leaf1/1 leaf1/8 -> spine/1 spine/2 -> leaf2/8 leaf2/1 -> b1 mlx5_0/1");

  p = trace_path(t.fab, t.tables, lids, t.lid(t.a1), t.lid(t.a2));  // same leaf
  CHECK(p.hops == std::vector<Hop>{{t.a1, 0, 1}, {t.leaf1, 1, 2}, {t.a2, 1, 0}});
  p = trace_path(t.fab, t.tables, lids, t.lid(t.b1), t.lid(t.spine));  // to a switch LID
  CHECK(p.hops == std::vector<Hop>{{t.b1, 0, 1}, {t.leaf2, 1, 8}, {t.spine, 2, 0}});
  p = trace_path(t.fab, t.tables, lids, t.lid(t.leaf2), t.lid(t.a2));  // from a switch
  CHECK(p.hops ==
        std::vector<Hop>{{t.leaf2, 0, 8}, {t.spine, 2, 1}, {t.leaf1, 8, 2}, {t.a2, 1, 0}});
  p = trace_path(t.fab, t.tables, lids, t.lid(t.a1), t.lid(t.a1));
  CHECK(p.ok());
  CHECK(p.hops == std::vector<Hop>{{t.a1, 0, 0}});
  CHECK(format_path(t.fab, p) == "a1 mlx5_0");
}

TEST_CASE("routing: trace_path errors keep the hops up to the failure", "[routing]") {
  SmallTree t;
  uint16_t a1 = t.lid(t.a1), b1 = t.lid(t.b1);
  auto trace = [&](uint16_t s, uint16_t d) {
    return trace_path(t.fab, t.tables, LidIndex(t.fab), s, d);
  };
  SECTION("unknown LIDs") {
    CHECK(trace(99, b1).error == "source LID 99 is not assigned in the fabric");
    CHECK(trace(a1, 99).error == "destination LID 99 is not assigned in the fabric");
  }
  SECTION("no table") {
    t.tables.by_switch.erase(t.fab.node(t.spine).guid);
    PathResult p = trace(a1, b1);
    CHECK(p.error ==
          "no forwarding table for switch spine (" + format_guid(t.fab.node(t.spine).guid) + ")");
    CHECK(p.hops.size() == 3);
    CHECK(p.hops.back().out_port == 0);
  }
  SECTION("no entry") {
    t.route(t.spine, b1, kNoLftEntry);
    CHECK(trace(a1, b1).error == "spine has no forwarding entry for LID 6");
    t.lft(t.spine).out_port.resize(3);  // b1's LID beyond the table's top
    CHECK(trace(a1, b1).error == "spine has no forwarding entry for LID 6");
  }
  SECTION("port 0 at a switch that does not own the LID") {
    t.route(t.spine, b1, 0);
    CHECK(trace(a1, b1).error == "spine forwards LID 6 to its port 0 but does not own that LID");
  }
  SECTION("entry above the switch's ports") {
    t.route(t.spine, b1, 9);
    PathResult p = trace(a1, b1);
    CHECK(p.error == "bad forwarding table entry at spine: LID 6 -> port 9 of 8");
    CHECK(p.hops.back().out_port == 9);
  }
  SECTION("out port without a link") {
    t.route(t.spine, b1, 5);
    PathResult p = trace(a1, b1);
    CHECK(p.error == "spine/5 (out port for LID 6) has no link");
    CHECK(p.hops.back() == Hop{t.spine, 1, 5});
  }
  SECTION("link not Active") {
    t.fab.node(t.leaf2).port(8)->state = 2;  // Init
    CHECK(trace(a1, b1).error == "the link at spine/2 (out port for LID 6) is not Active");
    t.fab.node(t.leaf2).port(8)->state = 4;
    CHECK(trace(a1, b1).ok());
  }
  SECTION("a path reaching another CA") {
    t.route(t.leaf2, b1, 8);
    t.route(t.spine, b1, 1);
    t.route(t.leaf1, b1, 2);
    PathResult p = trace(a1, b1);
    CHECK(p.error == "the path reaches a2 mlx5_0, which does not own LID 6");
    CHECK(p.hops.back() == Hop{t.a2, 1, 0});
  }
  SECTION("a routing loop") {
    t.route(t.leaf2, b1, 8);  // spine -> leaf2 -> spine -> ...
    PathResult p = trace(a1, b1);
    CHECK(p.error == "no route from LID 4 to LID 6 within 64 hops (routing loop)");
    CHECK(p.hops.size() == size_t{kMaxPathHops});
    CHECK(p.hops[3] == Hop{t.leaf2, 8, 8});
  }
}

TEST_CASE("routing: pairs_crossing on the small tree", "[routing]") {
  SmallTree t;
  LidIndex lids(t.fab);
  uint16_t a1 = t.lid(t.a1), a2 = t.lid(t.a2), b1 = t.lid(t.b1);
  using Pairs = std::vector<std::pair<uint16_t, uint16_t>>;
  CHECK(pairs_crossing(t.fab, t.tables, lids, t.leaf1, 8) ==
        Pairs{{a1, b1}, {a2, b1}, {b1, a1}, {b1, a2}});
  CHECK(pairs_crossing(t.fab, t.tables, lids, t.spine, 1) ==
        pairs_crossing(t.fab, t.tables, lids, t.leaf1, 8));  // the same link, other end
  CHECK(pairs_crossing(t.fab, t.tables, lids, t.a2, 1) ==
        Pairs{{a1, a2}, {a2, a1}, {a2, b1}, {b1, a2}});
  CHECK(pairs_crossing(t.fab, t.tables, lids, t.leaf1, 5).empty());   // no link
  CHECK(pairs_crossing(t.fab, t.tables, lids, t.leaf1, 0).empty());   // not a link port
  CHECK(pairs_crossing(t.fab, t.tables, lids, t.leaf1, 99).empty());  // no such port
  check_pairs_on_every_port(t);
}

TEST_CASE("routing: pairs_crossing equals tracing every pair on random tables", "[routing]") {
  // Random LFTs make dead ends, loops, bad ports and paths into the wrong CA; a down link
  // and a CA without a link add the rest. Whatever the trace reports, the pairs must agree.
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    Net net;
    std::vector<uint32_t> sws, cas;
    for (int i = 0; i < 5; ++i) sws.push_back(net.sw("s" + std::to_string(i), 6));
    for (int i = 0; i < 6; ++i) cas.push_back(net.ca("h" + std::to_string(i)));
    uint32_t lonely = net.ca("lonely");
    (void)lonely;
    for (int i = 0; i < 6; ++i) net.link(sws[i % 3], 1 + i / 3, cas[i], 1);
    for (int leaf = 0; leaf < 3; ++leaf)
      for (int spine = 3; spine < 5; ++spine) net.link(sws[leaf], spine + 1, sws[spine], leaf + 1);
    net.link(sws[3], 6, sws[4], 6);
    net.fab.node(sws[1]).port(5)->state = 1;        // Down
    std::uniform_int_distribution<int> port(0, 8);  // 0, 1-6, 7 (bad), 8 -> no entry
    for (uint32_t s : sws)
      for (uint16_t d = 0; d < net.next_lid; ++d) {
        int p = port(rng);
        net.route(s, d, p == 8 ? kNoLftEntry : p);
      }
    net.done();
    INFO("round " << round);
    check_pairs_on_every_port(net);
  }
}

TEST_CASE("routing: pairs_crossing honours the 64-hop limit on a long chain", "[routing]") {
  // 70 switches in a line (port 1 left, 2 right, 3 a host): host-to-host paths longer than
  // 64 hops fail, and the pairs they would have crossed a link with late are not counted.
  Net net;
  std::vector<uint32_t> sws, hosts;
  for (int i = 0; i < 70; ++i) sws.push_back(net.sw("c" + std::to_string(i), 3));
  for (int i = 0; i < 70; ++i) hosts.push_back(net.ca("h" + std::to_string(i)));
  for (int i = 0; i < 70; ++i) {
    net.link(sws[i], 3, hosts[i], 1);
    if (i > 0) net.link(sws[i - 1], 2, sws[i], 1);
  }
  for (int i = 0; i < 70; ++i)
    for (int j = 0; j < 70; ++j) {
      net.route(sws[i], net.lid(hosts[j]), i == j ? 3 : (j < i ? 1 : 2));
      net.route(sws[i], net.lid(sws[j]), i == j ? 0 : (j < i ? 1 : 2));
    }
  net.done();
  LidIndex lids(net.fab);
  PathResult far = trace_path(net.fab, net.tables, lids, net.lid(hosts[0]), net.lid(hosts[69]));
  CHECK(far.error == "no route from LID 71 to LID 140 within 64 hops (routing loop)");
  for (int at : {1, 40, 62, 63, 64, 68})
    for (bool switches : {false, true}) {
      INFO("link c" << at - 1 << "/2 - c" << at << "/1");
      auto fast = pairs_crossing(net.fab, net.tables, lids, sws[at], 1, switches);
      CHECK(fast == brute_force_pairs(net, lids, sws[at], 1, switches));
      CHECK(!fast.empty());
    }
}
