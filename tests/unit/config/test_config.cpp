// Daemon configuration: the shipped example is valid; every typo or bad value fails with
// file:line: key.path, all at once.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <tuple>

#include "config/config.h"
#include "fabric/diagnostics.h"
#include "tests/test_paths.h"
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
  CHECK_FALSE(c.ufm);
}

TEST_CASE("config: no rules section means rules.yaml beside the config - only null means none",
          "[config]") {
  Config c = parse_config("store:\n  path: x.db\n", "/etc/ibwarden/ibwarden.yaml");
  CHECK(c.rules.file == "/etc/ibwarden/rules.yaml");
  CHECK(c.rules.defaulted);
  Config none = parse_config("rules: null\n", "/etc/ibwarden/ibwarden.yaml");
  CHECK_FALSE(none.rules.file);
  CHECK_NOTHROW(ibw::config::require_default_rules(none));
  CHECK_FALSE(parse_config("rules:\n  file: null\n", "/etc/ibwarden/ibwarden.yaml").rules.file);
  Config given = parse_config("rules:\n  file: r.yaml\n", "/etc/ibwarden/ibwarden.yaml");
  CHECK_FALSE(given.rules.defaulted);
  // The default must exist, or `run` and check-config stop, naming it.
  const std::string dir = "/tmp/ibw-config-rules-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  Config d = parse_config("store:\n  path: x.db\n", dir + "/ibwarden.yaml");
  try {
    ibw::config::require_default_rules(d);
    FAIL("no error");
  } catch (const ibw::fabric::InputError& e) {
    std::string what = e.what();
    CHECK(what.find(dir + "/ibwarden.yaml: rules.file: " + dir + "/rules.yaml does not exist") ==
          0);
    CHECK(what.find("rules: null") != std::string::npos);
  }
  std::ofstream(dir + "/rules.yaml") << "rules: []\n";
  CHECK_NOTHROW(ibw::config::require_default_rules(d));
  std::filesystem::remove_all(dir);
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

// The example's commented ufm block, uncommented (every documented key with its default).
std::string example_ufm_block() {
  std::ifstream in(std::string(IBW_SOURCE_DIR) + "/config/ibwarden.example.yaml");
  std::string out, line;
  bool in_block = false;
  while (std::getline(in, line)) {
    if (line == "ufm: null") {
      in_block = true;
      out += "ufm:\n";
    } else if (in_block && line.rfind("#  ", 0) == 0) {
      out += line.substr(1) + "\n";
    } else if (in_block) {
      break;
    }
  }
  return out;
}

TEST_CASE("config: the ufm section - documented defaults and a full section", "[config][ufm]") {
  std::string block = example_ufm_block();
  REQUIRE(block.find("poll_interval") != std::string::npos);
  // As documented (the block: api v3 with token_file null) it loads: the client then
  // fetches an access token with user_env / password_env.
  Config plain = parse_config(block, "/etc/ibwarden/ibwarden.yaml");
  REQUIRE(plain.ufm);
  CHECK(plain.ufm->api == "v3");
  CHECK_FALSE(plain.ufm->token_file);
  std::string with_token = block;
  with_token.replace(with_token.find("token_file: null"), 16, "token_file: ufm.token");
  Config c = parse_config(with_token, "/etc/ibwarden/ibwarden.yaml");
  REQUIRE(c.ufm);
  UfmSection d;
  CHECK(c.ufm->url == "https://ufm.example.com");
  CHECK(c.ufm->api == "v3");
  CHECK(c.ufm->user_env == d.user_env);
  CHECK(c.ufm->password_env == d.password_env);
  CHECK(c.ufm->token_file == "/etc/ibwarden/ufm.token");
  CHECK_FALSE(c.ufm->ca_file);
  CHECK(c.ufm->verify_tls);
  CHECK(c.ufm->poll_interval_us == 10'000'000);
  CHECK(c.ufm->utc_offset_s == 0);
  CHECK(c.ufm->telemetry.primary == "http://ufm:9001/csv/metrics");
  CHECK_FALSE(c.ufm->telemetry.secondary);

  c = parse_config(ibw::test::join_lines({
                       "ufm:",
                       "  url: http://10.0.0.5:8080/",
                       "  api: v1",
                       "  user_env: SITE_UFM_USER",
                       "  password_env: SITE_UFM_PASS",
                       "  ca_file: certs/ufm.pem",
                       "  verify_tls: false",
                       "  poll_interval: 500ms",
                       "  timezone: -07:00",
                       "  telemetry:",
                       "    primary: http://ufm:9001/metrics",
                       "    secondary: http://ufm:9002/csv/xcset/low_freq_debug",
                       "actions:",
                       "  via: ufm",
                   }),
                   "/etc/ibwarden/ibwarden.yaml");
  REQUIRE(c.ufm);
  CHECK(c.ufm->url == "http://10.0.0.5:8080/");
  CHECK(c.ufm->api == "v1");
  CHECK(c.ufm->user_env == "SITE_UFM_USER");
  CHECK(c.ufm->password_env == "SITE_UFM_PASS");
  CHECK(c.ufm->ca_file == "/etc/ibwarden/certs/ufm.pem");
  CHECK_FALSE(c.ufm->verify_tls);
  CHECK(c.ufm->poll_interval_us == 500'000);
  CHECK(c.ufm->utc_offset_s == -7 * 3600);
  CHECK(c.ufm->telemetry.primary == "http://ufm:9001/metrics");
  CHECK(c.ufm->telemetry.secondary == "http://ufm:9002/csv/xcset/low_freq_debug");
  CHECK(c.actions.via == "ufm");

  // Absent or null: no UFM; telemetry null: no telemetry.
  CHECK_FALSE(parse_config("ufm: null\n", "x.yaml").ufm);
  c = parse_config("ufm:\n  url: https://u\n  api: v2\n  telemetry: null\n", "x.yaml");
  REQUIRE(c.ufm);
  CHECK_FALSE(c.ufm->telemetry.primary);
}

TEST_CASE("config: the ufm section - every problem with its line and key", "[config][ufm]") {
  auto d = config_errors(ibw::test::join_lines({
      "ufm:",                            // 1
      "  url: ufm.example.com",          // 2 no scheme
      "  api: v4",                       // 3
      "  pol_interval: 10s",             // 4 typo
      "  timezone: PST",                 // 5
      "  verify_tls: maybe",             // 6
      "  telemetry:",                    // 7
      "    primery: http://ufm:9001/x",  // 8 typo
      "    secondary: ftp://ufm/x",      // 9
      "  poll_interval: 0s",             // 10
  }));
  CHECK(ibw::test::keys(d) ==
        std::vector<std::string>{"10:ufm.poll_interval", "2:ufm.url", "3:ufm.api",
                                 "4:ufm.pol_interval", "5:ufm.timezone", "6:ufm.verify_tls",
                                 "8:ufm.telemetry.primery", "9:ufm.telemetry.secondary"});
  auto typo = ibw::test::find_diag(d, 4, "ufm.pol_interval");
  REQUIRE(typo);
  CHECK(typo->message.find("did you mean \"poll_interval\"") != std::string::npos);
  CHECK(ibw::test::find_diag(d, 8, "ufm.telemetry.primery")->message.find("\"primary\"") !=
        std::string::npos);

  d = config_errors(ibw::test::join_lines({
      "ufm:",                                        // 1 (no url: said on the first line inside)
      "  api: v1",                                   // 2
      "  token_file: t",                             // 3 v1 takes no token
      "  user_env: \"\"",                            // 4
      "  telemetry:",                                // 5
      "    secondary: http://ufm:9002/csv/metrics",  // 6 without a primary
  }));
  CHECK(ibw::test::keys(d) == std::vector<std::string>{"2:ufm.telemetry.secondary", "2:ufm.url",
                                                       "3:ufm.token_file", "4:ufm.user_env"});
  // Credentials in the URL are refused (they would end up in logs).
  d = config_errors("ufm:\n  url: https://admin:pw@ufm\n  token_file: t\n");
  REQUIRE(d.size() == 1);
  CHECK(d[0].field == "ufm.url");
  CHECK(d[0].message.find("pw") == std::string::npos);
  // actions.via ufm without a ufm section names actions.via.
  d = config_errors("actions:\n  via: ufm\n");
  REQUIRE(d.size() == 1);
  CHECK(d[0].field == "actions.via");
  CHECK(d[0].line == 2);
  CHECK(d[0].message.find("ufm:") != std::string::npos);
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

TEST_CASE("config: the probes section - defaults - the example and a full section",
          "[config][probe]") {
  Config d = parse_config("fabric:\n  name: x\n", "/etc/ibwarden/ibwarden.yaml");
  CHECK_FALSE(d.probes.interval_us);  // off unless asked for
  CHECK(d.probes.count == 10);
  CHECK(d.probes.timeout_ms == 50);
  CHECK(d.probes.max_in_flight == 16);
  CHECK(d.probes.max_rate == 2000);
  CHECK(d.probes.window == 10);
  CHECK_FALSE(d.probes.spool_dir);
  CHECK(d.probes.routes == "adaptive");

  // The shipped example documents every key with its default.
  Config e = load_config(std::string(IBW_SOURCE_DIR) + "/config/ibwarden.example.yaml");
  CHECK_FALSE(e.probes.interval_us);
  CHECK(e.probes.count == d.probes.count);
  CHECK(e.probes.timeout_ms == d.probes.timeout_ms);
  CHECK(e.probes.max_in_flight == d.probes.max_in_flight);
  CHECK(e.probes.max_rate == d.probes.max_rate);
  CHECK(e.probes.window == d.probes.window);
  CHECK(e.probes.spool_dir == d.probes.spool_dir);
  CHECK(e.probes.routes == d.probes.routes);

  Config c = parse_config(ibw::test::join_lines({
                              "probes:",
                              "  interval: 5m",
                              "  count: 25",
                              "  timeout: 1s",
                              "  max_in_flight: 4",
                              "  max_rate: 500",
                              "  window: 3",
                              "  spool_dir: spool/probes",
                              "  routes: static",
                          }),
                          "/etc/ibwarden/ibwarden.yaml");
  REQUIRE(c.probes.interval_us);
  CHECK(*c.probes.interval_us == 300'000'000);
  CHECK(c.probes.count == 25);
  CHECK(c.probes.timeout_ms == 1000);
  CHECK(c.probes.max_in_flight == 4);
  CHECK(c.probes.max_rate == 500);
  CHECK(c.probes.window == 3);
  REQUIRE(c.probes.spool_dir);
  CHECK(*c.probes.spool_dir == "/etc/ibwarden/spool/probes");  // relative to the file
  CHECK(c.probes.routes == "static");

  Config off = parse_config("probes:\n  interval: null\n  spool_dir: null\n", "/x/y.yaml");
  CHECK_FALSE(off.probes.interval_us);
  CHECK_FALSE(off.probes.spool_dir);
}

TEST_CASE("config: the probes section - every problem with its line and key", "[config][probe]") {
  auto d = config_errors(ibw::test::join_lines({
      "probes:",              // 1
      "  intervall: 1m",      // 2 typo
      "  count: 0",           // 3 below 1
      "  timeout: 20s",       // 4 above 10s
      "  max_in_flight: -1",  // 5
      "  max_rate: fast",     // 6
      "  window: 1.5",        // 7
      "  spool_dir: ''",      // 8 empty
      "  routes: ecmp",       // 9
      "  interval: soon",     // 10
  }));
  CHECK(ibw::test::keys(d) ==
        std::vector<std::string>{"10:probes.interval", "2:probes.intervall", "3:probes.count",
                                 "4:probes.timeout", "5:probes.max_in_flight", "6:probes.max_rate",
                                 "7:probes.window", "8:probes.spool_dir", "9:probes.routes"});
  auto typo = ibw::test::find_diag(d, 2, "probes.intervall");
  REQUIRE(typo);
  CHECK(typo->message.find("did you mean \"interval\"") != std::string::npos);
  CHECK(ibw::test::find_diag(d, 9, "probes.routes")->message.find("static, adaptive") !=
        std::string::npos);
  auto list = config_errors("probes: [1, 2]\n");
  CHECK(ibw::test::keys(list) == std::vector<std::string>{"1:probes"});
}

}  // namespace config_test

TEST_CASE("config: the web section", "[config]") {
  using namespace config_test;
  Config c = parse_config(ibw::test::join_lines({
                              "web:",
                              "  listen: 0.0.0.0:9090",
                              "  tokens_file: tokens",
                              "  read_only: true",
                          }),
                          "/etc/ibwarden/ibwarden.yaml");
  CHECK(c.web.enabled);
  CHECK(c.web.listen == "0.0.0.0:9090");
  CHECK(c.web.tokens_file == "/etc/ibwarden/tokens");
  CHECK(c.web.read_only);
  CHECK_FALSE(parse_config("log:\n  level: info\n", "/x.yaml").web.enabled);
  auto d = config_errors(ibw::test::join_lines({
      "web:",                 // 1
      "  listen: localhost",  // 2 no port
      "  tokens: t",          // 3 typo
  }));
  CHECK(ibw::test::keys(d) == std::vector<std::string>{"2:web.listen", "3:web.tokens"});
}

TEST_CASE("config: the web connection guards and the access log switch", "[config]") {
  using namespace config_test;
  auto guards = [](const WebSection& w) {
    return std::make_tuple(w.max_connections, w.max_connections_per_address, w.max_streams,
                           w.max_streams_per_token, w.request_timeout_ms, w.keepalive_timeout_ms,
                           w.access_log);
  };
  Config d = parse_config("web:\n  listen: 127.0.0.1:8080\n", "/x.yaml");
  CHECK(guards(d.web) == std::make_tuple(256, 16, 64, 8, 10'000u, 60'000u, true));
  Config c = parse_config(ibw::test::join_lines({
                              "web:",
                              "  max_connections: 100",
                              "  max_connections_per_address: 4",
                              "  max_streams: 10",
                              "  max_streams_per_token: 2",
                              "  request_timeout: 5s",
                              "  keepalive_timeout: 2m",
                              "  access_log: false",
                          }),
                          "/x.yaml");
  CHECK(guards(c.web) == std::make_tuple(100, 4, 10, 2, 5'000u, 120'000u, false));
  auto e = config_errors(ibw::test::join_lines({
      "web:",                               // 1
      "  max_connections: 0",               // 2
      "  max_connections_per_address: -1",  // 3
      "  request_timeout: soon",            // 4
      "  keepalive_timeout: 2h",            // 5 over 1h
      "  access_log: maybe",                // 6
  }));
  CHECK(ibw::test::keys(e) ==
        std::vector<std::string>{"2:web.max_connections", "3:web.max_connections_per_address",
                                 "4:web.request_timeout", "5:web.keepalive_timeout",
                                 "6:web.access_log"});
}
