// OpenSM's subnet list as a second witness (fabric/opensm_subnet.h): the recorded list parses
// to every link end, and a discovery that lost links gets back exactly those OpenSM saw Active
// on ports that are still free - never a link onto a port cabled elsewhere or down.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "fabric/opensm_subnet.h"
#include "fabric/topology.h"
#include "tests/test_paths.h"
#include "tests/unit/fabric/test_net.h"

using namespace ibw::fabric;

namespace opensm_subnet_test {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kDir = std::string(IBW_TEST_DATA) + "/opensm/";

using ibw::test_net::lose_link;

Fabric recorded() {
  Fabric f = load_topology_file(kDir + "opensm-subnet.ibnetdiscover");
  f.reindex();
  for (uint32_t i = 0; i < f.size(); ++i)
    for (auto& p : f.node(i).ports)
      if (p.has_peer()) p.present = true, p.state = 4;  // live discoveries carry the state
  return f;
}

TEST_CASE("opensm subnet list: the recorded list gives every link end", "[opensm_subnet]") {
  size_t skipped = 9;
  auto links = parse_opensm_subnet(slurp(kDir + "opensm-subnet.lst"), &skipped);
  CHECK(skipped == 0);
  REQUIRE(links.size() == 12);  // 6 links, each from both sides
  CHECK(links[0].a_guid == 0x100000);
  CHECK(links[0].a_port == 1);
  CHECK(links[0].b_guid == 0x200000);
  CHECK(links[0].b_port == 1);
  CHECK(links[0].active);
  size_t between_switches = 0;
  for (const auto& l : links) between_switches += l.a_guid == 0x200000 && l.b_guid == 0x200001;
  CHECK(between_switches == 2);  // the two parallel links, ports 3 and 5
}

TEST_CASE("opensm subnet list: lines it cannot read are counted and not guessed",
          "[opensm_subnet]") {
  size_t skipped = 0;
  auto links = parse_opensm_subnet(
      "{ SW Ports:08 NodeGUID:00000000002 {x} LID:0001 PN:03 } PHY=4x LOG=ACT\n"
      "garbage\n\n"
      "{ CA NodeGUID:10 {a} LID:0002 PN:01 } { SW NodeGUID:20 {desc with } braces} LID:0001 "
      "PN:1F } PHY=4x LOG=DWN SPD=2.5\n",
      &skipped);
  CHECK(skipped == 2);
  REQUIRE(links.size() == 1);
  CHECK(links[0].b_guid == 0x20);
  CHECK(links[0].b_port == 0x1f);
  CHECK_FALSE(links[0].active);
}

TEST_CASE("opensm subnet list: lost links come back while taken or down ports stay as they are",
          "[opensm_subnet]") {
  auto links = parse_opensm_subnet(slurp(kDir + "opensm-subnet.lst"));
  Fabric f = recorded();
  const size_t all = f.link_count();
  REQUIRE(all == 6);
  lose_link(f, "Switch1", 3);  // a parallel switch link
  lose_link(f, "Switch2", 1);  // a host link
  lose_link(f, "Switch1", 5);  // the other parallel link, whose port is then found down
  f.node(f.resolve("Switch1")).port(5)->state = 1;
  REQUIRE(f.link_count() == all - 3);
  auto added = connect_subnet_links(f, links);
  CHECK(added.size() == 2);  // each once, though listed from both sides
  CHECK(f.link_count() == all - 1);
  const Port* p3 = f.node(f.resolve("Switch1")).port(3);
  REQUIRE(p3->has_peer());
  CHECK(f.node(p3->peer_node).description == "Switch2");
  CHECK(p3->peer_port == 3);
  CHECK_FALSE(f.node(f.resolve("Switch1")).port(5)->has_peer());
  // Nothing more to add, and a second pass adds nothing twice.
  CHECK(connect_subnet_links(f, links).empty());
}

}  // namespace opensm_subnet_test
