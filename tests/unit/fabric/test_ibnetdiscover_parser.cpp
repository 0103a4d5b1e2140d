// ibnetdiscover text parser: recorded ibsim output, a hand-written HDR/NDR fabric in the
// grammar real hardware prints, and malformed input reported line by line.
#include <catch2/catch.hpp>

#include "tests/unit/test_helpers.h"

#include <algorithm>
#include <string>
#include <vector>

#include "fabric/diagnostics.h"
#include "fabric/ibnetdiscover_parser.h"
#include "fabric/model.h"
#include "fabric/node_name_map.h"
#include "tests/test_paths.h"

using namespace ibw::fabric;

namespace ibnd_parse_test {

std::string data_path(const std::string& name) {
  return std::string(IBW_TEST_DATA) + "/unit/" + name;
}

using ibw::test::check_only_diag;
using ibw::test::join_lines;
using ibw::test::keys;

std::vector<Diagnostic> parse_errors(const std::string& text) {
  return ibw::test::errors_of(parse_ibnetdiscover, text, "topo.txt");
}

uint32_t by_guid(const Fabric& f, uint64_t guid) {
  uint32_t i = f.find_guid(guid);
  REQUIRE(i != kNoNode);
  return i;
}

TEST_CASE("ibnetdiscover: recorded ibsim output gives nodes - ports and links", "[fabric][ibnd]") {
  Fabric f = load_ibnetdiscover_file(data_path("ibnetdiscover-small.txt"));
  REQUIRE(f.size() == 6);
  CHECK(f.link_count() == 6);

  const Node& sw2 = f.node(by_guid(f, 0x200001));
  CHECK(sw2.type == NodeType::sw);
  CHECK(sw2.id == "S-0000000000200001");
  CHECK(sw2.description == "Switch2");
  CHECK(sw2.num_ports == 8);
  CHECK(sw2.ports.size() == 9);
  CHECK(sw2.ports[0].lid == 3);
  CHECK(sw2.ports[0].present);

  const Node& sw1 = f.node(by_guid(f, 0x200000));
  CHECK(sw1.description == "Switch1");
  CHECK(sw1.ports[0].lid == 2);

  const uint32_t hca2 = by_guid(f, 0x100003);
  const Node& h2 = f.node(hca2);
  CHECK(h2.type == NodeType::ca);
  CHECK(h2.id == "H-0000000000100003");
  CHECK(h2.description == "Hca2");
  CHECK(h2.num_ports == 2);

  // Switch2 port 1 -> Hca2 port 1, and back; switch ports carry the switch LID.
  const Port& p = sw2.ports[1];
  CHECK(p.present);
  CHECK(p.lid == 3);
  CHECK(p.width_active == 4);
  CHECK(p.speed_active == Speed::sdr);
  CHECK(p.peer_node == hca2);
  CHECK(p.peer_port == 1);
  const Port& hp = h2.ports[1];
  CHECK(hp.lid == 4);
  CHECK(hp.width_active == 4);
  CHECK(hp.speed_active == Speed::sdr);
  CHECK(hp.peer_node == by_guid(f, 0x200001));
  CHECK(hp.peer_port == 1);
  CHECK_FALSE(h2.ports[2].present);
  CHECK_FALSE(h2.ports[2].has_peer());

  // Both inter-switch links, seen from Switch1.
  const uint32_t sw2_idx = by_guid(f, 0x200001);
  CHECK(sw1.ports[3].peer_node == sw2_idx);
  CHECK(sw1.ports[3].peer_port == 3);
  CHECK(sw1.ports[5].peer_node == sw2_idx);
  CHECK(sw1.ports[5].peer_port == 5);
  CHECK_FALSE(sw1.ports[4].has_peer());

  CHECK(f.node(by_guid(f, 0x100009)).ports[1].lid == 6);
  CHECK(f.node(by_guid(f, 0x100000)).ports[1].lid == 1);
  CHECK(f.node(by_guid(f, 0x100006)).ports[1].peer_port == 2);
}

TEST_CASE("ibnetdiscover: ibsim names resolve after apply_node_names", "[fabric][ibnd]") {
  Fabric f = load_ibnetdiscover_file(data_path("ibnetdiscover-small.txt"));
  apply_node_names(f, nullptr);
  uint32_t hca4 = f.resolve("Hca4");
  REQUIRE(hca4 != kNoNode);
  CHECK(f.node(hca4).guid == 0x100009);
  CHECK(f.resolve("S-0000000000200000") == f.find_guid(0x200000));
  CHECK(f.port_label(f.find_guid(0x200001), 2) == "Switch2/2");
}

TEST_CASE("ibnetdiscover: HDR/NDR fabric with split ports and real descriptions",
          "[fabric][ibnd]") {
  Fabric f = load_ibnetdiscover_file(data_path("ibnetdiscover-ndr.txt"));
  REQUIRE(f.size() == 5);
  CHECK(f.link_count() == 5);

  const uint32_t leaf = by_guid(f, 0xb83fd2030080e4a0ULL);
  const uint32_t spine = by_guid(f, 0xb83fd2030080d000ULL);
  const uint32_t n42 = by_guid(f, 0xb83fd2030080f110ULL);
  const uint32_t n43 = by_guid(f, 0xb83fd2030080f220ULL);
  const uint32_t n44 = by_guid(f, 0x1070fd0300c1a2b4ULL);

  const Node& l = f.node(leaf);
  CHECK(l.type == NodeType::sw);
  CHECK(l.num_ports == 64);
  CHECK(l.description == "MF0;leaf01:MQM9700/U1");
  CHECK(l.ports[0].lid == 12);
  CHECK(f.node(spine).description == "MF0;spine01:MQM9700/U1");
  CHECK(f.node(spine).ports[0].lid == 1);

  const Node& h42 = f.node(n42);
  CHECK(h42.type == NodeType::ca);
  CHECK(h42.num_ports == 1);
  CHECK(h42.description == "node0042 mlx5_0");
  CHECK(h42.ports[1].lid == 5);
  CHECK(h42.ports[1].width_active == 4);
  CHECK(h42.ports[1].speed_active == Speed::ndr);
  CHECK(l.ports[1].peer_node == n42);
  CHECK(l.ports[1].lid == 12);
  CHECK(l.ports[1].speed_active == Speed::ndr);

  // [17][ext 9]: split port at 2x, on both ends.
  const Port& p17 = l.ports[17];
  CHECK(p17.present);
  CHECK(p17.lid == 12);
  CHECK(p17.width_active == 2);
  CHECK(p17.speed_active == Speed::ndr);
  CHECK(p17.peer_node == n43);
  CHECK(p17.peer_port == 1);
  const Port& h43 = f.node(n43).ports[1];
  CHECK(h43.lid == 7);
  CHECK(h43.width_active == 2);
  CHECK(h43.speed_active == Speed::ndr);
  CHECK(h43.peer_node == leaf);
  CHECK(h43.peer_port == 17);

  // Dual-port HDR HCA with one port cabled.
  const Node& h44 = f.node(n44);
  CHECK(h44.num_ports == 2);
  CHECK(h44.ports[1].lid == 9);
  CHECK(h44.ports[1].speed_active == Speed::hdr);
  CHECK(h44.ports[1].peer_node == leaf);
  CHECK(h44.ports[1].peer_port == 2);
  CHECK_FALSE(h44.ports[2].has_peer());

  // Spine links at different rates.
  CHECK(l.ports[33].peer_node == spine);
  CHECK(l.ports[33].peer_port == 1);
  CHECK(l.ports[34].speed_active == Speed::hdr);
  CHECK(f.node(spine).ports[2].peer_node == leaf);
  CHECK(f.node(spine).ports[2].peer_port == 34);
  CHECK(f.node(spine).ports[2].speed_active == Speed::hdr);
  CHECK(f.node(spine).ports[2].lid == 1);

  apply_node_names(f, nullptr);
  CHECK(f.resolve("node0043 mlx5_0") == n43);
  CHECK(f.port_label(leaf, 17) == "MF0;leaf01:MQM9700/U1/17");
}

TEST_CASE("ibnetdiscover: -g output with chassis lines and Non-Chassis Nodes", "[fabric][ibnd]") {
  // `ibnetdiscover -g` prints a bare "Non-Chassis Nodes" line before the switches that are
  // not part of a chassis, and a chassis comment after the switchguid.
  std::string text = join_lines({
      "#",
      "# Topology file: generated on Mon Mar  3 10:15:02 2025",
      "#",
      "# Initiated from node b83fd2030080f110 port b83fd2030080f110",
      "",
      "Non-Chassis Nodes",
      "",
      "vendid=0x2c9",
      "devid=0xd2f2",
      "sysimgguid=0xb83fd2030080e4a0",
      "switchguid=0xb83fd2030080e4a0(b83fd2030080e4a0)\t# ",
      "Switch\t64 \"S-b83fd2030080e4a0\"\t\t# \"leaf01\" enhanced port 0 lid 12 lmc 0",
      "[1]\t\"H-b83fd2030080f110\"[1](b83fd2030080f110) \t\t# \"node0042 mlx5_0\" lid 5 4xNDR",
      "",
      "vendid=0x2c9",
      "devid=0x1021",
      "sysimgguid=0xb83fd2030080f110",
      "caguid=0xb83fd2030080f110",
      "Ca\t1 \"H-b83fd2030080f110\"\t\t# \"node0042 mlx5_0\"",
      "[1](b83fd2030080f110) \t\"S-b83fd2030080e4a0\"[1]\t\t# lid 5 lmc 0 \"leaf01\" lid 12 4xNDR",
  });
  Fabric f = parse_ibnetdiscover(text, "grouped.txt");
  CHECK(f.size() == 2);
  CHECK(f.link_count() == 1);
}

TEST_CASE("ibnetdiscover: ibsim net file without GUIDs or comments", "[fabric][ibnd]") {
  std::string text = join_lines({
      "Switch\t8 \"leaf1\"",
      "[1]\t\"hostA\"[1]",
      "[2]\t\"hostB\"[1]",
      "",
      "Hca\t1 \"hostA\"",
      "[1]\t\"leaf1\"[1]",
  });
  Fabric f = parse_ibnetdiscover(text, "net");
  REQUIRE(f.size() == 3);
  CHECK(f.link_count() == 2);
  apply_node_names(f, nullptr);
  uint32_t b = f.resolve("hostB");
  REQUIRE(b != kNoNode);
  CHECK(f.node(b).type == NodeType::ca);
  CHECK(f.node(b).guid == 0);
  CHECK(f.node(b).ports[1].peer_node == f.resolve("leaf1"));
  CHECK(f.node(f.resolve("hostA")).ports[1].peer_port == 1);
}

TEST_CASE("ibnetdiscover: garbage line is reported with its line number",
          "[fabric][ibnd][errors]") {
  auto d = parse_errors(join_lines({
      "Switch\t8 \"S-0000000000200001\"\t\t# \"sw\" base port 0 lid 3 lmc 0",
      "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"h\" lid 4 4xSDR",
      "this is not ibnetdiscover output",
  }));
  check_only_diag(d, 3, "", "unrecognised line");
  CHECK(d[0].file == "topo.txt");
}

TEST_CASE("ibnetdiscover: port line before any node", "[fabric][ibnd][errors]") {
  auto d = parse_errors(join_lines({
      "# header",
      "",
      "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"h\" lid 4 4xSDR",
  }));
  check_only_diag(d, 3, "port", "outside a node");
}

TEST_CASE("ibnetdiscover: port above the node's port count", "[fabric][ibnd][errors]") {
  auto d = parse_errors(join_lines({
      "Switch\t8 \"S-0000000000200001\"\t\t# \"sw\" base port 0 lid 3 lmc 0",
      "[9]\t\"H-0000000000100003\"[1](100004) \t\t# \"h\" lid 4 4xSDR",
  }));
  check_only_diag(d, 2, "port", "port 9 is above the node's 8 ports");
}

TEST_CASE("ibnetdiscover: a port listed twice with different peers", "[fabric][ibnd][errors]") {
  auto d = parse_errors(join_lines({
      "Switch\t8 \"S-0000000000200001\"\t\t# \"sw\" base port 0 lid 3 lmc 0",
      "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"a\" lid 4 4xSDR",
      "[1]\t\"H-0000000000100009\"[1](10000a) \t\t# \"b\" lid 6 4xSDR",
  }));
  check_only_diag(d, 3, "peer", "port 1");
}

TEST_CASE("ibnetdiscover: every error in a file is reported at once", "[fabric][ibnd][errors]") {
  auto d = parse_errors(join_lines({
      "[2]\t\"H-0000000000100009\"[1](10000a) \t\t# \"x\" lid 6 4xSDR",  // 1: before node
      "Switch\t8 \"S-0000000000200001\"\t\t# \"sw\" base port 0 lid 3 lmc 0",
      "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"a\" lid 4 4xSDR",
      "[12]\t\"H-0000000000100006\"[1](100007) \t\t# \"c\" lid 5 4xSDR",  // 4: above 8
      "bogus",                                                            // 5: garbage
      "[1]\t\"H-0000000000100009\"[1](10000a) \t\t# \"b\" lid 6 4xSDR",   // 6: twice
      "[3]\tno-quotes[1]",                                                // 7: bad peer
      "Switch\tmany \"S-0000000000200002\"",                              // 8: bad count
  }));
  CHECK(keys(d) ==
        std::vector<std::string>{"1:port", "4:port", "5:", "6:peer", "7:peer", "8:ports"});
}

}  // namespace ibnd_parse_test
