// Remediation (actions/remedy.h) end to end against a real SQLite store and a fake port
// executor on a hand-built two-tier fabric: guarded disables with read-back, one order per
// link, refusals that need a human, dry-run, manual enable resolving the order, stale
// evidence, reopening and escalation of repeat offenders, verification, failures.
#include <catch2/catch.hpp>

#include <functional>
#include <nlohmann/json.hpp>

#include "tests/unit/test_remedy_helpers.h"

using namespace ibw;
using namespace ibw::actions;
using namespace ibw::test_fabric;
using namespace remedy_flow_test;

TEST_CASE("remedy: a bad uplink is disabled once with its order and evidence", "[remedy]") {
  Bench b;
  auto r = b.remediator();
  auto d = r.on_finding(symbol_errors(leaf_guid(0), 3, kNow), b.ctx, kNow);
  REQUIRE(d);
  CHECK(d->action == "disable");
  CHECK(d->status == "executed");
  CHECK(d->node == "leaf000");
  CHECK(d->port == 3);
  CHECK(d->peer_node == "spine000");
  REQUIRE(b.exec.calls == std::vector<std::string>{"disable LID 512 port 3"});
  auto ev = nlohmann::json::parse(d->evidence_json);
  CHECK(ev["counters"]["SymbolErrorCounter"] == 5000);
  CHECK(ev["readback"]["after"]["phys_state"] == "Disabled");
  CHECK(ev["guard"]["verdict"] == "allowed");

  auto orders = b.db->workorders({});
  REQUIRE(orders.size() == 1);
  CHECK(orders[0].status == "open");
  CHECK(orders[0].port_disabled);
  CHECK_FALSE(orders[0].needs_human);
  CHECK(orders[0].offences == 1);
  CHECK(orders[0].advice.find("clean") != std::string::npos);
  REQUIRE(b.db->disabled_ports().size() == 1);
  CHECK(b.db->disabled_ports()[0].decision_id == d->id);
  CHECK(b.db->outbox_due(kNow, 10).size() == 1);

  // The same verdict again, from either end: nothing new.
  CHECK_FALSE(r.on_finding(symbol_errors(leaf_guid(0), 3, kNow + kSecond), b.ctx, kNow + kSecond));
  CHECK_FALSE(r.on_finding(symbol_errors(spine_guid(0), 1, kNow + kSecond), b.ctx, kNow + kSecond));
  CHECK(b.exec.calls.size() == 1);
  CHECK(b.db->decisions({}).size() == 1);
}

TEST_CASE("remedy: a host link is refused and needs a human", "[remedy]") {
  Bench b;
  auto r = b.remediator();
  // Reported on the host's side: the switch side is the one the guard considers.
  auto d = r.on_finding(symbol_errors(host_guid(1), 1, kNow), b.ctx, kNow);
  REQUIRE(d);
  CHECK(d->status == "refused");
  CHECK(d->node == "leaf000");
  CHECK(d->port == 2);
  CHECK(d->reason.find("host_link") != std::string::npos);
  CHECK(b.exec.calls.empty());
  auto o = b.db->workorders({});
  REQUIRE(o.size() == 1);
  CHECK(o[0].needs_human);
  CHECK(o[0].severity == "critical");
  CHECK(o[0].summary.find("needs a human") == 0);
}

TEST_CASE("remedy: dry-run records what it would do and changes nothing", "[remedy]") {
  Bench b;
  auto r = b.remediator(GuardMode::dry_run);
  auto d = r.on_finding(symbol_errors(leaf_guid(1), 4, kNow), b.ctx, kNow);
  REQUIRE(d);
  CHECK(d->status == "dry_run");
  CHECK(b.exec.calls.empty());
  CHECK(b.db->disabled_ports().empty());
  auto o = b.db->workorders({});
  REQUIRE(o.size() == 1);
  CHECK_FALSE(o[0].port_disabled);
  CHECK(o[0].summary.find("dry-run") != std::string::npos);
}

TEST_CASE("remedy: the per-switch budget refuses the next uplink", "[remedy]") {
  Bench b;
  auto r = b.remediator(GuardMode::enforce, 1);
  REQUIRE(r.on_finding(symbol_errors(leaf_guid(0), 3, kNow), b.ctx, kNow)->status == "executed");
  auto d = r.on_finding(symbol_errors(leaf_guid(0), 4, kNow), b.ctx, kNow);
  REQUIRE(d);
  CHECK(d->status == "refused");
  CHECK(d->reason.find("max_disabled_per_switch") != std::string::npos);
  store::WorkOrderQuery active;
  active.status = "active";
  CHECK(b.db->workorders(active).size() == 2);
  CHECK(b.exec.calls.size() == 1);
}

TEST_CASE("remedy: enable resolves and repeat offences escalate", "[remedy]") {
  Bench b;
  auto r = b.remediator();
  REQUIRE(r.on_finding(symbol_errors(leaf_guid(0), 5, kNow), b.ctx, kNow)->status == "executed");
  // The operator gives the spine end: ibwarden re-enables the end it disabled.
  auto e = r.manual(PortAction::enable, spine_guid(2), 1, "cable cleaned", false, b.ctx,
                    kNow + 60 * kSecond);
  CHECK(e.status == "executed");
  CHECK(e.action == "enable");
  CHECK(b.exec.calls.back() == "enable LID 512 port 5");
  CHECK(b.db->disabled_ports().empty());
  auto o = b.db->workorders({});
  REQUIRE(o.size() == 1);
  CHECK(o[0].status == "resolved");
  CHECK_FALSE(o[0].port_disabled);

  // Evidence from before the repair is stale.
  CHECK_FALSE(r.on_finding(symbol_errors(leaf_guid(0), 5, kNow + 30 * kSecond), b.ctx,
                           kNow + 90 * kSecond));
  // New errors after the repair: reopened, second offence, disabled again.
  auto d2 = r.on_finding(symbol_errors(leaf_guid(0), 5, kNow + 120 * kSecond), b.ctx,
                         kNow + 120 * kSecond);
  REQUIRE(d2);
  CHECK(d2->status == "executed");
  o = b.db->workorders({});
  CHECK(o[0].status == "reopened");
  CHECK(o[0].offences == 2);
  CHECK(o[0].advice.find("replace") != std::string::npos);

  // Third time: automation stops disabling it.
  r.manual(PortAction::enable, leaf_guid(0), 5, "transceiver replaced", false, b.ctx,
           kNow + 200 * kSecond);
  auto d3 = r.on_finding(symbol_errors(leaf_guid(0), 5, kNow + 300 * kSecond), b.ctx,
                         kNow + 300 * kSecond);
  REQUIRE(d3);
  CHECK(d3->status == "refused");
  CHECK(d3->reason.find("escalated") != std::string::npos);
  o = b.db->workorders({});
  CHECK(o[0].offences == 3);
  CHECK(o[0].needs_human);
  CHECK(o[0].severity == "critical");
  CHECK(o.size() == 1);  // one order per link, all along
}

TEST_CASE("remedy: port actions use a directed route around disabled links", "[remedy]") {
  Bench b;
  b.ctx.local_port = PortKey{host_guid(0), 1};
  auto r = b.remediator();
  // leaf001 is reached host0 -> leaf000/3 -> spine000/2.
  REQUIRE(r.on_finding(symbol_errors(leaf_guid(1), 5, kNow), b.ctx, kNow)->status == "executed");
  CHECK(b.exec.calls.back() == "disable DR path 0,1,3,2 port 5");
  // With leaf000/3 disabled, the route to leaf001 goes through spine001.
  REQUIRE(r.on_finding(symbol_errors(leaf_guid(0), 3, kNow), b.ctx, kNow)->status == "executed");
  CHECK(b.exec.calls.back() == "disable DR path 0,1 port 3");
  CHECK(r.manual(PortAction::enable, leaf_guid(1), 5, "fixed", false, b.ctx, kNow).status ==
        "executed");
  CHECK(b.exec.calls.back() == "enable DR path 0,1,4,2 port 5");
}

TEST_CASE("remedy: resolved orders clean for verify_after are verified", "[remedy]") {
  Bench b;
  auto r = b.remediator();
  r.on_finding(symbol_errors(leaf_guid(1), 3, kNow), b.ctx, kNow);
  r.manual(PortAction::enable, leaf_guid(1), 3, "reseated", false, b.ctx, kNow + kSecond);
  CHECK(r.verify_due(kNow + 1800 * kSecond) == 0);
  CHECK(r.verify_due(kNow + 3602 * kSecond) == 1);
  CHECK(b.db->workorders({})[0].status == "verified");
  CHECK(r.verify_due(kNow + 7200 * kSecond) == 0);
}

TEST_CASE("remedy: failures are recorded and isolated", "[remedy]") {
  Bench b;
  auto r = b.remediator();
  b.exec.fail = true;
  auto d = r.on_finding(symbol_errors(leaf_guid(0), 3, kNow), b.ctx, kNow);
  REQUIRE(d);
  CHECK(d->status == "failed");
  CHECK(d->reason.find("PortInfo Set failed") != std::string::npos);
  CHECK(b.db->workorders({})[0].needs_human);
  CHECK(b.db->disabled_ports().empty());

  b.exec.fail = false;
  b.exec.ignore_disable = true;  // the switch acknowledged but the port stayed up
  auto d2 = r.on_finding(symbol_errors(leaf_guid(1), 3, kNow), b.ctx, kNow);
  REQUIRE(d2);
  CHECK(d2->status == "failed");
  CHECK(d2->reason.find("not Disabled") != std::string::npos);
}

TEST_CASE("remedy: manual disable goes through the guard and force is recorded", "[remedy]") {
  Bench b;
  auto r = b.remediator(GuardMode::enforce, 1);
  auto refused = r.manual(PortAction::disable, leaf_guid(0), 1, "test", true, b.ctx, kNow);
  CHECK(refused.status == "refused");  // host0 is the SM host: hard rule, force cannot help
  CHECK(r.manual(PortAction::disable, leaf_guid(0), 3, "flapping", false, b.ctx, kNow).status ==
        "executed");
  auto over = r.manual(PortAction::disable, leaf_guid(0), 4, "flapping too", false, b.ctx, kNow);
  CHECK(over.status == "refused");
  auto forced = r.manual(PortAction::disable, leaf_guid(0), 4, "flapping too", true, b.ctx, kNow);
  CHECK(forced.status == "executed");
  auto ev = nlohmann::json::parse(forced.evidence_json);
  CHECK(ev["force"] == true);
  CHECK(ev["guard"]["overridden"][0] == "max_disabled_per_switch");
  CHECK(forced.reason.find("operator: flapping too") == 0);
  CHECK(b.db->disabled_ports().size() == 2);
  CHECK(b.db->workorders({}).size() == 2);
}

TEST_CASE("remedy: an operator edit made during a port action is kept", "[remedy]") {
  Bench b;
  auto r = b.remediator();
  // What PATCH /workorders/{id} does, from its own connection: a version-conditional write.
  auto web = store::Store::open(b.dir.file("s.db"));
  auto patch = [&](const std::string& assignee, const std::string& note) {
    auto o = *web->workorder_by_link(b.db->workorders({})[0].link_key);
    o.assignee = assignee, o.note = note;
    store::WriteBatch w;
    w.workorders_if_version = true;
    w.workorders.push_back(o);
    web->write(w);
  };
  REQUIRE(r.on_finding(symbol_errors(leaf_guid(0), 4, kNow), b.ctx, kNow)->status == "executed");
  patch("ana", "ticket 7");
  b.exec.during = [&] { patch("ana", "ticket 7; cleaned both ends"); };
  REQUIRE(r.manual(PortAction::enable, leaf_guid(0), 4, "cleaned", false, b.ctx, kNow + kSecond)
              .status == "executed");
  auto o = b.db->workorders({});
  REQUIRE(o.size() == 1);
  CHECK(o[0].status == "resolved");  // the enable's change...
  CHECK_FALSE(o[0].port_disabled);
  CHECK(o[0].note == "ticket 7; cleaned both ends");  // ...and the operator's, both kept
  CHECK(o[0].assignee == "ana");

  // A second offence reopens the order; the operator assigns it while the disable runs.
  b.exec.during = [&] { patch("bo", "ticket 7; cleaned both ends"); };
  auto d =
      r.on_finding(symbol_errors(leaf_guid(0), 4, kNow + 60 * kSecond), b.ctx, kNow + 60 * kSecond);
  REQUIRE(d);
  CHECK(d->status == "executed");
  o = b.db->workorders({});
  CHECK(o[0].status == "reopened");
  CHECK(o[0].offences == 2);
  CHECK(o[0].port_disabled);
  CHECK(o[0].assignee == "bo");
  CHECK(o[0].note == "ticket 7; cleaned both ends");
  CHECK(b.db->decisions({}).size() == 3);  // disable, enable, disable: each recorded once
  REQUIRE(b.db->disabled_ports().size() == 1);
  CHECK(b.db->disabled_ports()[0].decision_id == d->id);

  // Without an edit during the action a reopen still clears the old assignee.
  b.exec.during = nullptr;
  r.manual(PortAction::enable, leaf_guid(0), 4, "replaced", false, b.ctx, kNow + 90 * kSecond);
  REQUIRE(r.on_finding(symbol_errors(leaf_guid(0), 4, kNow + 120 * kSecond), b.ctx,
                       kNow + 120 * kSecond));
  o = b.db->workorders({});
  CHECK(o[0].status == "reopened");
  CHECK(o[0].assignee.empty());
}

TEST_CASE("remedy: text that is not UTF-8 (a UFM description) is stored with replacements",
          "[remedy]") {
  Bench b;
  auto r = b.remediator();
  Finding f = symbol_errors(leaf_guid(0), 6, kNow);
  f.verdict.explanation = "UFM 918: BER on port \xff\xfe 3/1";  // Latin-1 bytes from UFM
  auto d = r.on_finding(f, b.ctx, kNow);
  REQUIRE(d);
  CHECK(d->status == "executed");
  auto ev = nlohmann::json::parse(d->evidence_json);
  CHECK(ev["explanation"].get<std::string>().find("\xef\xbf\xbd") != std::string::npos);
  REQUIRE(b.db->workorders({}).size() == 1);
}
