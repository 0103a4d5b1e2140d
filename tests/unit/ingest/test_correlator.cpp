// Correlator (ingest/correlator.h): events named from the fabric (a LID resolved to its node),
// the peer and the cabling plan's cable filled in where the source left them empty, and what
// a source already named kept as it is.
#include <catch2/catch.hpp>

#include "fabric/plan.h"
#include "ingest/correlator.h"
#include "tests/unit/test_fabrics.h"

namespace correlator_test {

using namespace ibw;
using namespace ibw::test_fabric;

// two_tier(2, 2, 2): host000-003, leaf000-001, spine000-001. host000/1 - leaf000/1,
// leaf000/3 - spine000/1, leaf000/4 - spine001/1; host000/2 is not connected.
fabric::Plan test_plan() {
  return fabric::parse_plan_csv(
      "cable_id,a_node,a_port,b_node,b_port\n"
      "C-H0,host000,1,leaf000,1\n"
      "C-L0S1,leaf000,4,spine001,1\n"
      "C-H0B,host000,2,leaf001,9\n",  // planned, not cabled yet
      "plan.csv");
}

uint16_t ca_lid(int host, int port) {  // as test_fabrics.h numbers CA ports
  return static_cast<uint16_t>(0x1000 + (host_guid(host) & 0xfff) * 4 + port);
}

// An event about guid/port (or only a LID), as enrich() leaves it.
ingest::Event enriched(const ingest::Correlator& corr, uint64_t guid, int port, uint16_t lid = 0) {
  ingest::Event e;
  e.node_guid = guid, e.port = port, e.lid = lid;
  corr.enrich(e);
  return e;
}
// "node/port -> peer/port [cable]" of an event, to compare in one line.
std::string summary(const ingest::Event& e) {
  return e.node + "/" + std::to_string(e.port) + " -> " + e.peer_node + "/" +
         std::to_string(e.peer_port) + " [" + e.cable_id + "]";
}

TEST_CASE("correlator: an event known by its LID gets node - peer and planned cable",
          "[correlator]") {
  fabric::Fabric fab = two_tier(2, 2, 2);
  fabric::Plan plan = test_plan();
  ingest::Correlator corr(fab, &plan);
  ingest::Event e = enriched(corr, 0, 1, ca_lid(0, 1));
  CHECK(e.node_guid == host_guid(0));
  CHECK(e.peer_guid == leaf_guid(0));
  CHECK(summary(e) == "host000/1 -> leaf000/1 [C-H0]");
  // The switch end of a planned leaf-spine cable, by GUID.
  CHECK(summary(enriched(corr, leaf_guid(0), 4)) == "leaf000/4 -> spine001/1 [C-L0S1]");
  // The other uplink is cabled but not in the plan: a peer, no cable.
  CHECK(summary(enriched(corr, leaf_guid(0), 3)) == "leaf000/3 -> spine000/1 []");
}

TEST_CASE("correlator: what the source already named is kept", "[correlator]") {
  fabric::Fabric fab = two_tier(2, 2, 2);
  fabric::Plan plan = test_plan();
  ingest::Correlator corr(fab, &plan);
  ingest::Event e;
  e.node_guid = host_guid(0), e.port = 1;
  e.node = "node from UFM", e.peer_node = "peer from UFM", e.peer_port = 7;
  e.cable_id = "UFM-CABLE";
  corr.enrich(e);
  CHECK(summary(e) == "node from UFM/1 -> peer from UFM/7 [UFM-CABLE]");
  CHECK(e.peer_guid == 0);  // not mixed with the fabric's peer
}

TEST_CASE("correlator: a port without a link gets its planned cable - a node event no peer",
          "[correlator]") {
  fabric::Fabric fab = two_tier(2, 2, 2);
  fabric::Plan plan = test_plan();
  ingest::Correlator corr(fab, &plan);
  CHECK_FALSE(corr.has_port(host_guid(0), 2));  // not connected: not a present port
  CHECK_FALSE(corr.port(host_guid(0), 2));
  CHECK(corr.cable_at(host_guid(0), 2) == "C-H0B");
  ingest::Event e = enriched(corr, host_guid(0), 2);
  CHECK(summary(e) == "host000/2 -> /0 [C-H0B]");
  CHECK(e.peer_guid == 0);
  // Port 0: the whole node, named but without peer or cable.
  CHECK(summary(enriched(corr, leaf_guid(1), 0)) == "leaf001/0 -> /0 []");
  // Neither the GUID nor the LID is in the fabric: nothing to add.
  ingest::Event unknown = enriched(corr, 0, 1, 0x7777);
  CHECK(unknown.node_guid == 0);
  CHECK(summary(unknown) == "/1 -> /0 []");
}

TEST_CASE("correlator: port contexts and lookups - without a plan no cables", "[correlator]") {
  fabric::Fabric fab = two_tier(2, 2, 2);
  ingest::Correlator corr(fab, nullptr);
  auto ctx = corr.port(leaf_guid(1), 4);  // leaf001/4 - spine001/2
  REQUIRE(ctx);
  CHECK(ctx->node == "leaf001");
  CHECK(ctx->peer_guid == spine_guid(1));
  CHECK(ctx->peer_node == "spine001");
  CHECK(ctx->peer_port == 2);
  CHECK(ctx->cable_id.empty());
  CHECK(corr.has_port(spine_guid(1), 2));
  CHECK(corr.guid_of_lid(ca_lid(3, 1)) == host_guid(3));
  CHECK(corr.guid_of_lid(0x7777) == 0);
  CHECK(corr.node_name(spine_guid(0)) == "spine000");
  CHECK(corr.node_name(0xdead).empty());
  CHECK(summary(enriched(corr, host_guid(0), 1)) == "host000/1 -> leaf000/1 []");
}

}  // namespace correlator_test
