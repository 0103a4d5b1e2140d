// The publish sequence (daemon/source.cpp) notes OpenSM's state lines on the SM board as their
// sm_state events pass, as it notes heavy sweeps: the board's logged state, and its sequence
// the SM watcher naps on.
#include <catch2/catch.hpp>

#include <atomic>

#include "daemon/source.h"
#include "ingest/opensm_log.h"

using namespace ibw;

namespace {

ingest::Event event_of(const char* line) {
  auto r = ingest::parse_opensm_line(line, {1'795'827'600'000'000, 0});  // 2026-11-28T01:00Z
  REQUIRE(r);
  auto e = ingest::to_event(*r);
  REQUIRE(e);
  return *e;
}

}  // namespace

TEST_CASE("SourceContext push notes OpenSM's logged state on the SM board",
          "[daemon][sm_watch][sm_state]") {
  daemon::FabricState fab;
  daemon::BatchQueue queue(8);
  std::atomic<bool> running{true}, acting{true};
  daemon::SourceDeps deps;
  deps.fabric = &fab, deps.queue = &queue, deps.running = &running, deps.acting = &acting;
  daemon::SourceContext ctx(deps);

  store::WriteBatch batch;  // as the OpenSM watcher pushes lines of sm-state-standby.log
  batch.events.push_back(
      event_of("Nov 28 00:21:36 898465 [1FACB6C0] 0x80 -> Entering MASTER state"));
  batch.events.push_back(event_of("Nov 28 00:21:36 902979 [1FACB6C0] 0x02 -> SUBNET UP"));
  REQUIRE(ctx.push(std::move(batch)));
  auto j = fab.sm.json();
  CHECK(j["log_state"]["state"] == "master");
  CHECK(j["log_state"]["at"] == "2026-11-28T00:21:36.898465Z");
  CHECK(j["last_sweep"] == "2026-11-28T00:21:36.902979Z");
  CHECK(fab.sm.log_seq() == 1);

  store::WriteBatch next;
  next.events.push_back(
      event_of("Nov 28 00:21:41 708299 [1FACB6C0] 0x80 -> Entering STANDBY state"));
  REQUIRE(ctx.push(std::move(next)));
  CHECK(fab.sm.json()["log_state"]["state"] == "standby");
  CHECK(fab.sm.log_seq() == 2);
  CHECK(queue.size() == 2);  // the events still go to the store
}
