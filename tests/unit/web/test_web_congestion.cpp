// Congestion over the web API: GET /api/v1/congestion serves the backend's findings (own
// fabric only), and /metrics has ibwarden_congestion_ports (gauge) and
// ibwarden_congestion_findings_total (counter), left out of a scrape of another fabric.
#include <catch2/catch.hpp>

#include "tests/unit/test_web_helpers.h"
#include "web/metrics.h"

using namespace ibw;
using namespace ibw::web_test;

namespace web_congestion_test {

class CongestedBackend : public FakeBackend {
 public:
  using FakeBackend::FakeBackend;
  nlohmann::json congestion() override {
    nlohmann::json port = {{"node_guid", "0x0000000000000010"},
                           {"port", 1},
                           {"wait_ratio", 0.3},
                           {"lost_gbps", 60.0},
                           {"discards_per_s", 0.0}};
    return {{"ports", nlohmann::json::array({port})},
            {"findings_total", 4},
            {"reports", 2},
            {"reports_total", 6}};
  }
};

TEST_CASE("web congestion: metrics families of their own", "[web]") {
  web::MetricsSnapshot m;
  m.congestion_ports = 2;
  m.congestion_findings_total = 7;
  m.rule_findings = 3;
  m.rule_findings_total = 5;
  std::string text = web::render_metrics(m);
  CHECK(text.find("# TYPE ibwarden_rule_findings gauge\n") != std::string::npos);
  CHECK(text.find("ibwarden_rule_findings{fabric=\"default\"} 3\n") != std::string::npos);
  CHECK(text.find("# TYPE ibwarden_rule_findings_total counter\n") != std::string::npos);
  CHECK(text.find("ibwarden_rule_findings_total{fabric=\"default\"} 5\n") != std::string::npos);
  CHECK(text.find("# TYPE ibwarden_congestion_ports gauge\n") != std::string::npos);
  CHECK(text.find("ibwarden_congestion_ports{fabric=\"default\"} 2\n") != std::string::npos);
  CHECK(text.find("# TYPE ibwarden_congestion_findings_total counter\n") != std::string::npos);
  CHECK(text.find("ibwarden_congestion_findings_total{fabric=\"default\"} 7\n") !=
        std::string::npos);
  m.live = false;  // another fabric's scrape: not this daemon's findings
  CHECK(web::render_metrics(m).find("ibwarden_congestion") == std::string::npos);
  CHECK(web::render_metrics(m).find("ibwarden_rule_findings") == std::string::npos);
}

TEST_CASE("web congestion: GET /congestion and the metrics read the backend", "[web]") {
  WebBench b;
  CongestedBackend backend(b.path);
  web::Api api(backend, b.options(), std::nullopt);  // no tokens file: anonymous viewers
  web::Response r = api.handle(request("GET", "/api/v1/congestion", nullptr));
  REQUIRE(r.status == 200);
  auto j = nlohmann::json::parse(r.body);
  REQUIRE(j["ports"].size() == 1);
  CHECK(j["ports"][0]["wait_ratio"] == 0.3);
  CHECK(j["findings_total"] == 4);
  r = api.handle(request("GET", "/metrics", nullptr));
  REQUIRE(r.status == 200);
  CHECK(r.body.find("ibwarden_congestion_ports{fabric=\"default\"} 1\n") != std::string::npos);
  CHECK(r.body.find("ibwarden_congestion_findings_total{fabric=\"default\"} 4\n") !=
        std::string::npos);
  CHECK(r.body.find("ibwarden_rule_findings{fabric=\"default\"} 2\n") != std::string::npos);
  CHECK(r.body.find("ibwarden_rule_findings_total{fabric=\"default\"} 6\n") != std::string::npos);
}

}  // namespace web_congestion_test
