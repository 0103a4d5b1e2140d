// Daemon configuration: the shipped example is valid; every typo or bad value fails with
// file:line: key.path, all at once.
#include <catch2/catch.hpp>

#include "config/config.h"
#include "fabric/diagnostics.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::config;
using ibw::fabric::Diagnostic;
using ibw::fabric::InputError;

namespace config_test {

std::vector<Diagnostic> config_errors(const std::string& text) {
  return ibw::test::errors_of(parse_config, text, "/etc/ibwarden/ibwarden.yaml");
}

TEST_CASE("config: the shipped example validates and matches the defaults", "[config]") {
  Config c = load_config(std::string(IBW_SOURCE_DIR) + "/config/ibwarden.example.yaml");
  Config d;
  CHECK(c.fabric.name == "lab");
  CHECK_FALSE(c.fabric.plan);
  CHECK(c.fabric.discovery == "live");
  CHECK(c.fabric.ca.empty());
  CHECK(c.opensm.log == d.opensm.log);
  CHECK(c.counters.interval_us == 60'000'000);
  CHECK(c.counters.timeout_ms == 200);
  CHECK(c.store.path == d.store.path);
  CHECK(c.store.raw_window_us == d.store.raw_window_us);
  CHECK(c.log.level == "info");
}

TEST_CASE("config: values - durations and relative paths", "[config]") {
  Config c = parse_config(ibw::test::join_lines({
                              "fabric:",
                              "  name: prod",
                              "  plan: plans/cabling.csv",
                              "  discovery: topo/fabric.txt",
                              "  ca: mlx5_0",
                              "  ca_port: 1",
                              "opensm:",
                              "  timezone: +02:00",
                              "counters:",
                              "  interval: 500ms",
                              "store:",
                              "  path: /var/lib/ibwarden/x.db",
                          }),
                          "/etc/ibwarden/ibwarden.yaml");
  CHECK(c.fabric.plan == "/etc/ibwarden/plans/cabling.csv");
  CHECK(c.fabric.discovery == "/etc/ibwarden/topo/fabric.txt");
  CHECK(c.fabric.ca == "mlx5_0");
  CHECK(c.fabric.ca_port == 1);
  CHECK(c.opensm.utc_offset_s == 7200);
  CHECK(c.counters.interval_us == 500'000);
  CHECK(c.store.path == "/var/lib/ibwarden/x.db");
}

TEST_CASE("config: unknown keys and bad values are all reported with line and key", "[config]") {
  auto d = config_errors(ibw::test::join_lines({
      "fabric:",                 // 1
      "  nmae: lab",             // 2 typo
      "  ca_port: 300",          // 3 out of range
      "counters:",               // 4
      "  interval: 60 seconds",  // 5 bad duration
      "  enabled: maybe",        // 6
      "stroe:",                  // 7 unknown section
      "  path: x",               // 8
      "log:",                    // 9
      "  level: chatty",         // 10
      "opensm:",                 // 11
      "  timezone: CEST",        // 12
  }));
  CHECK(ibw::test::keys(d) == std::vector<std::string>{"10:log.level", "12:opensm.timezone",
                                                       "2:fabric.nmae", "3:fabric.ca_port",
                                                       "5:counters.interval", "6:counters.enabled",
                                                       "7:stroe"});
  auto typo = ibw::test::find_diag(d, 2, "fabric.nmae");
  REQUIRE(typo);
  CHECK(typo->message.find("did you mean \"name\"") != std::string::npos);
  CHECK(typo->file == "/etc/ibwarden/ibwarden.yaml");
  CHECK(ibw::test::find_diag(d, 7, "stroe")->message.find("did you mean \"store\"") !=
        std::string::npos);
}

TEST_CASE("config: syntax errors and duplicate keys", "[config]") {
  auto d = config_errors("fabric:\n  name: [unclosed\n");
  REQUIRE(d.size() == 1);
  CHECK(d[0].message.find("YAML syntax error") == 0);
  auto dup = config_errors("store:\n  path: a\n  path: b\n");
  CHECK(ibw::test::keys(dup) == std::vector<std::string>{"3:store.path"});
}

TEST_CASE("config: durations and offsets", "[config]") {
  CHECK(parse_duration("500ms") == 500'000);
  CHECK(parse_duration("12m") == 720'000'000);
  CHECK(parse_duration("1h") == 3'600'000'000LL);
  CHECK_FALSE(parse_duration("0s"));
  CHECK_FALSE(parse_duration("10"));
  CHECK_FALSE(parse_duration("s"));
  CHECK_FALSE(parse_duration("5 m"));
  CHECK(parse_utc_offset("-05:30") == -(5 * 3600 + 30 * 60));
  CHECK(parse_utc_offset("Z") == 0);
  CHECK_FALSE(parse_utc_offset("+25:00"));
}

}  // namespace config_test
