// The sm_watch: section: defaults (on with live discovery), bad values as file:line: key.
#include <catch2/catch.hpp>

#include "config/config.h"
#include "tests/unit/test_helpers.h"

using ibw::config::Config;
using ibw::config::parse_config;

TEST_CASE("config: sm_watch defaults to on with live discovery only", "[config][sm_watch]") {
  Config c = parse_config("fabric:\n  name: lab\n", "/etc/ibwarden/ibwarden.yaml");
  CHECK(c.sm_watch.enabled == "auto");
  CHECK(c.sm_watch.interval_us == 1'000'000);
  CHECK(c.sm_watch.fail_polls == 2);
  CHECK(c.sm_watch.freeze_us == 30'000'000);
  CHECK(c.sm_watch.on("live"));
  CHECK_FALSE(c.sm_watch.on("/var/lib/ibwarden/topology.txt"));
  c = parse_config("sm_watch:\n  enabled: \"false\"\n  interval: 2s\n  freeze: 10s\n", "f.yaml");
  CHECK_FALSE(c.sm_watch.on("live"));
  CHECK(c.sm_watch.interval_us == 2'000'000);
  c = parse_config("sm_watch:\n  enabled: true\n", "f.yaml");
  CHECK(c.sm_watch.on("topology.txt"));
}

TEST_CASE("config: bad sm_watch values name file:line and key", "[config][sm_watch]") {
  auto d = ibw::test::errors_of(parse_config,
                                ibw::test::join_lines({
                                    "sm_watch:",         // 1
                                    "  enabled: maybe",  // 2
                                    "  interval: 5s",    // 3
                                    "  freeze: 6s",      // 4 under 2 x interval
                                    "  fail_polls: 0",   // 5
                                    "  intervall: 1s",   // 6 typo
                                }),
                                "/etc/ibwarden/ibwarden.yaml");
  CHECK(ibw::test::keys(d) == std::vector<std::string>{"2:sm_watch.enabled", "4:sm_watch.freeze",
                                                       "5:sm_watch.fail_polls",
                                                       "6:sm_watch.intervall"});
  auto f = ibw::test::find_diag(d, 4, "sm_watch.freeze");
  REQUIRE(f);
  CHECK(f->file == "/etc/ibwarden/ibwarden.yaml");
  CHECK(f->message.find("twice sm_watch.interval") != std::string::npos);
}
