// Web API /metrics through Api::handle on a temporary store: GET /metrics at the root is the
// same route as /api/v1/metrics (auth, methods, body), and the metrics alert rules need (guard
// budget, ports disabled since, webhook outbox backlog) carry the values in the store.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "tests/unit/test_web_helpers.h"
#include "web/metrics.h"

using namespace ibw;
using namespace ibw::web_test;
using web::Response;

namespace web_metrics_test {

// The value of one series ("name" or "name{labels}") of fabric `fabric` (its label comes
// first) in a scrape; nullopt when absent.
std::optional<double> series(const std::string& text, std::string name,
                             const std::string& fabric = "default") {
  std::string label = "fabric=\"" + fabric + "\"";
  size_t brace = name.find('{');
  name = brace == std::string::npos
             ? name + "{" + label + "}"
             : name.substr(0, brace + 1) + label + "," + name.substr(brace + 1);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name + " ", 0) != 0) continue;
    std::string v = line.substr(name.size() + 1);
    return v == "NaN" ? std::nan("") : std::stod(v);
  }
  return std::nullopt;
}

bool has_family(const std::string& text, const std::string& name) {
  return text.find("# HELP " + name + " ") != std::string::npos &&
         text.find("# TYPE " + name + " gauge\n") != std::string::npos;
}

// A work-order change queued for the webhook (WriteBatch::outbox), changed at `updated_us`.
void queue_change(store::Store& db, const std::string& summary, int64_t updated_us) {
  store::WriteBatch w;
  w.outbox = true;
  core::WorkOrder o =
      WebBench::order(core::link_key(kLeaf, 2, kHost2, 1), 2, kHost2, "error", false);
  o.summary = summary;
  o.opened_us = kNow - 3600 * kSecond;
  o.updated_us = updated_us;
  w.workorders.push_back(o);
  db.write(w);
}

}  // namespace web_metrics_test

using namespace web_metrics_test;

TEST_CASE("web metrics: GET /metrics at the root is /api/v1/metrics", "[web]") {
  WebBench b;
  b.backend.health_value.sources = {{"opensm", web::SourceStatus::ok, "", kNow}};
  auto api = b.api();
  Response root = api->handle(request("GET", "/metrics"));
  Response v1 = api->handle(request("GET", "/api/v1/metrics"));
  REQUIRE(root.status == 200);
  CHECK(root.content_type == "text/plain; version=0.0.4");
  CHECK(root.content_type == v1.content_type);
  CHECK(root.body == v1.body);
  CHECK(root.actor == "viewer@tokens:3");
  CHECK(series(root.body, "ibwarden_disabled_ports") == 1);

  // The same role: a token is needed once a tokens file is configured.
  Response r = api->handle(request("GET", "/metrics", nullptr));
  CHECK(r.status == 401);
  CHECK(error_of(r) == "a bearer token is required");
  CHECK(api->handle(request("GET", "/metrics", "not-a-known-token-at-all")).status == 401);
  // The same methods: HEAD as GET, the rest 405 with Allow.
  r = api->handle(request("HEAD", "/metrics"));
  CHECK(r.status == 200);
  CHECK(r.head);
  r = api->handle(request("POST", "/metrics", kOperatorToken));
  CHECK(r.status == 405);
  REQUIRE(r.headers.size() == 1);
  CHECK(r.headers[0].first == "Allow");
  CHECK(r.headers[0].second == "GET, HEAD");
  // Only the exact path: neighbours are still 404.
  CHECK(api->handle(request("GET", "/metrics/x")).status == 404);
  CHECK(api->handle(request("GET", "/api/metrics")).status == 404);
  // Without a tokens file: anonymous viewers, at both paths.
  auto open = b.api(/*read_only=*/false, /*with_tokens=*/false);
  r = open->handle(request("GET", "/metrics", nullptr));
  CHECK(r.status == 200);
  CHECK(r.body == open->handle(request("GET", "/api/v1/metrics", nullptr)).body);
}

TEST_CASE("web metrics: guard budget against the caps of the configuration", "[web]") {
  WebBench b;  // leaf001/3 disabled 300 s ago by an executed disable
  b.backend.health_value.max_disabled_total = 4;
  b.backend.health_value.max_actions_per_hour = 3;
  store::WriteBatch w;
  core::DecisionRecord d;
  d.rule = "symbol_errors", d.node_guid = kLeaf, d.node = "leaf001", d.port = 2;
  d.action = "disable", d.status = "executed", d.reason = "older";
  d.time_us = kNow - 2 * 3600 * kSecond;  // outside the hour: not counted
  w.decisions.push_back(d);
  d.time_us = kNow - 60 * kSecond, d.status = "refused";  // refused: not counted
  w.decisions.push_back(d);
  d.time_us = kNow - 30 * kSecond, d.status = "pending";  // in flight: counted, as the guard does
  w.decisions.push_back(d);
  core::DecisionRecord drain = d;  // a Slurm drain in progress: not a port action
  drain.rule = "slurm", drain.action = "slurm_drain", drain.time_us = kNow - 900 * kSecond;
  w.decisions.push_back(drain);
  b.db->write(w);
  std::string text = b.api()->handle(request("GET", "/metrics")).body;
  CHECK(series(text, "ibwarden_guard_max_disabled_ports") == 4);
  CHECK(series(text, "ibwarden_guard_max_disables_per_hour") == 3);
  CHECK(series(text, "ibwarden_guard_disables_last_hour") == 2);
  CHECK(series(text, "ibwarden_disabled_ports") == 1);
  CHECK(series(text, "ibwarden_port_actions_pending") == 1);  // the disable in flight
  CHECK(series(text, "ibwarden_port_actions_pending_oldest_age_seconds") == 30);

  // Unknown caps (a backend that does not say) are not exported at all.
  b.backend.health_value.max_disabled_total = -1;
  b.backend.health_value.max_actions_per_hour = -1;
  text = b.api()->handle(request("GET", "/metrics")).body;
  CHECK_FALSE(has_family(text, "ibwarden_guard_max_disabled_ports"));
  CHECK_FALSE(has_family(text, "ibwarden_guard_max_disables_per_hour"));
  CHECK(series(text, "ibwarden_guard_disables_last_hour") == 2);
}

TEST_CASE("web metrics: one since-timestamp series per disabled port", "[web]") {
  WebBench b;
  auto api = b.api();
  std::string text = api->handle(request("GET", "/metrics")).body;
  CHECK(series(text,
               "ibwarden_disabled_port_since_timestamp_seconds{node=\"leaf001\",node_guid="
               "\"0x0002c90200000001\",port=\"3\",cable=\"C-3\"}") == 1'800'000'000 - 300);
  // A second port, disabled 8 days ago; then leaf001/3 enabled again: its series goes.
  store::WriteBatch w;
  w.disabled_add.push_back(
      {kHost2, 1, kNow - 8 * 86400 * kSecond, 0, core::link_key(kHost2, 1, kLeaf, 2)});
  w.disabled_remove.emplace_back(kLeaf, 3);
  b.db->write(w);
  text = api->handle(request("GET", "/metrics")).body;
  CHECK(text.find("port=\"3\"") == std::string::npos);
  CHECK(series(text,
               "ibwarden_disabled_port_since_timestamp_seconds{node=\"node0002 mlx5_0\","
               "node_guid=\"0x0002c90300000012\",port=\"1\",cable=\"C-2\"}") ==
        1'800'000'000 - 8 * 86400);
  CHECK(series(text, "ibwarden_disabled_ports") == 1);
  // None disabled: the family is still listed (rules may name it), with no sample.
  w = {};
  w.disabled_remove.emplace_back(kHost2, 1);
  b.db->write(w);
  text = api->handle(request("GET", "/metrics")).body;
  CHECK(has_family(text, "ibwarden_disabled_port_since_timestamp_seconds"));
  CHECK(text.find("ibwarden_disabled_port_since_timestamp_seconds{") == std::string::npos);
  CHECK(series(text, "ibwarden_disabled_ports") == 0);
}

TEST_CASE("web metrics: the webhook outbox backlog - failing items and the oldest age", "[web]") {
  WebBench b;  // its orders were written without the outbox
  b.backend.outbox = true;
  auto api = b.api();
  std::string text = api->handle(request("GET", "/metrics")).body;
  CHECK(series(text, "ibwarden_webhook_configured") == 1);
  CHECK(series(text, "ibwarden_webhook_outbox_pending_items") == 0);
  CHECK(series(text, "ibwarden_webhook_outbox_oldest_pending_age_seconds") == 0);

  queue_change(*b.db, "first", kNow - 1200 * kSecond);  // queued 20 minutes ago
  queue_change(*b.db, "second", kNow - 60 * kSecond);
  queue_change(*b.db, "third", kNow - 10 * kSecond);
  auto due = b.db->outbox_due(kNow, 0);
  REQUIRE(due.size() == 3);
  b.db->outbox_failed(due[0].id, kNow + 60 * kSecond, "HTTP 503");
  b.db->outbox_failed(due[0].id, kNow + 120 * kSecond, "HTTP 503");
  b.db->outbox_failed(due[1].id, kNow + 60 * kSecond, "timeout");
  text = api->handle(request("GET", "/metrics")).body;
  CHECK(series(text, "ibwarden_webhook_outbox_pending_items") == 3);
  CHECK(series(text, "ibwarden_webhook_outbox_failing_items") == 2);
  CHECK(series(text, "ibwarden_webhook_outbox_failed_attempts") == 3);
  CHECK(series(text, "ibwarden_webhook_outbox_oldest_pending_age_seconds") == 1200);

  // The oldest delivered: the next one (60 s) is now the oldest; delivered items do not count.
  b.db->outbox_delivered(due[0].id, kNow);
  text = api->handle(request("GET", "/metrics")).body;
  CHECK(series(text, "ibwarden_webhook_outbox_pending_items") == 2);
  CHECK(series(text, "ibwarden_webhook_outbox_failing_items") == 1);
  CHECK(series(text, "ibwarden_webhook_outbox_failed_attempts") == 1);
  CHECK(series(text, "ibwarden_webhook_outbox_oldest_pending_age_seconds") == 60);
  b.db->outbox_delivered(due[1].id, kNow);
  b.db->outbox_delivered(due[2].id, kNow);
  text = api->handle(request("GET", "/metrics")).body;
  CHECK(series(text, "ibwarden_webhook_outbox_pending_items") == 0);
  CHECK(series(text, "ibwarden_webhook_outbox_oldest_pending_age_seconds") == 0);
  b.backend.outbox = false;
  CHECK(series(api->handle(request("GET", "/metrics")).body, "ibwarden_webhook_configured") == 0);
}

TEST_CASE("web metrics: families listed without samples - and dropped with the store", "[web]") {
  web::MetricsSnapshot m;
  m.health.max_disabled_total = 16;
  m.store_up = true;
  std::string text = web::render_metrics(m);
  // Probing off: listed (alert rules may name them), no sample.
  CHECK(has_family(text, "ibwarden_cursed_route_suspects"));
  CHECK_FALSE(series(text, "ibwarden_cursed_route_suspects"));
  CHECK(has_family(text, "ibwarden_probe_window_observations"));
  m.cursed_suspects = 2;
  m.probe_observations = 40;
  text = web::render_metrics(m);
  CHECK(series(text, "ibwarden_cursed_route_suspects") == 2);
  CHECK(series(text, "ibwarden_probe_window_observations") == 40);
  m.disabled_since.push_back({"sw\"1", 0x10, 7, "", 1'700'000'000'500'000});
  text = web::render_metrics(m);
  CHECK(series(text,
               "ibwarden_disabled_port_since_timestamp_seconds{node=\"sw\\\"1\",node_guid="
               "\"0x0000000000000010\",port=\"7\",cable=\"\"}") == 1'700'000'000.5);
  // Store down: the store-derived families go, the configuration's caps stay.
  m.store_up = false;
  text = web::render_metrics(m);
  CHECK(series(text, "ibwarden_guard_max_disabled_ports") == 16);
  CHECK_FALSE(has_family(text, "ibwarden_guard_disables_last_hour"));
  CHECK_FALSE(has_family(text, "ibwarden_webhook_outbox_pending_items"));
  CHECK_FALSE(has_family(text, "ibwarden_port_actions_pending"));
  CHECK_FALSE(has_family(text, "ibwarden_disabled_port_since_timestamp_seconds"));
}

TEST_CASE("web metrics: the route check families - samples only after a check", "[web]") {
  web::MetricsSnapshot m;
  std::string text = web::render_metrics(m);
  for (const char* name : {"ibwarden_route_credit_loops", "ibwarden_route_unreachable_pairs",
                           "ibwarden_route_balance_ratio", "ibwarden_route_fallback"}) {
    CHECK(has_family(text, name));
    CHECK_FALSE(series(text, name));
  }
  CHECK(text.find("# TYPE ibwarden_route_checks_total counter\n") != std::string::npos);
  m.route_check = web::MetricsSnapshot::RouteCheck{2, 5, 3, 1.5, true};
  text = web::render_metrics(m);
  CHECK(series(text, "ibwarden_route_credit_loops") == 2);
  CHECK(series(text, "ibwarden_route_unreachable_pairs") == 5);
  CHECK(series(text, "ibwarden_route_checks_total") == 3);
  CHECK(series(text, "ibwarden_route_balance_ratio") == 1.5);
  CHECK(series(text, "ibwarden_route_fallback") == 1);
  m.live = false;  // another fabric's scrape: this daemon's own route check is left out
  CHECK_FALSE(has_family(web::render_metrics(m), "ibwarden_route_credit_loops"));
}

TEST_CASE("web metrics: the store checkpoints - counted and a failing thread degrades health",
          "[web]") {
  WebBench b;
  b.backend.health_value.sources = {{"opensm", web::SourceStatus::ok, "", kNow}};
  b.backend.health_value.checkpoints = {40, 37, 2, 3, false, "checkpoint of /x: disk I/O error"};
  auto api = b.api();
  std::string text = api->handle(request("GET", "/metrics")).body;
  CHECK(text.find("# TYPE ibwarden_store_checkpoints_total counter\n") != std::string::npos);
  CHECK(series(text, "ibwarden_store_checkpoints_total{where=\"thread\"}") == 37);
  CHECK(series(text, "ibwarden_store_checkpoints_total{where=\"in_commit\"}") == 3);
  CHECK(series(text, "ibwarden_store_checkpoint_failures_total") == 2);
  // Failures in the past, the last checkpoint done: the store is healthy.
  auto j = body_of(api->handle(request("GET", "/api/v1/health")));
  CHECK(j["status"] == "ok");
  CHECK(j["store"]["status"] == "ok");
  // The thread's last checkpoint failed: every commit that fills the WAL checkpoints in place.
  b.backend.health_value.checkpoints.failing = true;
  j = body_of(api->handle(request("GET", "/api/v1/health")));
  CHECK(j["status"] == "degraded");
  CHECK(j["store"]["status"] == "degraded");
  CHECK(j["store"]["detail"].get<std::string>().find("disk I/O error") != std::string::npos);
  CHECK(j["store"]["schema_version"].is_number());
  // Another fabric's scrape leaves this daemon's own store connection out.
  web::MetricsSnapshot m;
  m.live = false;
  CHECK(web::render_metrics(m).find("ibwarden_store_checkpoints_total") == std::string::npos);
}
