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
