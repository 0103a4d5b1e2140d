// Bounds on what one API request reads or one bad value breaks (issue 31): a port's history
// is read at most 7 days back (since=0 is clamped, and the answer says so), and a metric label
// with invalid UTF-8 becomes valid text instead of breaking the whole scrape; the refused
// inputs are exported by reason.
#include <catch2/catch.hpp>

#include "core/utf8.h"
#include "tests/unit/test_web_helpers.h"
#include "web/metrics.h"

using namespace ibw;
using namespace ibw::web_test;

TEST_CASE("web input bounds: since=0 on port history is clamped to 7 days", "[web]") {
  WebBench b;
  auto api = b.api();
  auto j = body_of(api->handle(request("GET", "/api/v1/ports/leaf001/1?since=0")));
  CHECK(j["since_clamped"] == true);
  CHECK(j["since"] == store::iso_time(kNow - 7 * 24 * 3600 * kSecond));
  CHECK(j["history"]["samples"] == 10);  // the bench's samples are ten minutes old
  WARN("GET /ports/leaf001/1?since=0 reads from " << j["since"].get<std::string>()
                                                  << " at the earliest (7 days before now)");
  j = body_of(api->handle(request("GET", "/api/v1/ports/leaf001/1?since=1h")));
  CHECK(j["since_clamped"] == false);
  CHECK(j["since"] == store::iso_time(kNow - 3600 * kSecond));
}

TEST_CASE("web input bounds: invalid UTF-8 in a label keeps the scrape valid", "[web]") {
  web::MetricsSnapshot m;
  m.fabric = "fab\xFF\xC3";
  m.health.input_refused["probe_quota_bytes"] = 7;
  std::string text = web::render_metrics(m);
  CHECK(core::valid_utf8(text) == text);
  CHECK(text.find("fabric=\"fab\xEF\xBF\xBD\xEF\xBF\xBD\"") != std::string::npos);
  CHECK(text.find("ibwarden_input_refused_total{fabric=\"fab\xEF\xBF\xBD\xEF\xBF\xBD\","
                  "reason=\"probe_quota_bytes\"} 7\n") != std::string::npos);
  CHECK(text.find("reason=\"spool_not_regular\"} 0\n") != std::string::npos);
  CHECK(web::escape_label("leaf\xC3\xA9\"\n") == "leaf\xC3\xA9\\\"\\n");
}
