// PostgreSQL store, remediation across processes (store/pg_intent.cpp, pg_remedy.cpp):
// guarded writes of two stores on one fabric serialize (a check-then-intent race cannot pass
// a cap twice), so do plain writes of one new work order, a fenced store that lost its lease
// decides and writes nothing, and two fabrics in one database keep their records apart.
// Each test case gets its own database on the test server (tests/lab/pg_server.h).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "store/store.h"
#include "tests/lab/pg_server.h"

using namespace ibw;
using store::Store;

namespace pg_remedy_test {

constexpr int64_t kT0 = 1'700'000'000'000'000;

std::unique_ptr<Store> open_pg(const std::string& url, const std::string& fabric,
                               std::optional<store::Fence> fence = std::nullopt) {
  store::StoreSpec spec;
  spec.backend = "postgres";
  spec.url = url;
  spec.fabric = fabric;
  spec.fence = std::move(fence);
  return Store::open(spec);
}

core::DecisionRecord disable(int64_t t, const std::string& dedup) {
  core::DecisionRecord d;
  d.time_us = t;
  d.rule = "race";
  d.action = "disable";
  d.status = "executed";
  d.link_key = "L" + dedup;
  d.dedup_key = dedup;
  return d;
}

core::WorkOrder order(const std::string& link_key, const std::string& note) {
  core::WorkOrder o;
  o.link_key = link_key;
  o.a = {0x10, "leaf", 1, ""};
  o.note = note;
  o.opened_us = kT0;
  o.updated_us = kT0;
  return o;
}

// Runs fn(i) on n threads at once (each with its own store) and waits for them.
template <typename Fn>
void on_threads(int n, Fn fn) {
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) threads.emplace_back(fn, i);
  for (auto& t : threads) t.join();
}

}  // namespace pg_remedy_test

using namespace pg_remedy_test;

TEST_CASE("pg store remedy: guarded writes of two stores on one fabric never pass a cap together",
          "[store][remedy][pg]") {
  const std::string url = lab::pg_test_database();
  open_pg(url, "f1");  // migrated before the racers start
  constexpr int kCap = 3, kThreads = 4, kAttempts = 4;
  std::atomic<int> stored{0}, errors{0};
  on_threads(kThreads, [&](int t) {
    try {
      auto s = open_pg(url, "f1");
      for (int a = 0; a < kAttempts; ++a) {
        auto r = s->write_guarded([&]() -> std::optional<store::WriteBatch> {
          const size_t done = s->disable_times(0).size();
          // The window a racer would slip through: the check is made, the intent not yet.
          std::this_thread::sleep_for(std::chrono::milliseconds(15));
          if (done >= kCap) return std::nullopt;
          const std::string key = std::to_string(t) + "-" + std::to_string(a);
          return store::WriteBatch{.decisions = {disable(kT0 + t * 100 + a, key)}};
        });
        if (!r.decision_ids.empty() && r.decision_ids[0] > 0) ++stored;
      }
    } catch (const std::exception& e) {
      UNSCOPED_INFO("racer: " << e.what());
      ++errors;
    }
  });
  CHECK(errors == 0);
  CHECK(stored == kCap);
  auto s = open_pg(url, "f1");
  CHECK(s->disable_times(0).size() == static_cast<size_t>(kCap));
}

TEST_CASE("pg store remedy: concurrent writes of one new work order make one order",
          "[store][remedy][pg]") {
  const std::string url = lab::pg_test_database();
  open_pg(url, "f1");
  constexpr int kThreads = 4;
  std::atomic<int> errors{0};
  std::vector<int64_t> ids(kThreads);
  on_threads(kThreads, [&](int t) {
    try {
      auto s = open_pg(url, "f1");
      ids[t] = s->write({.workorders = {order("L1", "by " + std::to_string(t))}, .outbox = true})
                   .workorder_ids.at(0);
    } catch (const std::exception& e) {
      UNSCOPED_INFO("writer: " << e.what());
      ++errors;
    }
  });
  REQUIRE(errors == 0);
  auto s = open_pg(url, "f1");
  auto orders = s->workorders({});
  REQUIRE(orders.size() == 1);
  for (int64_t id : ids) CHECK(id == orders[0].id);
  // Each writer after the first changed the note: one version and one outbox item each.
  CHECK(orders[0].version == kThreads);
  auto items = s->outbox_due(std::numeric_limits<int64_t>::max(), 0);
  REQUIRE(items.size() == static_cast<size_t>(kThreads));
  for (int v = 1; v <= kThreads; ++v) CHECK(items[v - 1].version == v);
}

TEST_CASE("pg store remedy: a fenced store that lost its lease decides and writes nothing",
          "[store][remedy][pg]") {
  const std::string url = lab::pg_test_database();
  auto admin = open_pg(url, "f1");
  store::Lease l = admin->take_lease("a", 0, 1'000'000, "[]");
  REQUIRE(l.holder == "a");
  auto a = open_pg(url, "f1", store::Fence{"a", l.epoch});
  bool decided = false;
  auto guarded = [&]() -> std::optional<store::WriteBatch> {
    decided = true;
    return store::WriteBatch{.decisions = {disable(kT0, "x")},
                             .disabled_add = {{0x10, 1, kT0, 0, "Lx"}}};
  };
  // While it holds the lease its writes land.
  CHECK(a->write_guarded(guarded).decision_ids.at(0) > 0);
  CHECK(decided);
  REQUIRE(a->write({.workorders = {order("L1", "")}, .outbox = true}).workorder_ids.size() == 1);
  const int64_t item = a->outbox_due(std::numeric_limits<int64_t>::max(), 0).at(0).id;

  // The lease runs out and b takes the fabric over.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  store::Lease taken = admin->take_lease("b", 0, 60'000'000, "[]");
  REQUIRE(taken.holder == "b");
  REQUIRE(taken.epoch == l.epoch + 1);

  decided = false;
  CHECK_THROWS_AS(a->write_guarded(guarded), store::StoreFenced);
  CHECK_FALSE(decided);  // the guard never ran on a stale view
  CHECK_THROWS_AS(a->write({.decisions = {disable(kT0 + 1, "y")}}), store::StoreFenced);
  CHECK_THROWS_AS(a->outbox_delivered(item, kT0), store::StoreFenced);
  CHECK_THROWS_AS(a->outbox_failed(item, kT0, "x"), store::StoreFenced);
  auto reader = open_pg(url, "f1");
  CHECK(reader->decisions({}).size() == 1);
  CHECK(reader->disabled_ports().size() == 1);
  CHECK(reader->outbox_due(kT0, 0).at(0).attempts == 0);

  // The new holder writes.
  auto b = open_pg(url, "f1", store::Fence{"b", taken.epoch});
  CHECK(b->write_guarded(guarded).decision_ids.size() == 1);
  b->outbox_delivered(item, kT0);
  CHECK(reader->outbox_due(kT0, 0).empty());
}

TEST_CASE("pg store remedy: two fabrics in one database keep their records apart",
          "[store][remedy][pg]") {
  const std::string url = lab::pg_test_database();
  auto east = open_pg(url, "east");
  auto west = open_pg(url, "west");
  // The same link key, dedup key and port in both fabrics.
  core::DecisionRecord pending = disable(kT0, "same");
  pending.status = "pending";
  auto e = east->write({.decisions = {pending},
                        .workorders = {order("L1", "east")},
                        .outbox = true,
                        .disabled_add = {{0x10, 1, kT0, 0, "L1"}}});
  auto w = west->write({.decisions = {pending, disable(kT0 + 1, "w2")},
                        .workorders = {order("L1", "west")},
                        .outbox = true,
                        .disabled_add = {{0x10, 1, kT0 + 5, 0, "L1"}}});
  REQUIRE(e.decision_ids.at(0) > 0);
  REQUIRE(w.decision_ids.at(0) > 0);  // not a duplicate of east's
  REQUIRE(w.workorder_ids.at(0) != e.workorder_ids.at(0));

  CHECK(east->decisions({}).size() == 1);
  CHECK(west->decisions({}).size() == 2);
  CHECK(east->pending_decisions().size() == 1);
  CHECK(east->disable_times(0).size() == 1);
  CHECK(west->disable_times(0).size() == 2);
  CHECK(east->workorder_by_link("L1")->note == "east");
  CHECK(west->workorder_by_link("L1")->note == "west");
  CHECK_FALSE(east->workorder(w.workorder_ids[0]).has_value());
  REQUIRE(east->workorders({}).size() == 1);
  CHECK(east->disabled_ports().at(0).time_us == kT0);
  CHECK(west->disabled_ports().at(0).time_us == kT0 + 5);
  CHECK(west->disabled_ports().at(0).decision_id == w.decision_ids[1]);

  // Completing, delivering and removing in one fabric leaves the other alone.
  core::DecisionRecord done = pending;
  done.id = w.decision_ids[0];  // west's id, completed through east: no such decision there
  done.status = "executed";
  east->write({.decisions_completed = {done}, .disabled_remove = {{0x10, 1}}});
  CHECK(west->pending_decisions().size() == 1);
  CHECK(east->pending_decisions().size() == 1);
  CHECK(east->disabled_ports().empty());
  CHECK(west->disabled_ports().size() == 1);
  const int64_t west_item = west->outbox_due(kT0, 0).at(0).id;
  CHECK_THROWS_WITH(east->outbox_delivered(west_item, kT0), Catch::Contains("no outbox item"));
  CHECK(east->outbox_backlog().pending == 1);
  CHECK(west->outbox_backlog().pending == 1);
  west->outbox_failed(west_item, kT0, "HTTP 503");
  CHECK(west->outbox_backlog().failing == 1);
  CHECK(east->outbox_backlog().failing == 0);
}
