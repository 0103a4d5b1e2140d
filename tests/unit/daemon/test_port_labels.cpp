// daemon::name_port_labels (daemon/source.h): the port labels the rules write into a verdict's
// explanation ("confirmed on peer 0x...0b/1") are given the topology's node names, so a decision
// reason names the peer as an operator knows it; unknown GUIDs, look-alikes and text without a
// topology are left as they are.
#include <catch2/catch.hpp>

#include <string>

#include "daemon/source.h"
#include "daemon/topology.h"
#include "rules/eval_text.h"
#include "tests/unit/daemon/two_switches.h"

using namespace ibw;

namespace {

std::shared_ptr<const daemon::Topology> two_switches() {
  return daemon::make_topology(test::two_switches(true), nullptr, 100);
}

std::string label(uint64_t guid, int port) {
  std::string s;
  rules::eval_detail::append_port_label(&s, guid, port);
  return s;
}

}  // namespace

TEST_CASE("port labels: a rule's peer label is named from the topology", "[daemon]") {
  auto topo = two_switches();
  std::string text = "link_flap: 5 link down/up cycles in 1m (limit 5); confirmed on peer " +
                     label(0xb, 1) + "; and " + label(0xa, 12) + ".";
  daemon::name_port_labels(topo.get(), text);
  CHECK(text ==
        "link_flap: 5 link down/up cycles in 1m (limit 5); confirmed on peer spineB/1; and "
        "leafA/12.");
}

TEST_CASE("port labels: unknown nodes look-alikes and no topology are left alone", "[daemon]") {
  auto topo = two_switches();
  const std::string unknown = "not confirmed: peer " + label(0xc, 1) + " is clean";
  const std::string look_alikes =
      "guid 0x000000000000000b alone, 0x00b/3, a0x000000000000000b/3, " +
      std::string("0x000000000000000b/x");
  for (const std::string& original : {unknown, look_alikes, std::string("no label at all")}) {
    std::string text = original;
    daemon::name_port_labels(topo.get(), text);
    CHECK(text == original);
  }
  std::string text = "peer " + label(0xb, 1);
  daemon::name_port_labels(nullptr, text);
  CHECK(text == "peer " + label(0xb, 1));
  // A label at the very end, and one with the port's digits running to the end.
  text = label(0xa, 7);
  daemon::name_port_labels(topo.get(), text);
  CHECK(text == "leafA/7");
}
