// Web API building blocks without a store: target and query parsing with percent-decoding,
// the tokens file (strict, file:line, never quoting a token), constant-time comparison,
// listen addresses and the Prometheus text rendering.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>

#include "fabric/diagnostics.h"
#include "tests/unit/test_helpers.h"
#include "tests/unit/test_store_helpers.h"
#include "web/api_core.h"
#include "web/auth.h"
#include "web/metrics.h"
#include "web/server.h"

using namespace ibw;
using namespace ibw::web;

namespace web_http_test {

int status_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ApiError& e) {
    return e.status();
  }
  return 0;
}

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace web_http_test

using namespace web_http_test;

TEST_CASE("web http: targets split before percent-decoding", "[web]") {
  Target t = parse_target("/api/v1/ports/node0002%20mlx5_0/1?node=a%2Fb+c&x=&flag");
  REQUIRE(t.segments == std::vector<std::string>{"api", "v1", "ports", "node0002 mlx5_0", "1"});
  REQUIRE(t.query.size() == 3);
  CHECK(t.query[0] == std::pair<std::string, std::string>{"node", "a/b c"});
  CHECK(t.query[1] == std::pair<std::string, std::string>{"x", ""});
  CHECK(t.query[2] == std::pair<std::string, std::string>{"flag", ""});
  // %2F stays inside its segment; '+' is literal in a path.
  CHECK(parse_target("/a%2Fb/c+d").segments == std::vector<std::string>{"a/b", "c+d"});
  CHECK(status_of([] { parse_target("/api/v1/ports/%zz/1"); }) == 400);
  CHECK(status_of([] { parse_target("/api/v1/events?since=%4"); }) == 400);
  CHECK(status_of([] { parse_target("api/v1"); }) == 400);
  CHECK(status_of([] { parse_target("http://x/api/v1"); }) == 400);
}

TEST_CASE("web http: percent_decode rejects truncated escapes", "[web]") {
  std::string out;
  CHECK(percent_decode("a%41%62", out, false));
  CHECK(out == "aAb");
  CHECK_FALSE(percent_decode("%4", out, false));
  CHECK_FALSE(percent_decode("%", out, false));
  CHECK(percent_decode("a+b", out, true));
  CHECK(out == "a b");
}

TEST_CASE("web http: query parameters are strict and errors name them", "[web]") {
  std::vector<std::pair<std::string, std::string>> items = {{"limit", "10"}, {"since", "10m"}};
  Query q(items, {"limit", "since", "has_errors"});
  CHECK(q.integer("limit", 1, 100, 5) == 10);
  CHECK(q.integer("offset", 0, 100, 7) == 7);
  CHECK(q.time("since", 1'000'000'000, 0) == 1'000'000'000 - 600'000'000);
  CHECK(message_of([&] {
          Query({{"bogus", "1"}}, {"limit"});
        }) == "unknown query parameter \"bogus\"");
  CHECK(message_of([&] {
          Query({{"limit", "1"}, {"limit", "2"}}, {"limit"});
        }) == "query parameter \"limit\" given twice");
  Query bad({{"limit", "0"}, {"since", "yesterday"}, {"has_errors", "maybe"}},
            {"limit", "since", "has_errors"});
  CHECK(message_of([&] { bad.integer("limit", 1, 100, 5); }) ==
        "limit: must be an integer from 1 to 100");
  CHECK(message_of([&] { bad.time("since", 0, 0); }).rfind("since: must be a duration", 0) == 0);
  CHECK(message_of([&] { bad.boolean("has_errors"); }) == "has_errors: must be true or false");
}

TEST_CASE("web http: UTC times parse with optional fraction and Z", "[web]") {
  CHECK(parse_utc_time("1970-01-01T00:00:01Z") == 1'000'000);
  CHECK(parse_utc_time("2027-01-15T08:00:00.5Z") == int64_t{1'800'000'000} * 1'000'000 + 500'000);
  CHECK(parse_utc_time("2027-01-15 08:00:00") == int64_t{1'800'000'000} * 1'000'000);
  CHECK_FALSE(parse_utc_time("2027-13-15T08:00:00Z"));
  const int64_t t0 = int64_t{1'800'000'000} * 1'000'000;     // 2027-01-15T08:00:00Z
  CHECK(parse_utc_time("2027-01-15T10:00:00+02:00") == t0);  // Python's isoformat()
  CHECK(parse_utc_time("2027-01-15T07:30:00-0030") == t0);
  CHECK(parse_utc_time("2027-01-15T08:00:00.000000+00:00") == t0);
  CHECK(parse_utc_time("2027-01-15T09:00:00+01") == t0);
  CHECK_FALSE(parse_utc_time("2027-01-15T08:00:00+2:00"));
  CHECK_FALSE(parse_utc_time("2027-01-15T08:00:00+25:00"));
  Query epoch({{"since", "1800000000"}}, {"since"});
  CHECK(epoch.time("since", 0, -1) == t0);
  CHECK(Query({{"since", "0"}}, {"since"}).time("since", t0, -1) == 0);
  CHECK_FALSE(parse_utc_time("2027-01-15"));
}

TEST_CASE("web http: JSON bodies need the JSON content type and known fields", "[web]") {
  Request r;
  r.body = R"({"reason": "x"})";
  CHECK(status_of([&] { body_object(r, {"reason"}); }) == 415);
  r.headers["content-type"] = "application/json; charset=utf-8";
  CHECK(body_object(r, {"reason"})["reason"] == "x");
  CHECK(message_of([&] { body_object(r, {"force"}); }) == "body: unknown field \"reason\"");
  r.body = "[1]";
  CHECK(message_of([&] { body_object(r, {"reason"}); }) == "body: must be a JSON object");
  r.body = "{";
  CHECK(message_of([&] { body_object(r, {"reason"}); }) == "body: not valid JSON");
  r.body = "";
  CHECK(body_object(r, {}).empty());
}

TEST_CASE("web auth: the tokens file parses roles and tokens", "[web]") {
  auto set = TokenSet::parse(
      "# comment\n\n  viewer\tviewer-token-0123456789  \noperator operator-token-0123456789\n"
      "admin admin-token-0123456789abc\n",
      "tokens");
  CHECK(set.size() == 3);
  CHECK(set.find("viewer-token-0123456789")->role == Role::viewer);
  CHECK(set.find("viewer-token-0123456789")->line == 3);
  CHECK(set.find("operator-token-0123456789")->role == Role::operator_);
  CHECK(set.find("admin-token-0123456789abc")->role == Role::admin);
  CHECK_FALSE(set.find("viewer-token-012345678"));
  CHECK_FALSE(set.find(""));
  CHECK_FALSE(set.find(std::string(5000, 'a')));
}

TEST_CASE("web auth: tokens file errors carry file and line and never the token", "[web]") {
  std::string text = test::join_lines({
      "viewer good-token-0123456789",         // 1
      "root good-token-9876543210",           // 2 bad role
      "viewer " + std::string(513, 'x'),      // 3 too long
      "operator bad\xc3\xa9token0123456789",  // 4 not ASCII
      "admin good-token-0123456789",          // 5 same token as line 1
      "viewer a-token-0123456789 extra",      // 6 three fields
      "# fine",                               // 7
      "operator short*but!fine",              // 8 any visible ASCII is a token
  });
  auto diags = test::errors_of(TokenSet::parse, text, "tokens");
  CHECK(test::keys(diags) ==
        std::vector<std::string>{"2:role", "3:token", "4:token", "5:token", "6:"});
  CHECK(test::find_diag(diags, 5, "token")->message == "the same token is on line 1");
  for (const auto& d : diags) {
    std::string line = fabric::format_diagnostic(d);
    CHECK(line.rfind("tokens:", 0) == 0);
    CHECK(line.find("good-token") == std::string::npos);
    CHECK(line.find("xxxxxxxx") == std::string::npos);
    CHECK(line.find("bad") == std::string::npos);
  }
  auto empty = test::errors_of(TokenSet::parse, "# nothing\n", "tokens");
  REQUIRE(empty.size() == 1);
  CHECK(empty[0].message == "no tokens in the file");
}

TEST_CASE("web auth: short tokens load with a warning that does not show them", "[web]") {
  // A test harness's or a lab's "operator op-token": accepted, and flagged.
  TokenSet set = TokenSet::parse("viewer abc123\noperator operator-token-0123456789\n", "tokens");
  CHECK(set.size() == 2);
  CHECK(set.find("abc123")->role == Role::viewer);
  REQUIRE(set.warnings().size() == 1);
  CHECK(set.warnings()[0].rfind("tokens:1: token: shorter than 16 characters", 0) == 0);
  CHECK(set.warnings()[0].find("abc123") == std::string::npos);
}

TEST_CASE("web auth: a tokens file others can write is refused and one they can read warned",
          "[web]") {
  store_test::TempDir dir;
  std::string path = dir.file("tokens");
  std::ofstream(path) << "viewer viewer-token-0123456789\n";
  ::chmod(path.c_str(), 0646);
  CHECK(message_of([&] { TokenSet::load(path); }).find("other users may write") !=
        std::string::npos);
  ::chmod(path.c_str(), 0644);  // a default umask
  TokenSet readable = TokenSet::load(path);
  CHECK(readable.size() == 1);
  REQUIRE(readable.warnings().size() == 1);
  CHECK(readable.warnings()[0].find("other users may read it") != std::string::npos);
  ::chmod(path.c_str(), 0640);
  CHECK(TokenSet::load(path).warnings().empty());
  CHECK_THROWS_AS(TokenSet::load(dir.file("missing")), fabric::InputError);
}

TEST_CASE("web auth: constant_time_equal compares whole strings", "[web]") {
  CHECK(constant_time_equal("abcdef", "abcdef"));
  CHECK_FALSE(constant_time_equal("abcdef", "abcdeg"));
  CHECK_FALSE(constant_time_equal("abcdef", "abcdefg"));  // prefix
  CHECK_FALSE(constant_time_equal("abcdefg", "abcdef"));
  CHECK_FALSE(constant_time_equal("abcabc", "abc"));  // repeats of a shorter token
  CHECK_FALSE(constant_time_equal("", ""));
  CHECK_FALSE(constant_time_equal("a", ""));
  CHECK_FALSE(constant_time_equal("", "a"));
  CHECK_FALSE(constant_time_equal(std::string(1, '\0'), ""));
}

TEST_CASE("web server: listen addresses", "[web]") {
  CHECK(parse_listen("127.0.0.1:8080").host == "127.0.0.1");
  CHECK(parse_listen("127.0.0.1:8080").port == 8080);
  CHECK(parse_listen("[::1]:0").host == "::1");
  CHECK(parse_listen("localhost:9").port == 9);
  CHECK_THROWS_AS(parse_listen("8080"), std::invalid_argument);
  CHECK_THROWS_AS(parse_listen("::1:8080"), std::invalid_argument);
  CHECK_THROWS_AS(parse_listen("example.org:80"), std::invalid_argument);
  CHECK_THROWS_AS(parse_listen("127.0.0.1:65536"), std::invalid_argument);
  CHECK_THROWS_AS(parse_listen(":80"), std::invalid_argument);
}

TEST_CASE("web metrics: Prometheus text with one-hot source status", "[web]") {
  MetricsSnapshot m;
  m.health.sources = {{"opensm", SourceStatus::ok, "", 1'800'000'000'000'000},
                      {"ufm", SourceStatus::disabled, "", 0}};
  m.health.sweep_seconds = 0.25;
  m.health.sweep_time_us = 1'800'000'000'000'000;
  m.store_up = true;
  m.events_per_second = 0.5;
  m.ports_by_state = {{"Active", 5}, {"Down", 2}};
  m.open_orders_by_severity = {{"critical", 1}};
  m.disabled_ports = 1;
  std::string text = render_metrics(m);
  CHECK(
      text.find("ibwarden_source_status{fabric=\"default\",source=\"opensm\",status=\"ok\"} 1\n") !=
      std::string::npos);
  CHECK(text.find(
            "ibwarden_source_status{fabric=\"default\",source=\"opensm\",status=\"down\"} 0\n") !=
        std::string::npos);
  CHECK(text.find(
            "ibwarden_source_status{fabric=\"default\",source=\"ufm\",status=\"disabled\"} 1\n") !=
        std::string::npos);
  CHECK(text.find("ibwarden_source_last_ok_timestamp_seconds{fabric=\"default\",source=\"opensm\"} "
                  "1800000000\n") != std::string::npos);
  CHECK(text.find("source_last_ok_timestamp_seconds{source=\"ufm\"}") == std::string::npos);
  CHECK(text.find("ibwarden_sweep_duration_seconds{fabric=\"default\"} 0.25\n") !=
        std::string::npos);
  CHECK(text.find("ibwarden_events_per_second{fabric=\"default\"} 0.5\n") != std::string::npos);
  CHECK(text.find("ibwarden_ports{fabric=\"default\",state=\"Down\"} 2\n") != std::string::npos);
  CHECK(text.find("ibwarden_workorders_open{fabric=\"default\",severity=\"critical\"} 1\n") !=
        std::string::npos);
  CHECK(text.find("# TYPE ibwarden_disabled_ports "
                  "gauge\nibwarden_disabled_ports{fabric=\"default\"} 1\n") != std::string::npos);
  m.store_up = false;
  text = render_metrics(m);
  CHECK(text.find("ibwarden_store_up{fabric=\"default\"} 0\n") != std::string::npos);
  CHECK(text.find("ibwarden_disabled_ports") == std::string::npos);
  CHECK(escape_label("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
}
