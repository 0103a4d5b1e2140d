// SmBoard: the hold reason (no master, unknown, off) and the state JSON the web API and
// `ibwarden status` show.
#include <catch2/catch.hpp>

#include "daemon/sm_board.h"
#include "ingest/sm_tracker.h"

using namespace ibw;

namespace {

nlohmann::ordered_json view_with(std::vector<fabric::SmInfo> answers, int polls = 1) {
  ingest::SmTracker t;
  for (int i = 0; i < polls; ++i) t.update({1'000'000LL * (i + 1), 1, answers});
  return t.to_json();
}

}  // namespace

TEST_CASE("SmBoard holds while it cannot tell and without a master", "[daemon][sm_watch]") {
  daemon::SmBoard b;
  b.configure(true);
  REQUIRE(b.hold_reason());  // before the first poll: conservative
  CHECK(b.hold_reason()->find("unknown") != std::string::npos);
  CHECK(b.json()["status"] == "unknown");

  b.publish(view_with({{0x100001, 1, 0, fabric::SmState::master, 5}}));
  CHECK_FALSE(b.hold_reason());
  auto j = b.json();
  CHECK(j["watch"] == "on");
  CHECK(j["status"] == "master");
  CHECK(j["master"]["guid"] == "0x0000000000100001");
  CHECK(j["last_sweep"].is_null());
  b.note_sweep(2'000'000);
  CHECK(b.json()["last_sweep"] == "1970-01-01T00:00:02.000000Z");

  b.publish(view_with({}, 2));  // two silent polls: no master
  REQUIRE(b.hold_reason());
  CHECK(*b.hold_reason() == "no master SM");
  CHECK(b.json()["master"].is_null());

  b.fail("cannot open the local port");  // the watcher fails: held, and says why
  REQUIRE(b.hold_reason());
  CHECK(b.hold_reason()->find("cannot open the local port") != std::string::npos);
  CHECK(b.json()["status"] == "unknown");
}

TEST_CASE("SmBoard off holds nothing and says why", "[daemon][sm_watch]") {
  daemon::SmBoard b;
  b.configure(false, "sm_watch.enabled is false");
  CHECK_FALSE(b.hold_reason());
  auto j = b.json();
  CHECK(j["watch"] == "off");
  CHECK(j["detail"] == "sm_watch.enabled is false");
  CHECK(j["master"].is_null());
}

TEST_CASE("SmBoard keeps OpenSM's logged state - shown and never a hold", "[daemon][sm_watch]") {
  daemon::SmBoard b;
  b.configure(true);
  b.publish(view_with({{0x100001, 1, 0, fabric::SmState::master, 5}}));
  CHECK(b.json()["log_state"].is_null());
  CHECK(b.log_seq() == 0);

  b.note_log_state("exiting", 3'000'000);
  CHECK(b.log_seq() == 1);
  auto j = b.json();
  CHECK(j["log_state"]["state"] == "exiting");
  CHECK(j["log_state"]["at"] == "1970-01-01T00:00:03.000000Z");
  CHECK(j["status"] == "master");  // the MADs' view is untouched
  CHECK_FALSE(b.hold_reason());    // the log alone holds nothing

  b.note_log_state("master", 2'000'000);  // an older line (a backlog): ignored
  CHECK(b.json()["log_state"]["state"] == "exiting");
  CHECK(b.log_seq() == 1);
  b.note_log_state("master", 4'000'000);
  CHECK(b.json()["log_state"]["state"] == "master");
  REQUIRE(b.log_state());
  CHECK(b.log_state()->time_us == 4'000'000);

  // With the watcher off the logged state is still shown (it comes from the log).
  daemon::SmBoard off;
  off.configure(false, "off");
  off.note_log_state("standby", 1'000'000);
  CHECK(off.json()["log_state"]["state"] == "standby");
}

TEST_CASE("SmBoard restores the logged state a previous run stored", "[daemon][sm_watch]") {
  daemon::SmBoard first;
  first.configure(true);
  first.note_log_state("master", 7'000'000);
  auto stored = nlohmann::json::parse(first.json().dump());

  daemon::SmBoard b;
  b.configure(true);
  b.restore_log_state(stored);
  CHECK(b.json()["log_state"].dump() == first.json()["log_state"].dump());
  CHECK(b.log_seq() == 0);                     // a restored state wakes no poll
  b.note_log_state("discovering", 8'000'000);  // any line read now replaces it
  CHECK(b.json()["log_state"]["state"] == "discovering");

  daemon::SmBoard bad;  // a cursor without (or with a broken) log_state restores nothing
  for (const char* text : {"{}", R"({"log_state": null})", R"({"log_state": {"state": 3}})", "[]"})
    bad.restore_log_state(nlohmann::json::parse(text));
  CHECK(bad.json()["log_state"].is_null());
}
