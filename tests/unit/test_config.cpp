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
  REQUIRE(c.rules.file);
  CHECK(*c.rules.file == std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  CHECK(c.actions.mode == "dry-run");
  CHECK(c.actions.via == "smp");
  CHECK(c.actions.max_disabled_total == d.actions.max_disabled_total);
  CHECK(c.actions.max_disabled_per_switch == 2);
  CHECK(c.actions.max_actions_per_hour == 8);
  CHECK(c.actions.min_up_links == 2);
  CHECK_FALSE(c.workorders.webhook);
  CHECK(c.workorders.verify_after_us == 24LL * 3600 * 1'000'000);
}

TEST_CASE("config: actions and workorders sections", "[config]") {
  Config c = parse_config(ibw::test::join_lines({
                              "rules:",
                              "  file: rules/site.yaml",
                              "actions:",
                              "  mode: enforce",
                              "  max_disabled_total: 4",
                              "  max_disabled_per_switch: 1",
                              "  max_actions_per_hour: 3",
                              "  min_up_links: 3",
                              "workorders:",
                              "  webhook: https://tickets.example.com/hook",
                              "  webhook_secret_env: IBW_HOOK_SECRET",
                              "  verify_after: 2h",
                          }),
                          "/etc/ibwarden/ibwarden.yaml");
  CHECK(c.rules.file == "/etc/ibwarden/rules/site.yaml");
  CHECK(c.actions.mode == "enforce");
  CHECK(c.actions.max_disabled_total == 4);
  CHECK(c.actions.max_disabled_per_switch == 1);
  CHECK(c.actions.max_actions_per_hour == 3);
  CHECK(c.actions.min_up_links == 3);
  CHECK(c.workorders.webhook == "https://tickets.example.com/hook");
  CHECK(c.workorders.webhook_secret_env == "IBW_HOOK_SECRET");
  CHECK(c.workorders.verify_after_us == 2LL * 3600 * 1'000'000);

  auto d = config_errors(ibw::test::join_lines({
      "actions:",                    // 1
      "  mode: enforcing",           // 2
      "  via: ufm",                  // 3
      "  min_up_links: 0",           // 4
      "  max_disable_total: 3",      // 5 typo
      "workorders:",                 // 6
      "  webhook: tickets.example",  // 7
      "  verify_after: soon",        // 8
  }));
  CHECK(ibw::test::keys(d) ==
        std::vector<std::string>{"2:actions.mode", "3:actions.via", "4:actions.min_up_links",
                                 "5:actions.max_disable_total", "7:workorders.webhook",
                                 "8:workorders.verify_after"});
  auto typo = ibw::test::find_diag(d, 5, "actions.max_disable_total");
  REQUIRE(typo);
  CHECK(typo->message.find("did you mean \"max_disabled_total\"") != std::string::npos);
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
