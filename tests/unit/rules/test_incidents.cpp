// rules::IncidentTracker on a small fat tree (2 spines x 4 leaves, 2 hosts per leaf): a switch
// that loses most of its links at once is one switch_reboot incident however often it cycles,
// a cable fault elsewhere at the same time is not part of it, the rule runner holds the
// incident's verdicts but not the cable's, and the other kinds (switch_down, host_down,
// sm_resweep, hosts_unreachable) open only on their own signatures.
#include <catch2/catch.hpp>

#include <string>

#include "rules/incidents.h"
#include "rules/runner.h"

namespace incidents_test {

using namespace ibw;
using rules::IncidentTracker;

constexpr int64_t kS = 1'000'000;
constexpr int64_t kT0 = 1'800'000'000 * kS;

// Spines 0x10, 0x11; leaves 0x20..0x23 (ports 1-2 hosts, 3-4 spines); hosts 0x30.. (port 1).
uint64_t spine(int i) {
  return 0x10 + static_cast<uint64_t>(i);
}
uint64_t leaf(int i) {
  return 0x20 + static_cast<uint64_t>(i);
}
uint64_t host(int l, int h) {
  return 0x30 + static_cast<uint64_t>(l * 2 + h);
}

std::vector<rules::LinkInfo> fat_tree() {
  std::vector<rules::LinkInfo> links;
  auto add = [&](uint64_t a, int pa, bool sa, uint64_t b, int pb, bool sb) {
    rules::LinkInfo l;
    l.node_guid = a, l.port = pa, l.peer_guid = b, l.peer_port = pb;
    l.switch_node = sa, l.peer_switch = sb;
    links.push_back(l);
    std::swap(l.node_guid, l.peer_guid), std::swap(l.port, l.peer_port);
    std::swap(l.switch_node, l.peer_switch);
    links.push_back(l);
  };
  for (int l = 0; l < 4; ++l) {
    for (int h = 0; h < 2; ++h) add(leaf(l), 1 + h, true, host(l, h), 1, false);
    for (int s = 0; s < 2; ++s) add(leaf(l), 3 + s, true, spine(s), 1 + l, true);
  }
  return links;
}

ingest::Event link_event(bool down, uint64_t node, int port, uint64_t peer, int peer_port,
                         int64_t t) {
  ingest::Event e;
  e.time_us = t;
  e.kind = std::string(down ? ingest::kind::link_down : ingest::kind::link_up);
  e.node_guid = node, e.port = port, e.peer_guid = peer, e.peer_port = peer_port;
  return e;
}

// Every link of spine s down (as the leaves report them, 100 ms apart) at t, up at t + 3 s.
std::vector<ingest::Event> spine_cycle(int s, int64_t t) {
  std::vector<ingest::Event> out;
  for (int l = 0; l < 4; ++l)
    out.push_back(link_event(true, leaf(l), 3 + s, spine(s), 1 + l, t + l * 100'000));
  for (int l = 0; l < 4; ++l)
    out.push_back(link_event(false, leaf(l), 3 + s, spine(s), 1 + l, t + 3 * kS + l * 100'000));
  return out;
}

// One link_flap rule (disable, 5 cycles) over `window`.
rules::RuleSet flap_rule(const std::string& window) {
  return rules::parse_rules(
      "rules:\n  - name: link_flap\n    type: link_flap\n    action: disable\n"
      "    severity: critical\n    cycles: 5\n    window: " +
          window + "\n",
      "flap.yaml");
}

TEST_CASE("incidents: a spine rebooting five times is one switch_reboot", "[incidents]") {
  IncidentTracker tracker;
  tracker.learn(fat_tree());
  std::vector<ingest::Event> feed;
  for (int i = 0; i < 5; ++i) {
    auto cycle = spine_cycle(0, kT0 + i * 12 * kS);
    // leaf001/4 - spine 0x11 flaps at the same time: a cable, not the reboot.
    cycle.push_back(link_event(true, leaf(1), 4, spine(1), 2, kT0 + i * 12 * kS + 50'000));
    cycle.push_back(
        link_event(false, leaf(1), 4, spine(1), 2, kT0 + i * 12 * kS + 3 * kS + 50'000));
    std::stable_sort(cycle.begin(), cycle.end(),
                     [](const auto& a, const auto& b) { return a.time_us < b.time_us; });
    auto opened = tracker.add(cycle);
    feed.insert(feed.end(), opened.begin(), opened.end());
  }
  int64_t now = kT0 + 60 * kS;
  auto list = tracker.list(0, now);
  REQUIRE(list.size() == 1);
  const auto& inc = list[0];
  CHECK(inc.kind == "switch_reboot");
  CHECK(inc.node_guid == spine(0));
  CHECK(inc.cycles == 5);
  CHECK(inc.state == "active");
  CHECK(inc.links.size() == 4);
  CHECK(inc.ports.size() == 8);  // both ends of its four links
  CHECK(feed.size() == 5);       // opened, then one event per further reboot
  for (int l = 0; l < 4; ++l) {
    CHECK(tracker.covers(leaf(l), 3, kT0));
    CHECK(tracker.covers(spine(0), 1 + l, kT0));
  }
  CHECK_FALSE(tracker.covers(leaf(1), 4, kT0));  // the flapping cable stays its own
  CHECK_FALSE(tracker.covers(spine(1), 2, kT0));
  auto orders = tracker.orders(now);
  REQUIRE(orders.size() == 1);
  CHECK(orders[0].node_guid == spine(0));
  CHECK(orders[0].port == 0);
  CHECK(orders[0].rule == "incident_switch_reboot");
  CHECK(orders[0].action == rules::Action::work_order);
  CHECK(tracker.opened().at("switch_reboot") == 1);
  CHECK(tracker.active(now).at("switch_reboot") == 1);
  // Quiet for two minutes with every link up: resolved, no order any more.
  CHECK(tracker.list(0, now + 200 * kS)[0].state == "resolved");
  CHECK(tracker.orders(now + 200 * kS).empty());
}

TEST_CASE("incidents: the runner holds the reboot's flaps but not the cable's", "[incidents]") {
  rules::RuleSet set = flap_rule("1m");
  for (bool with_incidents : {false, true}) {
    rules::RuleRunner runner(set);
    IncidentTracker tracker;
    auto links = fat_tree();
    tracker.learn(links);
    if (with_incidents) runner.set_incidents(&tracker);
    std::vector<rules::Verdict> verdicts;
    for (int i = 0; i < 5; ++i) {
      auto cycle = spine_cycle(0, kT0 + i * 10 * kS);
      cycle.push_back(link_event(true, leaf(1), 4, spine(1), 2, kT0 + i * 10 * kS));
      cycle.push_back(link_event(false, leaf(1), 4, spine(1), 2, kT0 + i * 10 * kS + 3 * kS));
      std::stable_sort(cycle.begin(), cycle.end(),
                       [](const auto& a, const auto& b) { return a.time_us < b.time_us; });
      for (const auto& e : cycle) {
        tracker.add({e});
        runner.add_events({e});
      }
      verdicts = runner.evaluate(links, kT0 + i * 10 * kS + 4 * kS);
    }
    int spine_links = 0, cable = 0, orders = 0;
    for (const auto& v : verdicts) {
      if (v.port == 0)
        ++orders;
      else if ((v.node_guid == leaf(1) && v.port == 4) || (v.node_guid == spine(1) && v.port == 2))
        ++cable;
      else
        ++spine_links;
    }
    INFO("with incidents: " << with_incidents);
    CHECK(cable >= 1);  // the flapping cable, with or without incidents
    CHECK((spine_links > 0) == !with_incidents);
    CHECK(orders == (with_incidents ? 1 : 0));
  }
}

TEST_CASE("incidents: a cable that keeps flapping after its switch rebooted is its own fault",
          "[incidents]") {
  rules::RuleSet set = flap_rule("5m");
  rules::RuleRunner runner(set);
  IncidentTracker tracker;
  auto links = fat_tree();
  tracker.learn(links);
  runner.set_incidents(&tracker);
  auto feed = [&](const std::vector<ingest::Event>& events) {
    for (const auto& e : events) {
      tracker.add({e});
      runner.add_events({e});
    }
  };
  feed(spine_cycle(0, kT0));  // spine 0 reboots once
  // Then its link to leaf 2 goes down and up alone, every 20 s, six times; each from both ends.
  int64_t t = kT0;
  for (int i = 1; i <= 6; ++i) {
    t = kT0 + i * 20 * kS;
    feed({link_event(true, leaf(2), 3, spine(0), 3, t),
          link_event(true, spine(0), 3, leaf(2), 3, t),
          link_event(false, leaf(2), 3, spine(0), 3, t + kS),
          link_event(false, spine(0), 3, leaf(2), 3, t + kS)});
  }
  auto list = tracker.list(0, t + 2 * kS);
  REQUIRE(list.size() == 1);
  CHECK(list[0].kind == "switch_reboot");
  CHECK(list[0].cycles == 1);  // a lone cable's downs are no reboots of the switch
  CHECK(list[0].links.size() == 3);
  CHECK(tracker.orders(t + 2 * kS).empty());
  CHECK_FALSE(tracker.covers(leaf(2), 3, kT0));  // the cable left the incident
  CHECK_FALSE(tracker.covers(spine(0), 3, kT0));
  CHECK(tracker.covers(leaf(0), 3, kT0));  // the rest of the reboot stays held
  bool flap = false, others = false;
  for (const auto& v : runner.evaluate(links, t + 2 * kS)) {
    if ((v.node_guid == leaf(2) && v.port == 3) || (v.node_guid == spine(0) && v.port == 3))
      flap |= v.rule == "link_flap";
    else if (v.port != 0)
      others = true;
  }
  CHECK(flap);          // the flap rule judges the cable
  CHECK_FALSE(others);  // the reboot's own link downs are still held
  // The switch rebooting again later is a reboot again, with every link of it.
  feed(spine_cycle(0, t + 30 * kS));
  auto again = tracker.list(0, t + 40 * kS);
  REQUIRE(!again.empty());
  CHECK(again.back().kind == "switch_reboot");
  CHECK(again.back().state == "active");
  CHECK(again.back().links.size() == 4);
}

TEST_CASE("incidents: one or two cable faults on a switch are no incident", "[incidents]") {
  IncidentTracker tracker;
  tracker.learn(fat_tree());
  // Two of leaf 0's four links down at once: not most of them.
  CHECK(tracker
            .add({link_event(true, leaf(0), 3, spine(0), 1, kT0),
                  link_event(true, leaf(0), 4, spine(1), 1, kT0 + 1000)})
            .empty());
  CHECK(tracker.list(0, kT0 + kS).empty());
}

TEST_CASE("incidents: a spine that stays down becomes switch_down with an order", "[incidents]") {
  IncidentTracker tracker;
  tracker.learn(fat_tree());
  for (int l = 0; l < 4; ++l) tracker.add({link_event(true, leaf(l), 4, spine(1), 1 + l, kT0 + l)});
  CHECK(tracker.list(0, kT0 + kS)[0].kind == "switch_reboot");
  CHECK(tracker.orders(kT0 + kS).empty());  // one reboot is no order yet
  auto later = tracker.list(0, kT0 + 200 * kS);
  REQUIRE(later.size() == 1);
  CHECK(later[0].kind == "switch_down");
  CHECK(later[0].state == "active");
  auto orders = tracker.orders(kT0 + 200 * kS);
  REQUIRE(orders.size() == 1);
  CHECK(orders[0].rule == "incident_switch_down");
}

TEST_CASE("incidents: a host whose only link went down is host_down", "[incidents]") {
  IncidentTracker tracker;
  tracker.learn(fat_tree());
  auto feed = tracker.add({link_event(true, leaf(2), 2, host(2, 1), 1, kT0)});
  REQUIRE(feed.size() == 1);
  CHECK(feed[0].kind == "incident");
  auto list = tracker.list(0, kT0 + kS);
  REQUIRE(list.size() == 1);
  CHECK(list[0].kind == "host_down");
  CHECK(list[0].node_guid == host(2, 1));
  CHECK(tracker.orders(kT0 + 500 * kS).empty());  // hosts get no switch order
}

TEST_CASE("incidents: a host link that keeps flapping is left to the flap rule", "[incidents]") {
  IncidentTracker tracker;
  tracker.learn(fat_tree());
  // One reboot-like cycle: the host incident holds the link's verdicts.
  tracker.add({link_event(true, leaf(1), 2, host(1, 1), 1, kT0),
               link_event(false, leaf(1), 2, host(1, 1), 1, kT0 + 2 * kS)});
  CHECK(tracker.covers(leaf(1), 2, kT0));
  // Down and up again and again within seconds: a flapping link, no longer held.
  for (int i = 1; i <= 4; ++i) {
    tracker.add({link_event(true, leaf(1), 2, host(1, 1), 1, kT0 + (2 + 4 * i) * kS),
                 link_event(false, leaf(1), 2, host(1, 1), 1, kT0 + (4 + 4 * i) * kS)});
    CHECK(tracker.covers(leaf(1), 2, kT0) == (i + 1 < rules::IncidentOptions{}.order_cycles));
  }
  auto list = tracker.list(0, kT0 + 30 * kS);
  REQUIRE(list.size() == 1);
  CHECK(list[0].kind == "host_down");
  CHECK(list[0].cycles == 5);
}

TEST_CASE("incidents: a leaf reboot folds its hosts' host_down into one incident", "[incidents]") {
  IncidentTracker tracker;
  tracker.learn(fat_tree());
  // Hosts first, as a leaf's ports may be reported in any order.
  tracker.add({link_event(true, leaf(3), 1, host(3, 0), 1, kT0),
               link_event(true, leaf(3), 2, host(3, 1), 1, kT0 + 10'000),
               link_event(true, leaf(3), 3, spine(0), 4, kT0 + 20'000),
               link_event(true, leaf(3), 4, spine(1), 4, kT0 + 30'000)});
  auto list = tracker.list(0, kT0 + kS);
  REQUIRE(list.size() == 1);
  CHECK(list[0].kind == "switch_reboot");
  CHECK(list[0].node_guid == leaf(3));
  CHECK(list[0].links.size() == 4);
}

// OpenSM's SUBNET UP at t.
ingest::Event subnet_up(int64_t t) {
  ingest::Event e;
  e.time_us = t, e.kind = std::string(ingest::kind::subnet_up);
  return e;
}

// A SUBNET UP at t, then spine 0's four links reported up (never seen down) a second later.
std::vector<ingest::Event> resweep_ups(int64_t t) {
  std::vector<ingest::Event> events = {subnet_up(t)};
  for (int l = 0; l < 4; ++l)
    events.push_back(link_event(false, leaf(l), 3, spine(0), 1 + l, t + kS));
  return events;
}

TEST_CASE("incidents: links coming up after an SM sweep are sm_resweep", "[incidents]") {
  IncidentTracker tracker;
  tracker.learn(fat_tree());
  std::vector<ingest::Event> events = resweep_ups(kT0);
  tracker.add(events);
  auto list = tracker.list(0, kT0 + 2 * kS);
  REQUIRE(list.size() == 1);
  CHECK(list[0].kind == "sm_resweep");
  CHECK(list[0].node == "subnet manager");
  // Three ups long after a sweep are not.
  IncidentTracker later;
  later.learn(fat_tree());
  events[0].time_us = kT0 - 60 * kS;
  events.pop_back();
  later.add(events);
  CHECK(later.list(0, kT0 + 2 * kS).empty());
}

TEST_CASE("incidents: flapping links reported by both ends are not an sm_resweep", "[incidents]") {
  // OpenSM logs each link change from both ends, and sweeps after every change: the second
  // end's copy of an up is not a link "never seen down". Four links flapping one after the
  // other (as the flap bench does) once opened an sm_resweep that held the flaps' verdicts.
  IncidentTracker tracker;
  tracker.learn(fat_tree());
  std::vector<ingest::Event> events = {subnet_up(kT0)};
  int64_t t = kT0;
  for (int l = 0; l < 4; ++l)
    for (bool down : {true, false}) {
      t += kS / 10;
      events.push_back(link_event(down, leaf(l), 4, spine(1), 1 + l, t));
      events.push_back(link_event(down, spine(1), 1 + l, leaf(l), 4, t));
    }
  tracker.add(events);
  CHECK(tracker.list(0, t + kS).empty());
}

TEST_CASE("incidents: a link of an sm_resweep that then flaps is judged by the flap rule",
          "[incidents]") {
  IncidentTracker tracker;
  tracker.learn(fat_tree());
  std::vector<ingest::Event> events = resweep_ups(kT0);
  tracker.add(events);
  REQUIRE(tracker.list(0, kT0 + 2 * kS).size() == 1);
  CHECK(tracker.covers(leaf(2), 3, kT0));
  // Then leaf 2's link goes down and up, again and again: no longer the SM's doing.
  for (int i = 1; i <= 5; ++i)
    tracker.add({link_event(true, leaf(2), 3, spine(0), 3, kT0 + (10 * i) * kS),
                 link_event(false, leaf(2), 3, spine(0), 3, kT0 + (10 * i + 1) * kS)});
  CHECK_FALSE(tracker.covers(leaf(2), 3, kT0));
  CHECK_FALSE(tracker.covers(spine(0), 3, kT0));
  CHECK(tracker.covers(leaf(1), 3, kT0));  // the others' ups stay explained
  auto list = tracker.list(0, kT0 + 60 * kS);
  REQUIRE(list.size() == 1);
  CHECK(list[0].links.size() == 3);
}

TEST_CASE("incidents: hosts behind one leaf whose counters fail are one incident", "[incidents]") {
  IncidentTracker tracker;
  tracker.learn(fat_tree());
  auto unresponsive = [](uint64_t guid, int64_t t) {
    ingest::Event e;
    e.time_us = t, e.kind = std::string(ingest::kind::port_unresponsive);
    e.node_guid = guid, e.port = 1;
    return e;
  };
  CHECK(tracker.add({unresponsive(host(1, 0), kT0)}).empty());
  CHECK(tracker.add({unresponsive(host(1, 1), kT0 + kS)}).size() == 1);
  auto list = tracker.list(0, kT0 + 2 * kS);
  REQUIRE(list.size() == 1);
  CHECK(list[0].kind == "hosts_unreachable");
  CHECK(list[0].node_guid == leaf(1));
  CHECK(tracker.covers(host(1, 0), 1, kT0));
  // A host on another leaf, alone, opens nothing.
  CHECK(tracker.add({unresponsive(host(2, 0), kT0 + 2 * kS)}).empty());
  // Then leaf 1 turns out to be rebooting: its incident takes the hosts' in.
  tracker.add({link_event(true, leaf(1), 1, host(1, 0), 1, kT0 + 3 * kS),
               link_event(true, leaf(1), 2, host(1, 1), 1, kT0 + 3 * kS + 10'000),
               link_event(true, leaf(1), 3, spine(0), 2, kT0 + 3 * kS + 20'000),
               link_event(true, leaf(1), 4, spine(1), 2, kT0 + 3 * kS + 30'000)});
  list = tracker.list(0, kT0 + 4 * kS);
  REQUIRE(list.size() == 1);
  CHECK(list[0].kind == "switch_reboot");
  CHECK(list[0].node_guid == leaf(1));
  CHECK(list[0].events >= 4 + 2);  // its link events and the hosts' failed queries
}

// Every link of leaf l down at t, as a switch reboot shows them (the uplinks first, the hosts
// 300 ms later, each link from both ends), up 1.5 s later.
std::vector<ingest::Event> leaf_cycle(int l, int64_t t) {
  std::vector<ingest::Event> out;
  for (bool down : {true, false}) {
    int64_t at = down ? t : t + 1'500'000;
    for (int s = 0; s < 2; ++s) {
      out.push_back(link_event(down, spine(s), 1 + l, leaf(l), 3 + s, at));
      out.push_back(link_event(down, leaf(l), 3 + s, spine(s), 1 + l, at));
    }
    for (int h = 0; h < 2; ++h) {
      out.push_back(link_event(down, host(l, h), 1, leaf(l), 1 + h, at + 300'000));
      out.push_back(link_event(down, leaf(l), 1 + h, host(l, h), 1, at + 300'000));
    }
  }
  return out;
}

TEST_CASE("incidents: a leaf rebooting again after its spine did keeps its links held",
          "[incidents]") {
  // Leaf 1 reboots five times, then spine 0 five times, then leaf 1 again: the link between
  // them was in both switches' incidents. Every down of it is a reboot's, none a flap.
  rules::RuleRunner runner(flap_rule("1m"));
  IncidentTracker tracker;
  auto links = fat_tree();
  tracker.learn(links);
  runner.set_incidents(&tracker);
  std::vector<rules::Verdict> flaps;
  int64_t t = kT0;
  auto feed = [&](const std::vector<ingest::Event>& events) {
    for (const auto& e : events) {
      tracker.add({e});
      runner.add_events({e});
    }
    t = events.back().time_us + 2'500'000;
    for (auto& v : runner.evaluate(links, t))
      if (v.port != 0) flaps.push_back(v);
  };
  for (int i = 0; i < 5; ++i) feed(leaf_cycle(1, t));
  t += 5 * kS;
  for (int i = 0; i < 5; ++i) feed(spine_cycle(0, t));
  t += 5 * kS;
  for (int i = 0; i < 5; ++i) feed(leaf_cycle(1, t));
  std::string said;
  for (const auto& v : flaps)
    said += std::to_string(v.node_guid) + "/" + std::to_string(v.port) + " " + v.explanation + "\n";
  INFO(said);
  CHECK(flaps.empty());
  int leaf_cycles = 0;
  for (const auto& inc : tracker.list(0, t))
    if (inc.node_guid == leaf(1)) leaf_cycles += inc.cycles;
  CHECK(leaf_cycles == 10);
  CHECK(tracker.covers(leaf(1), 3, t - 10 * kS));
}

}  // namespace incidents_test
