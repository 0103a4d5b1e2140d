// Integration: SMP port control (actions/port_control.h) on a generated fat tree running on
// real ibsim + OpenSM. The controller needs umad2sim, so it runs as ibw-bench-port_control
// under SimLab::run. A leaf port toward a host (not the SM host) is disabled, checked through
// the readback, `ibportstate query` and `iblinkinfo`, then enabled and seen back up.
// Simulator-specific (ibsim, see ib-sim-lab.md "Known simulator quirks"): after a disable,
// ibsim reports PhysState Disabled but may keep LinkState Active on the disabled side, so the
// test asserts on PhysState only there and on the peer/iblinkinfo for the link being down.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "fabric/ibnetdiscover_parser.h"
#include "fabric/model.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using namespace ibw::lab;
using nlohmann::json;

namespace port_control_lab {

// <build>/cli/ibwarden -> <build>/bench/ibw-bench-port_control
std::string control_binary() {
  return (std::filesystem::path(IBW_BINARY).parent_path().parent_path() / "bench" /
          "ibw-bench-port_control")
      .string();
}

json control(const SimLab& sim, uint16_t lid, int port, const std::string& op) {
  auto r = sim.run({control_binary(), "--timeout-ms", "2000", "--lid", std::to_string(lid),
                    "--port", std::to_string(port), op},
                   "", std::chrono::seconds(60));
  INFO("ibw-bench-port_control " << op << ": " << r.out << r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

// The iblinkinfo line of switch port `port` on the switch whose block starts with `name`.
std::string linkinfo_line(const std::string& text, const std::string& name, int port) {
  bool in_switch = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("Switch:", 0) == 0 || line.rfind("CA:", 0) == 0) {
      in_switch = line.find(name + ":") != std::string::npos;
      continue;
    }
    if (!in_switch) continue;
    // "      3    1[  ] ==( 4X ...": the LID, then the port number before '['.
    size_t bracket = line.find('[');
    if (bracket == std::string::npos) continue;
    size_t start = line.find_last_of(' ', bracket);
    if (start != std::string::npos &&
        line.substr(start + 1, bracket - start - 1) == std::to_string(port))
      return line;
  }
  return "";
}

// The fabric as ibnetdiscover sees it from the SM host.
ibw::fabric::Fabric discovered(const SimLab& sim) {
  auto disc = sim.run({"ibnetdiscover"});
  REQUIRE(disc.status == 0);
  return ibw::fabric::parse_ibnetdiscover(disc.out, "ibnetdiscover");
}

}  // namespace port_control_lab

using namespace port_control_lab;

TEST_CASE("port control: disable and enable a leaf port toward a host",
          "[integration][port_control]") {
  REQUIRE(std::filesystem::exists(control_binary()));
  Lab lab = two_tier_lab(2, 2, 2);
  SimLab sim({to_ibsim_net(lab)});
  ibw::fabric::Fabric fab = discovered(sim);

  // The second leaf's port 1 leads to a host; nodes[0] (the SM host) is on the first leaf.
  int leaf_index = -1, leaves_seen = 0;
  for (size_t i = 0; i < lab.nodes.size(); ++i)
    if (lab.nodes[i].tier == 1 && ++leaves_seen == 2) leaf_index = static_cast<int>(i);
  REQUIRE(leaf_index >= 0);
  const std::string leaf_name = lab.description(leaf_index);
  fab.reindex();
  uint32_t leaf = fab.resolve(leaf_name);
  REQUIRE(leaf != ibw::fabric::kNoNode);
  const int port = 1;
  const ibw::fabric::Port* lp = fab.node(leaf).port(port);
  REQUIRE(lp != nullptr);
  REQUIRE(lp->has_peer());
  REQUIRE(fab.node(lp->peer_node).type == ibw::fabric::NodeType::ca);
  const uint16_t leaf_lid = lp->lid;
  const uint16_t host_lid = fab.node(lp->peer_node).port(lp->peer_port)->lid;
  const std::string where = std::to_string(leaf_lid) + " " + std::to_string(port);
  INFO(leaf_name << " LID " << leaf_lid << " port " << port << ", host LID " << host_lid);

  json q = control(sim, leaf_lid, port, "query");
  CHECK(q["after"]["phys_state"] == "LinkUp");
  CHECK(q["after"]["link_state"] == "Active");

  json off = control(sim, leaf_lid, port, "disable");
  CHECK(off["before"]["phys_state"] == "LinkUp");
  CHECK(off["after"]["phys_state"] == "Disabled");
  WARN("after disable, " << leaf_name << "/" << port << " LinkState reads "
                         << off["after"]["link_state"] << " (ibsim may keep Active)");

  auto stock = sim.run({"ibportstate", std::to_string(leaf_lid), std::to_string(port), "query"});
  INFO("ibportstate query: " << stock.out << stock.err);
  // ibportstate then queries the peer over a directed route through the disabled port; that
  // times out, so it exits non-zero after printing this port (seen on ibsim).
  CHECK(stock.out.find("PhysLinkState:...................Disabled") != std::string::npos);

  // The peer: the host is now unreachable or reports its port down (ibsim-specific detail).
  auto peer = sim.run({"ibportstate", std::to_string(host_lid), "1", "query"});
  WARN("peer (host LID " << host_lid << ") ibportstate: status " << peer.status << "\n"
                         << peer.out << peer.err);
  auto links = sim.run({"iblinkinfo"});
  REQUIRE(links.status == 0);
  std::string line = linkinfo_line(links.out, leaf_name, port);
  INFO("iblinkinfo line: " << line);
  CHECK(line.find("Disabled") != std::string::npos);

  json on = control(sim, leaf_lid, port, "enable");
  CHECK(on["before"]["phys_state"] == "Disabled");
  std::string phys = on["after"]["phys_state"];
  CHECK((phys == "Polling" || phys == "LinkUp"));

  // On hardware the port trains (Polling -> LinkUp) and OpenSM's trap-triggered sweep makes
  // it Active. ibsim (observed with ibsim-utils on this machine) leaves it in Polling: it does
  // not train a link by itself. So this waits a few seconds, requires that the port left
  // Disabled, and only reports whether it came back up.
  json back;
  for (int i = 0; i < 25; ++i) {
    back = control(sim, leaf_lid, port, "query");
    if (back["after"]["phys_state"] == "LinkUp" && back["after"]["link_state"] == "Active") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  CHECK(back["after"]["phys_state"] != "Disabled");
  WARN("after enable and 5 s: " << back["after"].dump());
}

// A lossy link drops replies on their way back: a Set that reached the switch may still go
// unanswered. Every outcome the controller reports must match the port's real state, read
// from a clean vantage: done means done, failed means unchanged, and an unknown outcome is
// reported as unknown, never as a failure.
TEST_CASE("port control: a Set whose reply is lost is judged by the port read back",
          "[integration][port_control][lossy]") {
  REQUIRE(std::filesystem::exists(control_binary()));
  Lab lab = two_tier_lab(2, 2, 3);
  SimLab sim({to_ibsim_net(lab)});
  ibw::fabric::Fabric fab = discovered(sim);
  fab.reindex();
  // The vantage: a host on the SM host's leaf, not the SM host; the target: a port of the
  // other leaf toward one of its hosts.
  std::string vantage;
  uint16_t leaf_lid = 0;
  int port = 0;
  const uint32_t sm_host = fab.resolve(lab.description(0));
  REQUIRE(sm_host != ibw::fabric::kNoNode);
  const ibw::fabric::Port* sm_port = fab.node(sm_host).port(1);
  REQUIRE(sm_port != nullptr);
  const uint32_t first_leaf = sm_port->peer_node;
  for (const auto& n : fab.nodes()) {
    if (n.type != ibw::fabric::NodeType::sw) continue;
    for (const auto& p : n.ports) {
      if (!p.number || !p.has_peer() || fab.node(p.peer_node).type != ibw::fabric::NodeType::ca)
        continue;
      const auto& host = fab.node(p.peer_node);
      if (&n == &fab.node(first_leaf) && p.peer_node != sm_host && vantage.empty())
        vantage = host.description;
      if (&n != &fab.node(first_leaf) && !leaf_lid) leaf_lid = p.lid, port = p.number;
    }
  }
  REQUIRE(!vantage.empty());
  REQUIRE(leaf_lid != 0);
  INFO("vantage " << vantage << ", target LID " << leaf_lid << " port " << port);
  auto run = [&](const std::string& op, const std::string& host) {
    auto r = sim.run({control_binary(), "--timeout-ms", "100", "--lid", std::to_string(leaf_lid),
                      "--port", std::to_string(port), op},
                     host, std::chrono::seconds(60));
    INFO("ibw-bench-port_control " << op << " from " << (host.empty() ? "SM host" : host) << ": "
                                   << r.out << r.err);
    REQUIRE((r.status == 0 || r.status == 1));
    return json::parse(r.out);
  };
  auto truth = [&] {  // from the SM host, whose replies are not dropped
    json q = run("query", "");
    REQUIRE(q.contains("after"));
    return q["after"]["phys_state"] == "Disabled";
  };

  // Every reply to the vantage is dropped with probability 0.7 (requests go through).
  sim.console("Error \"" + vantage + "\"[1] 70");
  bool disabled = truth();
  REQUIRE_FALSE(disabled);
  int done = 0, failed = 0, unknown = 0, lost_replies = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const bool want = !disabled;
    json r = run(want ? "disable" : "enable", vantage);
    const bool now = truth();
    INFO("trial " << trial << ": " << r.dump() << "; port now " << (now ? "Disabled" : "up"));
    if (!r.contains("error")) {
      ++done;
      if (r["set_reply_lost"] == true) ++lost_replies;
      CHECK(now == want);  // reported done: it is
    } else if (r.value("outcome_unknown", false)) {
      ++unknown;  // either may be true; nothing is claimed
    } else {
      ++failed;
      CHECK(now == disabled);  // reported failed: nothing changed
    }
    disabled = now;
  }
  sim.console("Error \"" + vantage + "\"[1] 0");
  WARN("40 requests at 70% reply loss: " << done << " done (" << lost_replies
                                         << " with the Set's reply lost), " << failed << " failed, "
                                         << unknown << " unknown");
  CHECK(lost_replies > 0);  // the case under test happened (P(none) < 1e-4 at this loss)
  if (disabled) CHECK(run("enable", "")["after"]["phys_state"] != "Disabled");
}
