// ScrapeSchedule (daemon/scrape_schedule.h): the UFM inventory read may start when no
// telemetry scrape runs and the next one is not due before the read could end; an overdue
// scrape (a stopped or failing telemetry source) stops holding reads back once it is later
// than the last scrape took; the store write of a scrape's batch, which goes on after its
// thread ends, counts as part of it; without any scrape registered every read may start.
#include <catch2/catch.hpp>

#include "daemon/scrape_schedule.h"

using ibw::daemon::ScrapeSchedule;

namespace {
constexpr int64_t kS = 1'000'000;
}

TEST_CASE("scrape schedule: no telemetry source registered lets every read start",
          "[daemon][ufm]") {
  ScrapeSchedule s;
  CHECK(s.clear_for(0, 0));
  CHECK(s.clear_for(100 * kS, 30 * kS));
}

TEST_CASE("scrape schedule: a running scrape holds the read back until it ends", "[daemon][ufm]") {
  ScrapeSchedule s;
  s.begin(10 * kS);
  CHECK_FALSE(s.clear_for(10 * kS, 0));
  CHECK_FALSE(s.clear_for(500 * kS, 0));  // still running, however late
  s.end(13 * kS, 70 * kS);                // took 3 s; the next is due at 70 s
  CHECK(s.clear_for(13 * kS, 5 * kS));
}

TEST_CASE("scrape schedule: a read that could not end before the next scrape waits for it",
          "[daemon][ufm]") {
  ScrapeSchedule s;
  s.begin(10 * kS);
  s.end(13 * kS, 70 * kS);                     // took 3 s; the next [70 s, 73 s)
  CHECK(s.clear_for(60 * kS, 10 * kS));        // ends exactly when it is due
  CHECK_FALSE(s.clear_for(61 * kS, 10 * kS));  // would end a second into it
  CHECK(s.clear_for(61 * kS, 0));  // a read of unknown length: only a running scrape holds it
  CHECK_FALSE(s.clear_for(72 * kS, 1 * kS));  // due, not begun: within its usual length
  CHECK(s.clear_for(73 * kS, 1 * kS));        // overdue by more than it took: not waited for
  s.begin(74 * kS);
  CHECK_FALSE(s.clear_for(75 * kS, 1 * kS));
  s.end(78 * kS, 130 * kS);
  CHECK(s.clear_for(78 * kS, 10 * kS));
}

TEST_CASE("scrape schedule: the store write after a scrape counts as part of it", "[daemon][ufm]") {
  ScrapeSchedule s;
  s.stored(2 * kS);  // the last counters batch took 2 s to write
  s.begin(10 * kS);
  s.end(13 * kS, 70 * kS);
  CHECK_FALSE(s.clear_for(13 * kS, 0));  // its batch is likely still being written
  CHECK_FALSE(s.clear_for(14 * kS, 0));
  CHECK(s.clear_for(15 * kS, 5 * kS));
  // The next scrape [70 s, 75 s): 3 s of its own and 2 s of store write.
  CHECK_FALSE(s.clear_for(74 * kS, 0));
  CHECK(s.clear_for(75 * kS, 0));
}
