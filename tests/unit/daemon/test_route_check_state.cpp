// RouteCheckBoard: the daemon's route check events. A loop, the fallback and a rise in
// unreachable pairs are reported once; the same result again reports nothing; a new loop or a
// changed fallback is reported; the JSON and the summary follow the last check.
#include <catch2/catch.hpp>

#include "daemon/route_check_state.h"
#include "tests/unit/fabric/test_net.h"

using namespace ibw;
using fabric::CreditLoop;
using fabric::DirectedLink;
using fabric::RouteCheck;
using fabric::RoutingEngineInfo;

namespace route_state_test {

struct Triangle : test_net::NetBase {
  uint32_t a, b, c;
  Triangle() {
    a = add_node(fabric::NodeType::sw, "a", 3);
    b = add_node(fabric::NodeType::sw, "b", 3);
    c = add_node(fabric::NodeType::sw, "c", 3);
    for (uint32_t n : {a, b, c}) fab.node(n).name = fab.node(n).description;
    link(a, 1, b, 2);
    link(b, 1, c, 2);
    link(c, 1, a, 2);
  }
  CreditLoop loop(bool forward) const {
    CreditLoop l;
    if (forward)
      l.links = {DirectedLink{a, 1, b, 2}, DirectedLink{b, 1, c, 2}, DirectedLink{c, 1, a, 2}};
    else
      l.links = {DirectedLink{a, 2, c, 1}, DirectedLink{c, 2, b, 1}, DirectedLink{b, 2, a, 1}};
    l.channels = 3;
    return l;
  }
};

// The kinds of `events`, in order.
std::vector<std::string> kinds(const std::vector<ingest::Event>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.kind);
  return out;
}

}  // namespace route_state_test

using namespace route_state_test;

TEST_CASE("route check state: findings are reported once until they change", "[route_check]") {
  Triangle t;
  daemon::RouteCheckBoard board;
  REQUIRE(board.to_json()["checked"] == false);
  REQUIRE(!board.summary().checked);

  RouteCheck check;
  check.credit_loops = {t.loop(true)};
  check.unreachable_pairs = 2;
  check.unreachable = {{1, 2, "a has no forwarding entry for LID 2"}};
  RoutingEngineInfo engine{"minhop", {"updn"}, "no root nodes were found"};
  auto first = board.update(t.fab, check, engine, 1'000'000, 0.01);
  REQUIRE(kinds(first) ==
          std::vector<std::string>{"credit_loop", "routing_fallback", "unreachable"});
  REQUIRE(first.front().message.find("a/1 -> b/2, b/1 -> c/2, c/1 -> a/2") != std::string::npos);
  REQUIRE(first.front().node == "a");
  REQUIRE(first.front().port == 1);

  // The same dump again: nothing new.
  REQUIRE(board.update(t.fab, check, engine, 2'000'000, 0.01).empty());
  REQUIRE(board.summary().checks_total == 2);

  // A second loop appears; the first stays: one event, for the new loop only.
  check.credit_loops.push_back(t.loop(false));
  auto more = board.update(t.fab, check, engine, 3'000'000, 0.01);
  REQUIRE(more.size() == 1);
  REQUIRE(more.front().kind == ingest::kind::credit_loop);
  REQUIRE(more.front().message.find("a/2 -> c/1") != std::string::npos);

  // Clean: no event; then the fallback comes back: reported again.
  RouteCheck clean;
  REQUIRE(board.update(t.fab, clean, {"updn", {}, ""}, 4'000'000, 0.01).empty());
  auto summary = board.summary();
  REQUIRE(summary.credit_loops == 0);
  REQUIRE(!summary.fallback);
  REQUIRE(board.to_json()["engine"] == "updn");
  REQUIRE(board.to_json()["checks_total"] == 4);
  auto back = board.update(t.fab, clean, engine, 5'000'000, 0.01);
  REQUIRE(back.size() == 1);
  REQUIRE(back.front().kind == ingest::kind::routing_fallback);
  REQUIRE(back.front().severity == ingest::Severity::error);
  REQUIRE(back.front().dedup_key != first[1].dedup_key);
}
