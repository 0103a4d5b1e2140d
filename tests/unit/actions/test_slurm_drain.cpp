// SlurmDrainer (actions/slurm_drain.h) with a fake Slurm and a real store: the drain reason,
// operator drains left alone, the cap, dry-run, the resume window and order, a changed reason,
// backoff after a failure, and a restart (a new drainer on the same store) that neither repeats
// a done drain nor leaves an intent unfinished, on SQLite and PostgreSQL.
#include <catch2/catch.hpp>

#include <map>

#include "actions/slurm_drain.h"
#include "store/remedy_json.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using actions::SlurmHostView;

namespace {

constexpr int64_t kSec = 1'000'000;

// Slurm as scontrol shows it: nodes with drain flag and reason; every call is counted.
class FakeSlurm : public actions::SlurmClient {
 public:
  std::map<std::string, actions::SlurmNode> nodes;
  int drains = 0, resumes = 0, reads = 0;
  bool fail = false;
  void drain(const std::string& node, const std::string& reason) override {
    if (fail) throw actions::SlurmError("scontrol: slurm_update error: Unable to contact");
    ++drains;
    nodes[node].drain = true;
    nodes[node].reason = reason;
  }
  void resume(const std::string& node) override {
    if (fail) throw actions::SlurmError("scontrol: slurm_update error: Unable to contact");
    ++resumes;
    nodes[node].drain = false;
    nodes[node].reason.clear();
  }
  actions::SlurmNode node(const std::string& node) override {
    ++reads;
    if (fail) throw actions::SlurmError("scontrol: Unable to contact slurm controller");
    auto n = nodes[node];
    n.name = node;
    return n;
  }
  std::vector<actions::SlurmJob> running_jobs(const std::vector<std::string>&) override {
    return {};
  }
};

SlurmHostView host(const std::string& node, uint64_t ca, SlurmHostView::Health health) {
  SlurmHostView v;
  v.node = node;
  v.health = health;
  v.ca = {ca, node, 1, ""};
  v.peer = {0x100, "leaf003", static_cast<int>(ca & 0xff), ""};
  v.link_key = core::link_key(ca, 1, 0x100, static_cast<int>(ca & 0xff));
  v.why = health == SlurmHostView::Health::whole ? "" : "link down";
  return v;
}

const SlurmHostView::Health kBad = SlurmHostView::Health::cut_off;
const SlurmHostView::Health kWhole = SlurmHostView::Health::whole;

int64_t add_order(store::Store& s, const SlurmHostView& v, const std::string& status) {
  core::WorkOrder o;
  o.link_key = v.link_key;
  o.a = v.peer;
  o.b = v.ca;
  o.rule = "symbol_errors";
  o.status = status;
  o.summary = "symbol errors";
  o.opened_us = 1;
  store::WriteBatch b;
  b.workorders.push_back(o);
  return s.write(b).workorder_ids.at(0);
}

// The order is resolved (its link repaired).
void resolve(store::Store& s, int64_t wo) {
  auto o = *s.workorder(wo);
  o.status = "resolved";
  o.resolved_us = 1;
  store::WriteBatch b;
  b.workorders.push_back(o);
  s.write(b);
}

std::vector<core::DecisionRecord> slurm_rows(store::Store& s) {
  store::DecisionQuery q;
  q.limit = 0;
  std::vector<core::DecisionRecord> out;
  for (auto& d : s.decisions(q))
    if (d.rule == "slurm") out.push_back(d);
  return out;
}

actions::SlurmDrainConfig config() {
  actions::SlurmDrainConfig c;
  c.clean_window_us = 60 * kSec;
  c.max_drains_per_hour = 2;
  return c;
}

}  // namespace

TEST_CASE("slurm drain: the order names the reason and an operator drain is left alone",
          "[slurm][slurm_drain]") {
  auto db = store_test::open_test_store("sqlite");
  auto s = db.open();
  FakeSlurm slurm;
  slurm.nodes["node0002"].drain = true;
  slurm.nodes["node0002"].reason = "bad DIMM";
  actions::SlurmStats stats;
  actions::SlurmDrainer drainer(config(), slurm, *s, &stats);
  auto h1 = host("node0001", 0x11, kBad);
  auto h2 = host("node0002", 0x12, kBad);
  int64_t wo = add_order(*s, h1, "open");
  auto out = drainer.tick({h1, h2, host("node0003", 0x13, kWhole)}, 100 * kSec);
  REQUIRE(out.size() == 2);
  CHECK(slurm.drains == 1);
  CHECK(slurm.nodes["node0001"].reason ==
        "ibwarden: WO-" + std::to_string(wo) + " leaf003/17 symbol errors");
  CHECK(slurm.nodes["node0002"].reason == "bad DIMM");
  auto rows = slurm_rows(*s);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].status == "done");  // the intent, completed
  CHECK(rows[0].node == "node0001");
  CHECK(rows[1].status == "skipped");
  CHECK(rows[1].reason.find("drained by operator (bad DIMM)") != std::string::npos);
  // Bad again next pass: nothing new (no second drain, the skip recorded once).
  CHECK(drainer.tick({h1, h2}, 101 * kSec).empty());
  CHECK(slurm.drains == 1);
  // The order shows the drain.
  auto order = s->workorder(wo);
  REQUIRE(order);
  auto j = store::order_slurm_json(*s, *order);
  REQUIRE(j.size() == 1);
  CHECK(j[0]["action"] == "drain");
  CHECK(j[0]["status"] == "done");
  CHECK(j[0]["node"] == "node0001");
  // Whole again for the window: node0001 is resumed, node0002 (the operator's) never.
  auto w1 = host("node0001", 0x11, kWhole), w2 = host("node0002", 0x12, kWhole);
  drainer.tick({w1, w2}, 200 * kSec);
  drainer.tick({w1, w2}, 250 * kSec);
  CHECK(slurm.resumes == 0);  // the window is not over, and the order is open
  drainer.tick({w1, w2}, 300 * kSec);
  CHECK(slurm.resumes == 0);  // window over, order still open
  resolve(*s, wo);
  drainer.tick({w1, w2}, 301 * kSec);
  CHECK(slurm.resumes == 1);
  CHECK_FALSE(slurm.nodes["node0001"].drain);
  CHECK(slurm.nodes["node0002"].drain);
  CHECK(stats.snapshot().drains["done"] == 1);
  CHECK(stats.snapshot().drains["skipped"] == 1);
  CHECK(stats.snapshot().resumes["done"] == 1);
}

TEST_CASE("slurm drain: a reason changed by an operator is never resumed", "[slurm][slurm_drain]") {
  auto db = store_test::open_test_store("sqlite");
  auto s = db.open();
  FakeSlurm slurm;
  actions::SlurmDrainer drainer(config(), slurm, *s, nullptr);
  drainer.tick({host("node0001", 0x11, kBad)}, 10 * kSec);
  REQUIRE(slurm.drains == 1);
  CHECK(slurm.nodes["node0001"].reason == "ibwarden: leaf003/17 link down");
  slurm.nodes["node0001"].reason = "ibwarden: keep out, RMA";  // re-drained by an operator
  drainer.tick({host("node0001", 0x11, kWhole)}, 20 * kSec);
  auto out = drainer.tick({host("node0001", 0x11, kWhole)}, 100 * kSec);
  CHECK(slurm.resumes == 0);
  REQUIRE(out.size() == 1);
  CHECK(out[0].status == "skipped");
  CHECK(out[0].reason.find("changed by operator") != std::string::npos);
  CHECK(drainer.drained().empty());
}

TEST_CASE("slurm drain: past the cap a drain is held and recorded once", "[slurm][slurm_drain]") {
  auto db = store_test::open_test_store("sqlite");
  auto s = db.open();
  FakeSlurm slurm;
  actions::SlurmStats stats;
  actions::SlurmDrainer drainer(config(), slurm, *s, &stats);  // cap 2 an hour
  std::vector<SlurmHostView> bad = {host("node0001", 0x11, kBad), host("node0002", 0x12, kBad),
                                    host("node0003", 0x13, kBad)};
  drainer.tick(bad, 10 * kSec);
  drainer.tick(bad, 11 * kSec);
  CHECK(slurm.drains == 2);
  CHECK(stats.snapshot().drains["held"] == 1);
  auto rows = slurm_rows(*s);
  REQUIRE(rows.size() == 3);
  CHECK(rows[2].node == "node0003");
  CHECK(rows[2].status == "held");
  CHECK(rows[2].reason.rfind("held: cap", 0) == 0);
  // An hour after the first drains, the held node is drained.
  drainer.tick(bad, 3700 * kSec);
  CHECK(slurm.drains == 3);
  CHECK(slurm.nodes["node0003"].drain);
}

TEST_CASE("slurm drain: dry-run records would drain and calls nothing", "[slurm][slurm_drain]") {
  auto db = store_test::open_test_store("sqlite");
  auto s = db.open();
  FakeSlurm slurm;
  auto c = config();
  c.dry_run = true;
  actions::SlurmDrainer drainer(c, slurm, *s, nullptr);
  drainer.tick({host("node0001", 0x11, kBad)}, 10 * kSec);
  drainer.tick({host("node0001", 0x11, kBad)}, 11 * kSec);
  CHECK(slurm.drains + slurm.reads == 0);
  auto rows = slurm_rows(*s);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].status == "dry_run");
  CHECK(rows[0].reason == "would drain: ibwarden: leaf003/17 link down");
  SECTION("drain: false switches draining off") {
    c.dry_run = false;
    c.drain = false;
    actions::SlurmDrainer off(c, slurm, *s, nullptr);
    CHECK(off.tick({host("node0002", 0x12, kBad)}, 12 * kSec).empty());
    CHECK(slurm.drains + slurm.reads == 0);
  }
}

TEST_CASE("slurm drain: a Slurm failure is recorded and retried with backoff",
          "[slurm][slurm_drain]") {
  auto db = store_test::open_test_store("sqlite");
  auto s = db.open();
  FakeSlurm slurm;
  actions::SlurmStats stats;
  actions::SlurmDrainer drainer(config(), slurm, *s, &stats);
  slurm.fail = true;
  auto bad = host("node0001", 0x11, kBad);
  drainer.tick({bad}, 10 * kSec);
  drainer.tick({bad}, 12 * kSec);  // within the 5 s backoff: not tried
  CHECK(slurm.reads == 1);
  CHECK(stats.snapshot().errors == 1);
  CHECK(stats.snapshot().failing);
  slurm.fail = false;
  drainer.tick({bad}, 16 * kSec);
  CHECK(slurm.drains == 1);
  CHECK_FALSE(stats.snapshot().failing);
}

TEST_CASE("slurm drain: a restart neither repeats a drain nor leaves an intent",
          "[slurm][slurm_drain]") {
  STORE_UNDER_TEST(db, s);
  FakeSlurm slurm;
  auto bad = host("node0001", 0x11, kBad);
  {
    actions::SlurmDrainer first(config(), slurm, *s, nullptr);
    first.tick({bad}, 10 * kSec);
  }
  REQUIRE(slurm.drains == 1);
  // An intent without outcome (ibwarden stopped between the record and scontrol).
  store::WriteBatch b;
  core::DecisionRecord intent;
  intent.time_us = 11 * kSec;
  intent.rule = "slurm";
  intent.node = "node0002";
  intent.action = actions::kSlurmDrain;
  intent.status = "pending";
  intent.reason = "ibwarden: leaf003/18 link down";
  intent.link_key = host("node0002", 0x12, kBad).link_key;
  intent.evidence_json = "{}";
  b.decisions.push_back(intent);
  s->write(b);
  auto again = db.open();
  actions::SlurmDrainer second(config(), slurm, *again, nullptr);
  second.tick({bad, host("node0002", 0x12, kBad)}, 20 * kSec);
  CHECK(slurm.drains == 2);  // node0001 not again; node0002's intent sent
  CHECK(slurm.nodes["node0002"].reason == "ibwarden: leaf003/18 link down");
  for (const auto& d : slurm_rows(*again)) CHECK(d.status == "done");
  auto drained = second.drained();
  CHECK(drained == std::vector<std::string>{"node0001", "node0002"});
  // Whole again: the restarted drainer resumes both (they are ibwarden's).
  second.tick({host("node0001", 0x11, kWhole), host("node0002", 0x12, kWhole)}, 30 * kSec);
  second.tick({host("node0001", 0x11, kWhole), host("node0002", 0x12, kWhole)}, 100 * kSec);
  CHECK(slurm.resumes == 2);
}

TEST_CASE("slurm drain: the reason names the order once it opens and the update is no new drain",
          "[slurm][slurm_drain]") {
  STORE_UNDER_TEST(db, s);
  FakeSlurm slurm;
  actions::SlurmStats stats;
  auto bad1 = host("node0001", 0x11, kBad);
  int64_t wo = 0;
  {
    actions::SlurmDrainer drainer(config(), slurm, *s, &stats);  // cap 2 an hour
    drainer.tick({bad1}, 10 * kSec);                             // the link went down: no order yet
    CHECK(slurm.nodes["node0001"].reason == "ibwarden: leaf003/17 link down");
    wo = add_order(*s, bad1, "open");  // the rules' verdict opens the order
    drainer.tick({bad1}, 11 * kSec);
    CHECK(slurm.nodes["node0001"].reason ==
          "ibwarden: WO-" + std::to_string(wo) + " leaf003/17 symbol errors");
    CHECK(slurm.drains == 2);  // the drain, then the reason update
    drainer.tick({bad1}, 12 * kSec);
    CHECK(slurm.drains == 2);  // named once
    CHECK(stats.snapshot().drains["done"] == 2);
  }
  auto rows = slurm_rows(*s);
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].reason.find("WO-" + std::to_string(wo)) != std::string::npos);
  // A restart: the reason is ibwarden's (resumable) and the cap counts one drain, not two --
  // node0002 is drained, node0003 held.
  auto again = db.open();
  actions::SlurmDrainer second(config(), slurm, *again, &stats);
  second.tick({bad1, host("node0002", 0x12, kBad), host("node0003", 0x13, kBad)}, 20 * kSec);
  CHECK(slurm.drains == 3);
  CHECK(slurm.nodes["node0002"].drain);
  CHECK_FALSE(slurm.nodes["node0003"].drain);
  resolve(*again, wo);
  second.tick({host("node0001", 0x11, kWhole)}, 30 * kSec);
  second.tick({host("node0001", 0x11, kWhole)}, 91 * kSec);
  CHECK(slurm.resumes == 1);
  CHECK_FALSE(slurm.nodes["node0001"].drain);
}

TEST_CASE("slurm drain: an order that opens after an operator took the node over changes nothing",
          "[slurm][slurm_drain]") {
  auto db = store_test::open_test_store("sqlite");
  auto s = db.open();
  FakeSlurm slurm;
  actions::SlurmDrainer drainer(config(), slurm, *s, nullptr);
  auto bad = host("node0001", 0x11, kBad);
  drainer.tick({bad}, 10 * kSec);
  slurm.nodes["node0001"].reason = "RMA ticket 4711";  // the operator's now
  add_order(*s, bad, "open");
  auto out = drainer.tick({bad}, 11 * kSec);
  REQUIRE(out.size() == 1);
  CHECK(out[0].status == "skipped");
  CHECK(slurm.nodes["node0001"].reason == "RMA ticket 4711");
  CHECK(slurm.drains == 1);
  CHECK(drainer.drained().empty());
  CHECK(drainer.tick({bad}, 12 * kSec).empty());  // recorded once, never re-drained
  CHECK(slurm.drains == 1);
}

TEST_CASE("slurm drain: a new store connection keeps the clean window running",
          "[slurm][slurm_drain]") {
  auto db = store_test::open_test_store("sqlite");
  auto s = db.open();
  FakeSlurm slurm;
  actions::SlurmDrainer drainer(config(), slurm, *s, nullptr);  // clean window 60 s
  drainer.tick({host("node0001", 0x11, kBad)}, 10 * kSec);
  drainer.tick({host("node0001", 0x11, kWhole)}, 100 * kSec);  // whole from 100 s
  auto reopened = db.open();  // the first connection failed; the worker opens another
  s.reset();
  drainer.rebind(*reopened);
  drainer.tick({host("node0001", 0x11, kWhole)}, 161 * kSec);
  CHECK(slurm.resumes == 1);  // 61 s whole: a fresh drainer would wait until 221 s
  CHECK(slurm_rows(*reopened).size() == 2);
}
