// Intent before action (actions/remedy.h): the pending decision stored with the guard's check
// before a port request and completed after it; a kill -9 while the request is on the wire,
// reconciled from the port's real state; an outcome the port never answered, left pending and
// reconciled once no longer in flight; processes racing the guard never passing a cap.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "tests/unit/test_remedy_helpers.h"

using namespace remedy_flow_test;

namespace remedy_intent_test {

// Runs fn in a child process (its own store connection); the child ends with _exit(fn()).
template <typename Fn>
pid_t in_child(Fn fn) {
  pid_t pid = ::fork();
  if (pid == 0) {
    int code = 3;
    try {
      code = fn();
    } catch (...) {
    }
    ::_exit(code);
  }
  return pid;
}

// A manual disable in a child that is killed (SIGKILL) while its request is on the wire.
void crash_during_disable(const std::string& path, const RemedyContext& ctx, uint64_t guid,
                          int port) {
  pid_t pid = in_child([&] {
    auto db = store::Store::open(path);
    FakeExecutor exec;
    exec.during = [] { ::kill(::getpid(), SIGKILL); };
    RemedyConfig c;
    c.guard.mode = GuardMode::enforce;
    Remediator r(c, *db, &exec);
    r.manual(PortAction::disable, guid, port, "flapping", false, ctx, kNow);
    return 0;
  });
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
}

}  // namespace remedy_intent_test

using namespace remedy_intent_test;

TEST_CASE("remedy: the intent is stored before the port request and completed after", "[remedy]") {
  Bench b;
  auto r = b.remediator();
  auto other = store::Store::open(b.dir.file("s.db"));  // another process's view
  size_t pending_seen = 0, disabled_seen = 0, counted = 0;
  b.exec.during = [&] {
    pending_seen = other->pending_decisions().size();
    disabled_seen = other->disabled_ports().size();
    counted = other->disable_times(0).size();
  };
  auto d = r.on_finding(symbol_errors(leaf_guid(0), 3, kNow), b.ctx, kNow);
  REQUIRE(d);
  CHECK(d->status == "executed");
  CHECK(pending_seen == 1);   // on the wire: recorded as pending,
  CHECK(disabled_seen == 1);  // its port counted as disabled
  CHECK(counted == 1);        // and as an action of the hour
  CHECK(other->pending_decisions().empty());
  auto all = other->decisions({});
  REQUIRE(all.size() == 1);  // completed in place, not a second record
  CHECK(all[0].id == d->id);
  CHECK(all[0].status == "executed");
  // A failed request gives its row back.
  b.exec.fail = true;
  auto m = r.manual(PortAction::disable, leaf_guid(1), 4, "flapping", false, b.ctx, kNow);
  INFO(m.reason);
  CHECK(m.status == "failed");
  CHECK(pending_seen == 1);
  CHECK(disabled_seen == 2);
  CHECK(b.db->disabled_ports().size() == 1);
  CHECK(b.db->pending_decisions().empty());
}

TEST_CASE("remedy: a kill -9 during the request is reconciled from the port's state", "[remedy]") {
  Bench b;
  const std::string path = b.dir.file("s.db");
  b.db->disabled_ports();  // the schema exists before the children start
  crash_during_disable(path, b.ctx, leaf_guid(0), 3);
  crash_during_disable(path, b.ctx, leaf_guid(1), 4);  // (each spine keeps a link)
  REQUIRE(b.db->pending_decisions().size() == 2);
  CHECK(b.db->disabled_ports().size() == 2);  // counted against the caps meanwhile
  CHECK(b.db->workorders({}).empty());
  auto r = b.remediator(GuardMode::enforce, 8);
  size_t left = 9;
  b.exec.reading = {1, 3};  // Down, Disabled: the requests reached the switches
  auto done = r.reconcile(b.ctx, kNow + kSecond, &left);
  REQUIRE(done.size() == 2);
  CHECK(left == 0);
  for (const auto& d : done) {
    CHECK(d.status == "executed");
    CHECK(d.reason.find("reconciled at start") != std::string::npos);
    CHECK(nlohmann::json::parse(d.evidence_json)["reconciled"]["readback"]["phys_state"] ==
          "Disabled");
  }
  CHECK(b.db->pending_decisions().empty());
  CHECK(b.db->decisions({}).size() == 2);  // one decision per disabled port
  CHECK(b.db->disabled_ports().size() == 2);
  auto orders = b.db->workorders({});
  REQUIRE(orders.size() == 2);  // the orders the crash kept from being made
  for (const auto& o : orders) CHECK(o.port_disabled);

  // The port cannot be read: it stays pending. Then it reads up: the Set never happened.
  crash_during_disable(path, b.ctx, leaf_guid(0), 5);
  b.exec.unreadable = true;
  CHECK(r.reconcile(b.ctx, kNow, &left).empty());
  CHECK(left == 1);
  CHECK(b.db->pending_decisions().size() == 1);
  b.exec.unreadable = false;
  b.exec.reading = {4, 5};  // Active, LinkUp
  auto failed = r.reconcile(b.ctx, kNow, &left);
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].status == "failed");
  CHECK(left == 0);
  CHECK(b.db->disabled_ports().size() == 2);  // its row is gone, the others stay
  CHECK(b.db->pending_decisions().empty());
}

TEST_CASE("remedy: an outcome the port never answered stays pending until it is read back",
          "[remedy]") {
  Bench b;
  auto r = b.remediator();
  b.exec.unknown = true;  // a lossy link: the Set may have been applied, its reply was lost
  auto d = r.on_finding(symbol_errors(leaf_guid(0), 3, kNow), b.ctx, kNow);
  REQUIRE(d);
  INFO(d->reason);
  CHECK(d->status == "pending");
  CHECK(d->reason.find("disable outcome unknown") != std::string::npos);
  CHECK(b.db->pending_decisions().size() == 1);
  CHECK(b.db->disabled_ports().size() == 1);  // still counted against the caps
  auto orders = b.db->workorders({});
  REQUIRE(orders.size() == 1);
  CHECK(orders[0].needs_human);
  CHECK_FALSE(orders[0].port_disabled);
  CHECK(orders[0].summary.find("outcome unknown") != std::string::npos);

  // While it may still be in flight, a running process leaves it alone.
  b.exec.unknown = false;
  b.exec.reading = {1, 3};  // Down, Disabled: the Set had reached the switch
  size_t left = 9;
  int64_t now = kNow + Remediator::kInFlightUs / 2;
  CHECK(r.reconcile(b.ctx, now, &left, now - Remediator::kInFlightUs).empty());
  CHECK(left == 0);
  CHECK(b.db->pending_decisions().size() == 1);
  now = kNow + Remediator::kInFlightUs + kSecond;
  auto done = r.reconcile(b.ctx, now, &left, now - Remediator::kInFlightUs);
  REQUIRE(done.size() == 1);
  CHECK(done[0].id == d->id);
  CHECK(done[0].status == "executed");
  CHECK(done[0].reason.find("disable done: the outcome was not known; reconciled later") !=
        std::string::npos);
  CHECK(b.db->pending_decisions().empty());
  CHECK(b.db->disabled_ports().size() == 1);
  orders = b.db->workorders({});
  REQUIRE(orders.size() == 1);
  CHECK(orders[0].port_disabled);  // the technician's order says the link is out
}

TEST_CASE("remedy: processes racing the guard never pass a cap together", "[remedy]") {
  Bench b;
  const std::string path = b.dir.file("s.db");
  b.db->disabled_ports();
  constexpr int kCap = 2, kProcesses = 8;
  std::vector<pid_t> children;
  // Eight processes each disable another leaf uplink at once, under a cap of two in total
  // (leaf000/k and leaf001/k share a spine: the second of a pair is also a hard refusal).
  for (int i = 0; i < kProcesses; ++i)
    children.push_back(in_child([&, i] {
      auto db = store::Store::open(path);
      FakeExecutor exec;
      exec.during = [] { ::usleep(50'000); };  // the request takes a while
      RemedyConfig c;
      c.guard.mode = GuardMode::enforce;
      c.guard.max_disabled_total = kCap;
      c.guard.max_disabled_per_switch = 8;
      c.guard.max_actions_per_hour = 100;
      c.guard.min_up_links = 0;
      Remediator r(c, *db, &exec);
      auto d =
          r.manual(PortAction::disable, leaf_guid(i % 2), 3 + i / 2, "race", false, b.ctx, kNow);
      return d.status == "executed" ? 0 : d.status == "refused" ? 1 : 2;
    }));
  int executed = 0, refused = 0;
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    REQUIRE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 0) ++executed;
    if (WEXITSTATUS(status) == 1) ++refused;
  }
  CHECK(executed == kCap);
  CHECK(refused == kProcesses - kCap);
  CHECK(b.db->disabled_ports().size() == static_cast<size_t>(kCap));
  CHECK(b.db->pending_decisions().empty());
}
