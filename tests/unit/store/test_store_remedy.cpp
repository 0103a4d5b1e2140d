// Store: remediation records - decisions, work orders and their webhook outbox, disabled
// ports - round trips, de-duplication, upsert versions, queries, read-only opens and
// conditional writes on both backends; SQLite only: atomicity through its failure hook and
// migration from a version-1 file. Link keys and the JSON contract.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <limits>
#include <set>
#include <string>
#include <vector>

#include "store/records.h"
#include "store/remedy_json.h"
#include "store/schema.h"
#include "store/sqlite_store.h"
#include "store/store.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using namespace ibw::store_test;
using store::Store;
using store::StoreError;

namespace remedy_test {

constexpr int64_t kT0 = 1'700'000'000'123'456;        // 2023-11-14T22:13:20.123456Z
constexpr uint64_t kLeaf = 0xfe80'0000'0000'0003ULL;  // top bit set: negative INTEGER
constexpr uint64_t kSpine = 0x0002'c902'0040'4f80ULL;

core::DecisionRecord full_decision(int i) {
  core::DecisionRecord d;
  d.time_us = kT0 + i;
  d.rule = "symbol_errors";
  d.node_guid = kLeaf;
  d.node = "leaf003";
  d.port = 36;
  d.peer_guid = kSpine;
  d.peer_node = "spine001";
  d.peer_port = 17;
  d.cable_id = "C-leaf003-36";
  d.action = "disable";
  d.status = "executed";
  d.reason = "SymbolErrorCounter +120/min > 100 \"quoted\" ünïcode, comma";
  d.evidence_json = R"({"SymbolErrorCounter":120,"readback":"Disabled"})";
  d.link_key = core::link_key(kLeaf, 36, kSpine, 17);
  d.dedup_key = "rule:symbol_errors:" + std::to_string(i);
  return d;
}

core::WorkOrder full_order(const std::string& link_key) {
  core::WorkOrder o;
  o.link_key = link_key;
  o.cable_id = "C-leaf003-36";
  o.a = {kLeaf, "leaf003", 36, "R12-U40"};
  o.b = {kSpine, "spine001", 17, "R20-U10"};
  o.status = "in_progress";
  o.rule = "symbol_errors";
  o.severity = "critical";
  o.summary = "leaf003/36 <-> spine001/17: symbol errors";
  o.advice = "Reseat both ends; replace the cable if errors persist.";
  o.needs_human = true;
  o.port_disabled = true;
  o.offences = 3;
  o.evidence_json = R"({"SymbolErrorCounter":120})";
  o.affected_json = R"({"hosts":4,"unmapped":1,"jobs":[{"id":"17","user":"bob","nodes":2}]})";
  o.assignee = "alice";
  o.note = "spare in cage 4";
  o.opened_us = kT0;
  o.updated_us = kT0 + 10;
  o.resolved_us = 0;
  return o;
}

void check_same_decision(const core::DecisionRecord& a, const core::DecisionRecord& b) {
  CHECK(a.time_us == b.time_us);
  CHECK(a.rule == b.rule);
  CHECK(a.node_guid == b.node_guid);
  CHECK(a.node == b.node);
  CHECK(a.port == b.port);
  CHECK(a.peer_guid == b.peer_guid);
  CHECK(a.peer_node == b.peer_node);
  CHECK(a.peer_port == b.peer_port);
  CHECK(a.cable_id == b.cable_id);
  CHECK(a.action == b.action);
  CHECK(a.status == b.status);
  CHECK(a.reason == b.reason);
  CHECK(a.evidence_json == b.evidence_json);
  CHECK(a.link_key == b.link_key);
  CHECK(a.dedup_key == b.dedup_key);
}

void check_same_end(const core::LinkEnd& a, const core::LinkEnd& b) {
  CHECK(a.guid == b.guid);
  CHECK(a.node == b.node);
  CHECK(a.port == b.port);
  CHECK(a.location == b.location);
}

// Every field but id and version.
void check_same_order(const core::WorkOrder& a, const core::WorkOrder& b) {
  CHECK(a.link_key == b.link_key);
  CHECK(a.cable_id == b.cable_id);
  check_same_end(a.a, b.a);
  check_same_end(a.b, b.b);
  CHECK(a.status == b.status);
  CHECK(a.rule == b.rule);
  CHECK(a.severity == b.severity);
  CHECK(a.summary == b.summary);
  CHECK(a.advice == b.advice);
  CHECK(a.needs_human == b.needs_human);
  CHECK(a.port_disabled == b.port_disabled);
  CHECK(a.offences == b.offences);
  CHECK(a.evidence_json == b.evidence_json);
  CHECK(a.affected_json == b.affected_json);
  CHECK(a.assignee == b.assignee);
  CHECK(a.note == b.note);
  CHECK(a.opened_us == b.opened_us);
  CHECK(a.updated_us == b.updated_us);
  CHECK(a.resolved_us == b.resolved_us);
}

std::vector<core::OutboxItem> all_outbox(store::Store& s) {
  return s.outbox_due(std::numeric_limits<int64_t>::max(), 0);
}

int64_t outbox_rows(const std::string& path) {
  return raw_int(path, "SELECT count(*) FROM outbox");
}

int64_t outbox_rows(const StoreUnderTest& db) {
  return raw_int(db, "SELECT count(*) FROM outbox");
}

std::set<std::string> table_names(const std::string& path) {
  std::set<std::string> out;
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &st,
                             nullptr) == SQLITE_OK);
  while (sqlite3_step(st) == SQLITE_ROW)
    out.insert(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

}  // namespace remedy_test

using namespace remedy_test;

TEST_CASE("store remedy: every decision field round-trips and a dedup_key is stored once",
          "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  core::DecisionRecord bare;  // defaults; no dedup key (stored as NULL)
  bare.action = "none";
  auto r = s->write({.decisions = {full_decision(1), bare, bare}});
  REQUIRE(r.decision_ids.size() == 3);
  CHECK(r.decision_ids[0] > 0);
  CHECK(r.decision_ids[1] > r.decision_ids[0]);
  CHECK(r.decision_ids[2] > r.decision_ids[1]);  // empty dedup keys never collide
  CHECK(r.events_inserted == 0);

  // The same decision again (a replayed batch) is skipped; a new one in the same batch is not.
  auto again = s->write({.decisions = {full_decision(1), full_decision(2)}});
  REQUIRE(again.decision_ids.size() == 2);
  CHECK(again.decision_ids[0] == 0);
  CHECK(again.decision_ids[1] > r.decision_ids[2]);

  db.reopen(s, /*read_only=*/true);
  auto got = s->decisions({});
  REQUIRE(got.size() == 4);
  CHECK(got[0].id == r.decision_ids[0]);
  check_same_decision(got[0], full_decision(1));
  check_same_decision(got[1], bare);
  CHECK(got[3].id == again.decision_ids[1]);
  check_same_decision(got[3], full_decision(2));
}

TEST_CASE("store remedy: decision queries filter by time - id and link in id order",
          "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  store::WriteBatch b;
  for (int i = 0; i < 10; ++i) {
    core::DecisionRecord d = full_decision(i);
    d.time_us = kT0 + (9 - i) * 1000;  // ids ascend while times descend
    if (i % 2) d.link_key = "other";
    b.decisions.push_back(d);
  }
  auto ids = s->write(b).decision_ids;

  auto all = s->decisions({});
  REQUIRE(all.size() == 10);
  for (size_t i = 1; i < all.size(); ++i) CHECK(all[i].id > all[i - 1].id);

  auto recent = s->decisions({.since_us = kT0 + 5000});  // i = 0..4
  REQUIRE(recent.size() == 5);
  CHECK(recent.front().id == ids[0]);
  CHECK(recent.back().id == ids[4]);

  auto page = s->decisions({.after_id = ids[6], .limit = 2});
  REQUIRE(page.size() == 2);
  CHECK(page[0].id == ids[7]);
  CHECK(page[1].id == ids[8]);

  auto other = s->decisions({.link_key = "other"});
  REQUIRE(other.size() == 5);
  for (const auto& d : other) CHECK(d.link_key == "other");
  CHECK(s->decisions({.since_us = kT0 + 5000, .link_key = "other", .limit = 0}).size() == 2);
  CHECK(s->decisions({.link_key = "none such"}).empty());
}

TEST_CASE("store remedy: a new work order is stored at version 1 with every field",
          "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  const std::string key = core::link_key(kLeaf, 36, kSpine, 17);
  core::WorkOrder o = full_order(key);
  o.id = 999;      // ignored
  o.version = 42;  // ignored
  o.resolved_us = kT0 + 99;
  auto r = s->write({.workorders = {o}});
  REQUIRE(r.workorder_ids.size() == 1);
  const int64_t id = r.workorder_ids[0];
  CHECK(id > 0);
  CHECK(id != 999);

  db.reopen(s, /*read_only=*/true);
  auto got = s->workorder(id);
  REQUIRE(got.has_value());
  CHECK(got->id == id);
  CHECK(got->version == 1);
  check_same_order(*got, o);
  auto by_link = s->workorder_by_link(key);
  REQUIRE(by_link.has_value());
  CHECK(by_link->id == id);
  auto listed = s->workorders({});
  REQUIRE(listed.size() == 1);
  check_same_order(listed[0], o);
  CHECK_FALSE(s->workorder(id + 1).has_value());
  CHECK_FALSE(s->workorder_by_link("0x0000000000000001/1").has_value());
}

TEST_CASE("store remedy: an unchanged work order keeps its version and adds no outbox item",
          "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  core::WorkOrder o = full_order("L1");
  const int64_t id = s->write({.workorders = {o}, .outbox = true}).workorder_ids.at(0);
  REQUIRE(outbox_rows(db) == 1);

  // Only updated_us (and the ignored id/version) differ: nothing is written.
  core::WorkOrder same = o;
  same.updated_us = kT0 + 5000;
  same.version = 7;
  auto r = s->write({.workorders = {same}, .outbox = true});
  CHECK(r.workorder_ids == std::vector<int64_t>{id});
  auto got = s->workorder(id);
  REQUIRE(got.has_value());
  CHECK(got->version == 1);
  CHECK(got->updated_us == o.updated_us);  // the row was left alone
  CHECK(outbox_rows(db) == 1);
}

TEST_CASE("store remedy: a changed work order bumps its version and adds one outbox item",
          "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  core::WorkOrder o = full_order("L1");
  const int64_t id = s->write({.workorders = {o}, .outbox = true}).workorder_ids.at(0);

  core::WorkOrder changed = o;
  changed.status = "resolved";
  changed.resolved_us = kT0 + 7000;
  changed.updated_us = kT0 + 7000;
  auto r = s->write({.workorders = {changed}, .outbox = true});
  CHECK(r.workorder_ids == std::vector<int64_t>{id});
  auto got = s->workorder(id);
  REQUIRE(got.has_value());
  CHECK(got->version == 2);
  check_same_order(*got, changed);

  auto items = all_outbox(*s);
  REQUIRE(items.size() == 2);
  for (int v = 1; v <= 2; ++v) {
    const core::OutboxItem& it = items[v - 1];
    INFO("version " << v);
    CHECK(it.workorder_id == id);
    CHECK(it.version == v);
    CHECK(it.idempotency_key == std::to_string(id) + "-v" + std::to_string(v));
    CHECK(it.attempts == 0);
    CHECK(it.next_attempt_us == 0);
    CHECK(it.delivered_us == 0);
    CHECK(it.last_error == "");
    auto j = nlohmann::json::parse(it.payload);
    CHECK(j["id"] == id);
    CHECK(j["version"] == v);
    CHECK(j["status"] == (v == 1 ? "in_progress" : "resolved"));
  }
  // The payload is exactly workorder_json() of the stored order at that version.
  CHECK(nlohmann::json::parse(items[1].payload) == store::workorder_json(*got));
}

TEST_CASE("store remedy: without the outbox flag changes bump the version but add no item",
          "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  core::WorkOrder o = full_order("L1");
  const int64_t id = s->write({.workorders = {o}}).workorder_ids.at(0);
  o.offences = 4;
  o.status = "reopened";
  s->write({.workorders = {o}});
  CHECK(s->workorder(id)->version == 2);
  CHECK(outbox_rows(db) == 0);
  // The next change with the flag carries the version it reaches.
  o.assignee = "bob";
  s->write({.workorders = {o}, .outbox = true});
  auto items = all_outbox(*s);
  REQUIRE(items.size() == 1);
  CHECK(items[0].version == 3);
  CHECK(items[0].idempotency_key == std::to_string(id) + "-v3");
}

TEST_CASE("store remedy: opened_us 0 keeps the stored opening time", "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  core::WorkOrder o = full_order("L1");
  const int64_t id = s->write({.workorders = {o}}).workorder_ids.at(0);

  core::WorkOrder update = o;
  update.opened_us = 0;
  update.updated_us = kT0 + 20;
  s->write({.workorders = {update}});
  CHECK(s->workorder(id)->opened_us == kT0);
  CHECK(s->workorder(id)->version == 1);  // with the stored opening time it is unchanged

  update.note = "changed";
  s->write({.workorders = {update}});
  auto got = s->workorder(id);
  CHECK(got->opened_us == kT0);
  CHECK(got->version == 2);
  CHECK(got->updated_us == kT0 + 20);

  // A new order without an opening time opens at its update time.
  core::WorkOrder fresh = full_order("L2");
  fresh.opened_us = 0;
  const int64_t id2 = s->write({.workorders = {fresh}}).workorder_ids.at(0);
  CHECK(s->workorder(id2)->opened_us == fresh.updated_us);
}

TEST_CASE("store remedy: the same link twice in one batch is one order at version 2",
          "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  core::WorkOrder first = full_order("L1");
  core::WorkOrder second = first;
  second.status = "open";
  auto r = s->write({.workorders = {first, second}, .outbox = true});
  REQUIRE(r.workorder_ids.size() == 2);
  CHECK(r.workorder_ids[0] == r.workorder_ids[1]);
  CHECK(s->workorders({}).size() == 1);
  CHECK(s->workorder(r.workorder_ids[0])->version == 2);
  CHECK(outbox_rows(db) == 2);
}

TEST_CASE("store remedy: work-order queries filter by status and page by id", "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  const std::vector<std::string> statuses = {"open",     "in_progress", "resolved",
                                             "verified", "reopened",    "open"};
  store::WriteBatch b;
  for (size_t i = 0; i < statuses.size(); ++i) {
    core::WorkOrder o = full_order("L" + std::to_string(i));
    o.status = statuses[i];
    b.workorders.push_back(o);
  }
  auto ids = s->write(b).workorder_ids;
  REQUIRE(ids.size() == statuses.size());

  auto statuses_of = [](const std::vector<core::WorkOrder>& v) {
    std::vector<std::string> out;
    for (const auto& o : v) out.push_back(o.status);
    return out;
  };
  CHECK(statuses_of(s->workorders({})) == statuses);
  CHECK(statuses_of(s->workorders({.status = "active"})) ==
        std::vector<std::string>{"open", "in_progress", "reopened", "open"});
  CHECK(statuses_of(s->workorders({.status = "open"})) == std::vector<std::string>{"open", "open"});
  CHECK(statuses_of(s->workorders({.status = "verified"})) == std::vector<std::string>{"verified"});
  CHECK(s->workorders({.status = "no such status"}).empty());
  auto page = s->workorders({.status = "active", .after_id = ids[1], .limit = 1});
  REQUIRE(page.size() == 1);
  CHECK(page[0].id == ids[4]);
  CHECK(s->workorders({.after_id = ids[3]}).size() == 2);
}

TEST_CASE("store remedy: disabled ports are upserted by port and removed", "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  s->write({.disabled_add = {{kLeaf, 36, kT0 + 2, 11, "L1"}, {kSpine, 17, kT0 + 1, 10, "L2"}}});
  auto got = s->disabled_ports();
  REQUIRE(got.size() == 2);
  CHECK(got[0].node_guid == kSpine);  // ordered by time
  CHECK(got[0].port == 17);
  CHECK(got[0].time_us == kT0 + 1);
  CHECK(got[0].decision_id == 10);
  CHECK(got[0].link_key == "L2");
  CHECK(got[1].node_guid == kLeaf);  // the top bit survives
  CHECK(got[1].port == 36);

  // Re-adding replaces; removing a port not disabled is harmless; both in one batch.
  s->write({.disabled_add = {{kLeaf, 36, kT0 + 5, 12, "L1b"}},
            .disabled_remove = {{kSpine, 17}, {kSpine, 18}}});
  db.reopen(s, /*read_only=*/true);
  got = s->disabled_ports();
  REQUIRE(got.size() == 1);
  CHECK(got[0].node_guid == kLeaf);
  CHECK(got[0].time_us == kT0 + 5);
  CHECK(got[0].decision_id == 12);
  CHECK(got[0].link_key == "L1b");
}

TEST_CASE("store remedy: compaction drops old decisions and delivered outbox items only",
          "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  store::WriteBatch b;
  b.decisions = {full_decision(0), full_decision(1)};
  b.decisions[1].time_us = kT0 + 10 * 86'400'000'000LL;  // ten days later
  b.workorders = {full_order("L1"), full_order("L2")};
  b.outbox = true;
  s->write(b);
  auto due = s->outbox_due(INT64_MAX, 10);
  REQUIRE(due.size() == 2);
  s->outbox_delivered(due[0].id, kT0 + 1);  // old delivery; due[1] stays pending
  store::Retention r;
  r.event_window_us = 5 * 86'400'000'000LL;
  s->compact(kT0 + 10 * 86'400'000'000LL, r);
  auto left = s->decisions({});
  REQUIRE(left.size() == 1);
  CHECK(left[0].time_us == kT0 + 10 * 86'400'000'000LL);
  CHECK(s->workorders({}).size() == 2);  // orders are never dropped
  auto pending = s->outbox_due(INT64_MAX, 10);
  REQUIRE(pending.size() == 1);
  CHECK(pending[0].id == due[1].id);
}

TEST_CASE("store remedy: disabled ports take the batch's decision id when given none",
          "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  store::WriteBatch b;
  b.decisions = {full_decision(0)};
  b.disabled_add = {{kLeaf, 36, kT0, 0, "L1"}};
  auto res = s->write(b);
  REQUIRE(res.decision_ids.size() == 1);
  CHECK(s->disabled_ports()[0].decision_id == res.decision_ids[0]);
}

TEST_CASE("store remedy: disable_times lists only executed disables since a time",
          "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  auto decision = [](int64_t t, const std::string& action, const std::string& status) {
    core::DecisionRecord d;
    d.time_us = t;
    d.action = action;
    d.status = status;
    return d;
  };
  s->write(
      {.decisions = {
           decision(kT0 + 30, "disable", "executed"), decision(kT0 + 10, "disable", "executed"),
           decision(kT0 + 20, "disable", "dry_run"), decision(kT0 + 21, "disable", "refused"),
           decision(kT0 + 22, "disable", "failed"), decision(kT0 + 23, "enable", "executed"),
           decision(kT0 + 24, "work_order", "executed"),
           decision(kT0 - 10, "disable", "executed")}});
  CHECK(s->disable_times(kT0) == std::vector<int64_t>{kT0 + 10, kT0 + 30});
  CHECK(s->disable_times(kT0 + 10) == std::vector<int64_t>{kT0 + 10, kT0 + 30});
  CHECK(s->disable_times(kT0 + 11) == std::vector<int64_t>{kT0 + 30});
  CHECK(s->disable_times(0).size() == 3);
  CHECK(s->disable_times(kT0 + 31).empty());
}

TEST_CASE("store remedy: outbox items come due and are delivered or retried", "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  store::WriteBatch b{.outbox = true};
  for (int i = 0; i < 3; ++i) b.workorders.push_back(full_order("L" + std::to_string(i)));
  s->write(b);
  auto due = s->outbox_due(kT0, 0);
  REQUIRE(due.size() == 3);
  CHECK(due[0].id < due[1].id);
  CHECK(due[1].id < due[2].id);
  CHECK(s->outbox_due(kT0, 2).size() == 2);

  s->outbox_delivered(due[0].id, kT0 + 1);
  s->outbox_failed(due[1].id, kT0 + 100, "HTTP 503");
  s->outbox_failed(due[1].id, kT0 + 300, "timeout");

  auto now = s->outbox_due(kT0 + 2, 0);
  REQUIRE(now.size() == 1);  // [0] delivered, [1] waits for its next attempt
  CHECK(now[0].id == due[2].id);
  auto later = s->outbox_due(kT0 + 300, 0);
  REQUIRE(later.size() == 2);
  CHECK(later[0].id == due[1].id);
  CHECK(later[0].attempts == 2);
  CHECK(later[0].next_attempt_us == kT0 + 300);
  CHECK(later[0].last_error == "timeout");
  CHECK(later[0].delivered_us == 0);
  CHECK(raw_int(db, "SELECT delivered_us FROM outbox WHERE id = " + std::to_string(due[0].id)) ==
        kT0 + 1);

  s->outbox_delivered(due[1].id, kT0 + 301);
  CHECK(s->outbox_due(kT0 + 1000, 0).size() == 1);

  CHECK_THROWS_WITH(s->outbox_delivered(12345, kT0), Catch::Contains("no outbox item 12345"));
  CHECK_THROWS_WITH(s->outbox_failed(12345, kT0, "x"), Catch::Contains("no outbox item 12345"));
  CHECK_THROWS_AS(s->outbox_delivered(due[2].id, 0), StoreError);
}

TEST_CASE("store remedy: a read-only store reads every record and refuses outbox updates",
          "[store][remedy]") {
  STORE_BACKEND(backend);
  auto db = open_test_store(backend);
  const std::string key = core::link_key(kLeaf, 36, kSpine, 17);
  {
    auto s = db.open();
    s->write({.decisions = {full_decision(1)},
              .workorders = {full_order(key)},
              .outbox = true,
              .disabled_add = {{kLeaf, 36, kT0, 1, key}}});
  }
  auto ro = db.open(/*read_only=*/true);
  CHECK(ro->decisions({.link_key = key}).size() == 1);
  CHECK(ro->workorders({.status = "active"}).size() == 1);
  auto o = ro->workorder_by_link(key);
  REQUIRE(o.has_value());
  CHECK(ro->workorder(o->id).has_value());
  CHECK(ro->disabled_ports().size() == 1);
  CHECK(ro->disable_times(0) == std::vector<int64_t>{kT0 + 1});
  auto due = ro->outbox_due(kT0, 10);
  REQUIRE(due.size() == 1);
  CHECK_THROWS_WITH(ro->outbox_delivered(due[0].id, kT0), Catch::Contains("read-only"));
  CHECK_THROWS_WITH(ro->outbox_failed(due[0].id, kT0, "x"), Catch::Contains("read-only"));
  CHECK_THROWS_WITH(ro->write({.decisions = {full_decision(2)}}), Catch::Contains("read-only"));
  CHECK(ro->outbox_due(kT0, 10).at(0).attempts == 0);
}

TEST_CASE("store remedy: a batch failing midway leaves neither order nor outbox item",
          "[store][remedy]") {
  // SQLite only: the failure hook (fail_write_after_rows_for_testing) is SqliteStore's.
  TempDir dir;
  const std::string path = dir.file("w.db");
  store::SqliteStore s(path, {});
  core::WorkOrder existing = full_order("L0");
  s.write({.workorders = {existing}, .outbox = true, .disabled_add = {{kLeaf, 1, kT0, 1, "L0"}}});

  core::WorkOrder changed = existing;
  changed.status = "resolved";
  store::WriteBatch b{.events = {full_event(1)},
                      .cursors = {{"opensm", "2"}},
                      .decisions = {full_decision(1), full_decision(2)},
                      .workorders = {full_order("L1"), changed},
                      .outbox = true,
                      .disabled_add = {{kSpine, 2, kT0, 2, "L1"}},
                      .disabled_remove = {{kLeaf, 1}}};
  // Rows: event 1, cursor 2, decisions 3-4, new order 5 and its outbox item 6, changed order 7
  // and its outbox item 8, disabled_add 9, disabled_remove 10.
  for (size_t fail_at : {2, 3, 5, 6, 7, 8, 9, 10}) {
    INFO("failing after row " << fail_at);
    s.fail_write_after_rows_for_testing(fail_at);
    CHECK_THROWS_WITH(s.write(b), Catch::Contains("injected failure"));
    CHECK(event_count(s) == 0);
    CHECK_FALSE(s.cursor("opensm").has_value());
    CHECK(s.decisions({}).empty());
    auto orders = s.workorders({});
    REQUIRE(orders.size() == 1);
    CHECK(orders[0].status == existing.status);
    CHECK(orders[0].version == 1);
    CHECK(outbox_rows(path) == 1);
    auto disabled = s.disabled_ports();
    REQUIRE(disabled.size() == 1);
    CHECK(disabled[0].node_guid == kLeaf);
  }
  // The store stays usable, and the same batch then lands whole.
  auto r = s.write(b);
  CHECK(r.decision_ids.size() == 2);
  CHECK(r.workorder_ids.size() == 2);
  CHECK(s.workorders({}).size() == 2);
  CHECK(s.workorder_by_link("L0")->version == 2);
  CHECK(outbox_rows(path) == 3);
  auto disabled = s.disabled_ports();
  REQUIRE(disabled.size() == 1);
  CHECK(disabled[0].node_guid == kSpine);
}

TEST_CASE("store remedy: a work order without link_key fails the whole batch", "[store][remedy]") {
  STORE_UNDER_TEST(db, s);
  core::WorkOrder o = full_order("");
  CHECK_THROWS_WITH(s->write({.cursors = {{"opensm", "1"}}, .workorders = {o}}),
                    Catch::Contains("without link_key"));
  CHECK_FALSE(s->cursor("opensm").has_value());
  CHECK(s->workorders({}).empty());
}

TEST_CASE("store remedy: a version-1 store is migrated and keeps its data", "[store][remedy]") {
  // SQLite only: legacy files (PostgreSQL stores start at the current schema).
  TempDir dir;
  const std::string path = dir.file("v1.db");
  const std::set<std::string> v1_tables = {
      "events", "ports", "samples", "sample_aggregates", "cursors", "sqlite_sequence"};
  {
    auto s = Store::open(path);
    s->write({.events = {full_event(1), full_event(2)},
              .ports = {full_port(0x10, 1, "a")},
              .cursors = {{"opensm", "inode:1:offset:100"}}});
  }
  // Take the file back to what migration 1 alone creates.
  undo_port_state(path);
  raw_exec(path,
           "DROP TABLE decisions; DROP TABLE workorders; DROP TABLE outbox; "
           "DROP TABLE disabled_ports; DROP TABLE ufm_ports; " +
               std::string(kUndoPackedSamples) + "PRAGMA user_version = 1");
  REQUIRE(table_names(path) == v1_tables);
  REQUIRE(store::schema::latest_version() >= 2);

  // Read-only opens do not migrate.
  CHECK_THROWS_WITH(Store::open(path, true), Catch::Contains("older") && Catch::Contains(path));
  CHECK(raw_int(path, "PRAGMA user_version") == 1);

  auto s = Store::open(path);
  CHECK(s->schema_version() == store::schema::latest_version());
  CHECK(raw_int(path, "PRAGMA application_id") == store::schema::kApplicationId);
  auto events = s->events({});
  REQUIRE(events.size() == 2);
  check_same_event(events[0].event, full_event(1));
  check_same_event(events[1].event, full_event(2));
  REQUIRE(s->ports().size() == 1);
  check_same_port(s->ports()[0], full_port(0x10, 1, "a"));
  CHECK(s->cursor("opensm") == "inode:1:offset:100");

  // The new tables work, and new events continue the id sequence.
  auto r = s->write({.events = {full_event(3)},
                     .decisions = {full_decision(1)},
                     .workorders = {full_order("L1")},
                     .outbox = true});
  CHECK(r.event_ids.at(0) > events[1].id);
  CHECK(r.decision_ids.at(0) > 0);
  CHECK(r.workorder_ids.at(0) > 0);
  CHECK(all_outbox(*s).size() == 1);
  s.reset();
  auto ro = Store::open(path, true);
  CHECK(ro->decisions({}).size() == 1);
}

TEST_CASE("store remedy: link_key puts the smaller end first and handles an unknown peer",
          "[store][remedy]") {
  const std::string both = "0x0002c90200404f80/17~0xfe80000000000003/36";
  CHECK(core::link_key(kLeaf, 36, kSpine, 17) == both);
  CHECK(core::link_key(kSpine, 17, kLeaf, 36) == both);
  CHECK(core::link_key(kLeaf, 36, 0, 0) == "0xfe80000000000003/36");
  CHECK(core::link_key(0, 0, kLeaf, 36) == "0xfe80000000000003/36");
  // Same GUID (a loopback cable between two ports of one switch): ordered by port.
  CHECK(core::link_key(0x10, 9, 0x10, 2) == "0x0000000000000010/2~0x0000000000000010/9");
}

TEST_CASE("store remedy: decision_json has exactly the contract fields", "[store][remedy]") {
  core::DecisionRecord d = full_decision(0);
  d.id = 7;
  auto j = store::decision_json(d);
  std::set<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.insert(it.key());
  CHECK(keys == std::set<std::string>{"id", "time", "rule", "node", "node_guid", "port",
                                      "peer_node", "peer_port", "cable_id", "action", "status",
                                      "reason", "evidence"});
  CHECK(j["id"] == 7);
  CHECK(j["time"] == "2023-11-14T22:13:20.123456Z");
  CHECK(j["node_guid"] == "0xfe80000000000003");
  CHECK(j["port"] == 36);
  CHECK(j["peer_node"] == "spine001");
  CHECK(j["peer_port"] == 17);
  CHECK(j["action"] == "disable");
  CHECK(j["status"] == "executed");
  CHECK(j["reason"] == d.reason);
  CHECK(j["evidence"] == nlohmann::json{{"SymbolErrorCounter", 120}, {"readback", "Disabled"}});

  for (const char* bad : {"", "not json", "[1,2]", "42"}) {
    INFO("evidence " << bad);
    d.evidence_json = bad;
    CHECK(store::decision_json(d)["evidence"] == nlohmann::json::object());
  }
  d.node_guid = 0;
  d.time_us = 0;
  CHECK(store::decision_json(d)["node_guid"] == "");
  CHECK(store::decision_json(d)["time"] == "");
}

TEST_CASE("store remedy: workorder_json has the contract fields and the extras",
          "[store][remedy]") {
  core::WorkOrder o = full_order(core::link_key(kLeaf, 36, kSpine, 17));
  o.id = 5;
  o.version = 3;
  auto j = store::workorder_json(o);
  for (const char* k : {"id",
                        "cable_id",
                        "a",
                        "b",
                        "locations",
                        "status",
                        "rule",
                        "summary",
                        "offences",
                        "opened",
                        "updated",
                        "severity",
                        "advice",
                        "needs_human",
                        "port_disabled",
                        "assignee",
                        "note",
                        "resolved",
                        "version",
                        "link_key",
                        "evidence",
                        "a_guid",
                        "b_guid",
                        "affected_hosts",
                        "affected_jobs"}) {
    INFO("key " << k);
    CHECK(j.contains(k));
  }
  CHECK(j.size() == 25);
  CHECK(j["id"] == 5);
  CHECK(j["a"] == "leaf003/36");
  CHECK(j["b"] == "spine001/17");
  CHECK(j["locations"] == nlohmann::json::array({"R12-U40", "R20-U10"}));
  CHECK(j["status"] == "in_progress");
  CHECK(j["offences"] == 3);
  CHECK(j["opened"] == "2023-11-14T22:13:20.123456Z");
  CHECK(j["updated"] == "2023-11-14T22:13:20.123466Z");
  CHECK(j["resolved"].is_null());
  CHECK(j["version"] == 3);
  CHECK(j["needs_human"] == true);
  CHECK(j["port_disabled"] == true);
  CHECK(j["evidence"] == nlohmann::json{{"SymbolErrorCounter", 120}});
  CHECK(j["a_guid"] == "0xfe80000000000003");
  CHECK(j["b_guid"] == "0x0002c90200404f80");

  // Unknown peer, a missing name and a missing location.
  o.a.node = "";
  o.a.location = "";
  o.b = {};
  o.resolved_us = kT0 + 1'000'000;
  j = store::workorder_json(o);
  CHECK(j["a"] == "0xfe80000000000003/36");
  CHECK(j["b"] == "");
  CHECK(j["b_guid"] == "");
  CHECK(j["locations"] == nlohmann::json::array());
  CHECK(j["resolved"] == "2023-11-14T22:13:21.123456Z");
  o.b.location = "R20-U10";
  CHECK(store::workorder_json(o)["locations"] == nlohmann::json::array({"R20-U10"}));
}

TEST_CASE("store remedy: a conditional order write loses to a concurrent change and writes nothing",
          "[store][remedy]") {
  STORE_UNDER_TEST(db, web);
  auto worker = db.open();
  core::WorkOrder o = full_order("L1");
  const int64_t id = worker->write({.workorders = {o}, .outbox = true}).workorder_ids.at(0);

  // The web reads version 1, the action worker reopens the order (version 2) meanwhile.
  core::WorkOrder read = *web->workorder(id);
  REQUIRE(read.version == 1);
  core::WorkOrder reopened = *worker->workorder(id);
  reopened.status = "reopened";
  reopened.offences = 2;
  reopened.port_disabled = true;
  reopened.updated_us = kT0 + 5000;
  worker->write({.workorders = {reopened}, .outbox = true});

  core::WorkOrder patch = read;
  patch.note = "taken by night shift";
  patch.updated_us = kT0 + 6000;
  core::DecisionRecord d;
  d.time_us = kT0 + 6000;
  d.rule = "manual";
  d.action = "note";
  d.status = "executed";
  d.link_key = "L1";
  CHECK_THROWS_AS(
      web->write(
          {.decisions = {d}, .workorders = {patch}, .workorders_if_version = true, .outbox = true}),
      store::StoreConflict);
  auto now = *web->workorder(id);
  CHECK(now.version == 2);
  CHECK(now.status == "reopened");  // the reopen is not overwritten
  CHECK(now.offences == 2);
  CHECK(now.note == o.note);
  CHECK(all_outbox(*web).size() == 2);  // no item for the lost write
  CHECK(web->decisions({}).empty());    // the whole batch was rolled back

  // Read again, apply, write: the note lands on top of the reopen.
  patch = now;
  patch.note = "taken by night shift";
  web->write({.workorders = {patch}, .workorders_if_version = true, .outbox = true});
  now = *web->workorder(id);
  CHECK(now.version == 3);
  CHECK(now.status == "reopened");
  CHECK(now.note == "taken by night shift");
}

TEST_CASE("store remedy: an order's affected jobs are stored and null when not known",
          "[store][remedy][slurm]") {
  STORE_UNDER_TEST(db, s);
  core::WorkOrder with_jobs = full_order("L1");
  core::WorkOrder without = full_order("L2");
  without.affected_json = "";  // Slurm not configured
  auto r = s->write({.workorders = {with_jobs, without}});
  REQUIRE(r.workorder_ids.size() == 2);
  db.reopen(s, /*read_only=*/true);
  auto a = s->workorder(r.workorder_ids[0]);
  auto b = s->workorder(r.workorder_ids[1]);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(b->affected_json.empty());
  nlohmann::json ja = store::workorder_json(*a);
  CHECK(ja["affected_hosts"] == 4);
  REQUIRE(ja["affected_jobs"].size() == 1);
  CHECK(ja["affected_jobs"][0]["id"] == "17");
  CHECK(ja["affected_jobs"][0]["user"] == "bob");
  CHECK(ja["affected_jobs"][0]["nodes"] == 2);
  nlohmann::json jb = store::workorder_json(*b);
  CHECK(jb["affected_hosts"].is_null());
  CHECK(jb["affected_jobs"].is_null());
}
