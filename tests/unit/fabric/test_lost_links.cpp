// keep_lost_links (fabric/lost_links.h): a link a discovery lost while both ports still report
// it up comes back from the last discovery; a link whose port went down, or whose far port is
// now cabled elsewhere, does not.
#include <catch2/catch.hpp>

#include "fabric/lost_links.h"
#include "tests/unit/fabric/test_net.h"
#include "tests/unit/test_fabrics.h"

using namespace ibw::fabric;
namespace tf = ibw::test_fabric;

namespace lost_links_test {

// Forgets the link at (name, port) on both ends, as a discovery that lost its SMP does.
void lose(Fabric& f, const char* name, int port, uint8_t state = 4) {
  ibw::test_net::lose_link(f, name, port).state = state;
}

TEST_CASE("lost links: an Active port's lost link comes back from the last discovery",
          "[lost_links]") {
  const Fabric before = tf::two_tier(2, 2, 2);
  Fabric now = tf::two_tier(2, 2, 2);
  size_t links = now.link_count();
  lose(now, "leaf001", 4);  // leaf001 -> spine001
  REQUIRE(now.link_count() == links - 1);
  auto kept = keep_lost_links(now, before);
  REQUIRE(kept.size() == 1);
  CHECK(kept[0] == "leaf001/4 - spine001/2");
  CHECK(now.link_count() == links);
  const Port* p = now.node(now.resolve("leaf001")).port(4);
  CHECK(now.node(p->peer_node).name == "spine001");
  CHECK(keep_lost_links(now, before).empty());  // nothing left to restore
}

TEST_CASE("lost links: a port that went down or a far port cabled elsewhere stays as found",
          "[lost_links]") {
  const Fabric before = tf::two_tier(2, 2, 2);
  Fabric now = tf::two_tier(2, 2, 2);
  lose(now, "leaf001", 4, /*state=*/1);  // Down: the cable was pulled
  CHECK(keep_lost_links(now, before).empty());

  Fabric moved = tf::two_tier(2, 2, 2);
  lose(moved, "leaf001", 4);
  lose(moved, "leaf000", 3);  // leaf000 -> spine000; spine000/1 now goes to leaf001/4
  moved.connect(moved.resolve("leaf001"), 4, moved.resolve("spine000"), 1);
  auto kept = keep_lost_links(moved, before);
  // leaf001/4 has a new peer; leaf000/3's old far port (spine000/1) is taken: none restored.
  CHECK(kept.empty());
}

}  // namespace lost_links_test
