// parse_routing_engine on OpenSM log lines recorded on ibsim (a 4-switch ring, `-R updn`
// without a root file; `-R ftree,updn,minhop` on a fat tree).
#include <catch2/catch.hpp>

#include <string>

#include "ingest/opensm_routing.h"

using ibw::ingest::parse_routing_engine;

namespace opensm_routing_test {

const std::string kFallback =
    "Nov 27 20:32:35 729310 [7523A6C0] 0x02 -> SUBNET UP\n"
    "Nov 27 20:32:35 729328 [7523A6C0] 0x02 -> updn_lid_matrices: disabling UPDN algorithm, "
    "no root nodes were found\n"
    "Nov 27 20:32:35 729330 [7523A6C0] 0x01 -> ucast_mgr_route: updn: cannot build lid "
    "matrices\n"
    "Nov 27 20:32:35 729342 [7523A6C0] 0x02 -> osm_ucast_mgr_process: minhop tables "
    "configured on all switches\n";

}  // namespace opensm_routing_test

TEST_CASE("opensm routing: updn without roots falls back to minhop", "[opensm_routing]") {
  auto e = parse_routing_engine(opensm_routing_test::kFallback);
  REQUIRE(e.in_use == "minhop");
  REQUIRE(e.fallback());
  REQUIRE(e.configured() == "updn");
  REQUIRE(e.reason == "updn_lid_matrices: disabling UPDN algorithm, no root nodes were found");
}

TEST_CASE("opensm routing: the last pass counts", "[opensm_routing]") {
  std::string log = opensm_routing_test::kFallback +
                    "Nov 27 20:40:01 000001 [7523A6C0] 0x02 -> osm_ucast_mgr_process: updn "
                    "tables configured on all switches\n";
  auto e = parse_routing_engine(log);
  REQUIRE(e.in_use == "updn");
  REQUIRE(!e.fallback());
  REQUIRE(e.configured() == "updn");
  REQUIRE(e.reason.empty());
  // A pass still running (failures, no tables yet) does not change the answer.
  auto mid = parse_routing_engine(log +
                                  "x 0x01 -> ucast_mgr_route: ftree: cannot build fwd "
                                  "tables\n");
  REQUIRE(mid.in_use == "updn");
  REQUIRE(!mid.fallback());
  REQUIRE(parse_routing_engine("no routing here\n").in_use.empty());
}
