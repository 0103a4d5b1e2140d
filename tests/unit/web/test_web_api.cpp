// Web API read endpoints through Api::handle on a temporary store: authentication (401),
// roles and read-only mode (403), routing (404/405), bad parameters (400), /health, /fabric,
// /ports with filters and pagination, /ports/{node}/{port}, /events, /decisions, /metrics.
#include <catch2/catch.hpp>

#include "tests/unit/test_web_helpers.h"

using namespace ibw;
using namespace ibw::web_test;
using web::Response;

TEST_CASE("web api: 401 without a token or with an unknown one", "[web]") {
  WebBench b;
  auto api = b.api();
  Response r = api->handle(request("GET", "/api/v1/health", nullptr));
  CHECK(r.status == 401);
  CHECK(error_of(r) == "a bearer token is required");
  REQUIRE(r.headers.size() == 1);
  CHECK(r.headers[0].first == "WWW-Authenticate");
  CHECK(r.headers[0].second == "Bearer realm=\"ibwarden\"");
  r = api->handle(request("GET", "/api/v1/health", "not-a-known-token-at-all"));
  CHECK(r.status == 401);
  CHECK(r.headers[0].second.find("invalid_token") != std::string::npos);
  web::Request basic = request("GET", "/api/v1/health", nullptr);
  basic.headers["authorization"] = "Basic dXNlcjpwYXNz";
  CHECK(api->handle(basic).status == 401);
  CHECK(api->handle(request("GET", "/api/v1/health")).status == 200);
  CHECK(api->handle(request("GET", "/api/v1/health")).actor == "viewer@tokens:3");
}

TEST_CASE("web api: a viewer may read but not act and an operator may act", "[web]") {
  WebBench b;
  auto api = b.api();
  std::string body = R"({"reason": "cleaning"})";
  Response r = api->handle(request("POST", "/api/v1/ports/leaf001/1/disable", kViewerToken, body));
  CHECK(r.status == 403);
  CHECK(error_of(r) == "this needs the operator role (the token has viewer)");
  CHECK(b.backend.actions.empty());
  r = api->handle(request("POST", "/api/v1/ports/leaf001/1/disable", kOperatorToken, body));
  CHECK(r.status == 200);
  REQUIRE(b.backend.actions.size() == 1);
  CHECK(b.backend.actions[0].actor == "operator@tokens:4");
}

TEST_CASE("web api: read-only mode refuses every mutating endpoint", "[web]") {
  WebBench b;
  auto api = b.api(/*read_only=*/true);
  std::string reason = R"({"reason": "x"})";
  for (auto [method, target] :
       std::vector<std::pair<std::string, std::string>>{{"POST", "/api/v1/ports/leaf001/1/disable"},
                                                        {"POST", "/api/v1/ports/leaf001/3/enable"},
                                                        {"PATCH", "/api/v1/workorders/1"},
                                                        {"POST", "/api/v1/audit"}}) {
    Response r = api->handle(request(method, target, kAdminToken, reason));
    INFO(method << " " << target);
    CHECK(r.status == 403);
    CHECK(error_of(r) == "read-only mode");
  }
  CHECK(b.backend.actions.empty());
  CHECK(b.backend.audits_run == 0);
  CHECK(api->handle(request("GET", "/api/v1/fabric")).status == 200);
}

TEST_CASE("web api: without a tokens file everyone is an anonymous viewer and read-only", "[web]") {
  WebBench b;
  auto api = b.api(/*read_only=*/false, /*with_tokens=*/false);
  Response r = api->handle(request("GET", "/api/v1/ports", nullptr));
  CHECK(r.status == 200);
  CHECK(r.actor == "anonymous");
  r = api->handle(request("POST", "/api/v1/audit", kAdminToken));
  CHECK(r.status == 403);
  CHECK(error_of(r) == "read-only mode");
  CHECK(body_of(api->handle(request("GET", "/api/v1/health", nullptr)))["read_only"] == true);
  // New tokens (SIGHUP) apply to the next request.
  api->reconfigure(false, web::TokenSet::parse(tokens_text(), "tokens"));
  CHECK(api->handle(request("GET", "/api/v1/ports", nullptr)).status == 401);
  CHECK(api->handle(request("POST", "/api/v1/audit", kOperatorToken)).status == 200);
}

TEST_CASE("web api: unknown paths are 404 and wrong methods 405 with Allow", "[web]") {
  WebBench b;
  auto api = b.api();
  CHECK(api->handle(request("GET", "/api/v1/nope")).status == 404);
  CHECK(api->handle(request("GET", "/api/v2/health")).status == 404);
  CHECK(api->handle(request("GET", "/index.html")).status == 404);  // the dashboard is "/"
  CHECK(api->handle(request("GET", "/api/v1/ports/leaf001/1/reboot")).status == 404);
  Response r = api->handle(request("DELETE", "/api/v1/workorders/1", kAdminToken));
  CHECK(r.status == 405);
  REQUIRE(r.headers.size() == 1);
  CHECK(r.headers[0] == std::pair<std::string, std::string>{"Allow", "GET, HEAD, PATCH"});
  r = api->handle(request("GET", "/api/v1/ports/leaf001/1/disable"));
  CHECK(r.status == 405);
  CHECK(r.headers[0].second == "POST");
  CHECK(api->handle(request("GET", "/api/v1/ports?bogus=1")).status == 400);
  CHECK(error_of(api->handle(request("GET", "/api/v1/ports/%zz/1"))) ==
        "malformed percent-encoding in the path");
}

TEST_CASE("web api: health is the worst source and includes the store", "[web]") {
  WebBench b;
  b.backend.health_value.sources = {{"opensm", web::SourceStatus::ok, "", kNow - kSecond},
                                    {"counters", web::SourceStatus::degraded, "3 ports silent", 0},
                                    {"ufm", web::SourceStatus::disabled, "", 0}};
  b.backend.health_value.started_us = kNow - 3600 * kSecond;
  b.backend.health_value.sweep_seconds = 0.031;
  b.backend.health_value.sweep_time_us = kNow - 2 * kSecond;
  auto api = b.api();
  auto j = body_of(api->handle(request("GET", "/api/v1/health")));
  CHECK(j["status"] == "degraded");
  CHECK(j["sources"]["counters"]["detail"] == "3 ports silent");
  CHECK(j["sources"]["opensm"]["last_ok"] == "2027-01-15T07:59:59.000000Z");
  CHECK(j["sources"]["ufm"]["status"] == "disabled");
  CHECK(j["store"]["status"] == "ok");
  CHECK(j["last_sweep"]["seconds"] == 0.031);
  CHECK(j["read_only"] == false);
  b.backend.fail_store = true;
  j = body_of(b.api()->handle(request("GET", "/api/v1/health")));  // no cached connection
  CHECK(j["status"] == "down");
  CHECK(j["store"]["detail"].get<std::string>().find("disk on fire") != std::string::npos);
}

TEST_CASE("web api: a token prefix that keeps failing from an address is answered 429 for a while",
          "[web]") {
  WebBench b;
  int64_t now = kNow;
  web::ApiOptions o = b.options();
  o.now_us = [&] { return now; };
  o.max_auth_failures = 3;
  o.auth_window_us = 60 * kSecond;
  web::Api api(b.backend, o, web::TokenSet::parse(tokens_text(), "tokens"));
  auto from = [](const char* peer, const char* token) {
    web::Request r = request("GET", "/api/v1/health", token);
    r.peer = peer;
    return r;
  };
  for (int i = 0; i < 3; ++i)
    CHECK(api.handle(from("10.0.0.7", "guess-guess-guess")).status == 401);
  Response r = api.handle(from("10.0.0.7", "guess-guess-guess"));
  CHECK(r.status == 429);
  REQUIRE(!r.headers.empty());
  CHECK(r.headers[0] == std::pair<std::string, std::string>{"Retry-After", "60"});
  // Only that prefix from that address: a right token from the same address (a colleague
  // behind the same proxy) still works, and other addresses are not affected.
  CHECK(api.handle(from("10.0.0.7", kViewerToken)).status == 200);
  CHECK(api.handle(from("10.0.0.7", "guess-guess-other")).status == 429);  // same 8 characters
  CHECK(api.handle(from("10.0.0.8", "guess-guess-guess")).status == 401);
  CHECK(api.handle(from("10.0.0.8", nullptr)).status == 401);  // a missing token is no guess
  now += 30 * kSecond;
  CHECK(api.handle(from("10.0.0.7", "guess-guess-guess")).headers[0].second == "30");
  now += 30 * kSecond;  // the window has ended
  CHECK(api.handle(from("10.0.0.7", "guess-guess-guess")).status == 401);
  for (int i = 0; i < 5; ++i) api.handle(from("10.0.0.9", nullptr));
  CHECK(api.handle(from("10.0.0.9", kViewerToken)).status == 200);
}

TEST_CASE("web api: enforce mode with no rules loaded is degraded in health and metrics", "[web]") {
  WebBench b;
  b.backend.health_value.sources = {{"opensm", web::SourceStatus::ok, "", kNow}};
  b.backend.health_value.enforce = true;
  b.backend.health_value.rules_loaded = -1;  // no rules file
  auto j = body_of(b.api()->handle(request("GET", "/api/v1/health")));
  CHECK(j["status"] == "degraded");
  CHECK(j["rules"]["status"] == "degraded");
  CHECK(j["rules"]["loaded"].is_null());
  CHECK(j["rules"]["mode"] == "enforce");
  auto text = b.api()->handle(request("GET", "/api/v1/metrics")).body;
  CHECK(text.find("\nibwarden_rules_loaded{fabric=\"default\"} 0\n") != std::string::npos);
  CHECK(text.find("\nibwarden_actions_enforce{fabric=\"default\"} 1\n") != std::string::npos);
  b.backend.health_value.rules_loaded = 0;  // a rules file with every rule disabled
  CHECK(body_of(b.api()->handle(request("GET", "/api/v1/health")))["rules"]["loaded"] == 0);
  CHECK(body_of(b.api()->handle(request("GET", "/api/v1/health")))["status"] == "degraded");
  b.backend.health_value.rules_loaded = 7;
  j = body_of(b.api()->handle(request("GET", "/api/v1/health")));
  CHECK(j["status"] == "ok");
  CHECK(j["rules"]["status"] == "ok");
  CHECK(j["rules"]["loaded"] == 7);
  text = b.api()->handle(request("GET", "/api/v1/metrics")).body;
  CHECK(text.find("\nibwarden_rules_loaded{fabric=\"default\"} 7\n") != std::string::npos);
  b.backend.health_value.enforce = false;  // dry-run with no rules: nothing to act on anyway
  b.backend.health_value.rules_loaded = -1;
  CHECK(body_of(b.api()->handle(request("GET", "/api/v1/health")))["status"] == "ok");
}

TEST_CASE("web api: fabric counts nodes links down disabled and open orders", "[web]") {
  WebBench b;
  auto j = body_of(b.api()->handle(request("GET", "/api/v1/fabric")));
  CHECK(j["nodes"] == 3);
  CHECK(j["ports"] == 6);
  CHECK(j["links"] == 2);
  CHECK(j["down"] == 0);  // leaf001/3 is disabled, leaf001/4 unplanned
  CHECK(j["disabled"] == 1);
  CHECK(j["ports_by_state"]["Active"] == 4);
  CHECK(j["ports_by_state"]["Down"] == 2);
  REQUIRE(j["disabled_ports"].size() == 1);
  CHECK(j["disabled_ports"][0]["node"] == "leaf001");
  CHECK(j["disabled_ports"][0]["port"] == 3);
  CHECK(j["disabled_ports"][0]["reason"] == "BER 1e-10 over 12m");
  CHECK(j["disabled_ports"][0]["decision_id"] == 2);
  CHECK(j["open_orders"]["total"] == 2);
  CHECK(j["open_orders"]["needs_human"] == 1);
  CHECK(j["open_orders"]["by_severity"]["critical"] == 1);
  CHECK(j["open_orders"]["by_severity"]["warning"] == 1);
}

TEST_CASE("web api: ports filter by node state and errors", "[web]") {
  WebBench b;
  auto api = b.api();
  auto j = body_of(api->handle(request("GET", "/api/v1/ports")));
  CHECK(j["total"] == 6);
  REQUIRE(j["ports"].size() == 6);
  CHECK(j["ports"][0]["node"] == "leaf001");
  CHECK(j["ports"][0]["cable_id"] == "C-1");
  CHECK(j["ports"][0]["counters"].contains("SymbolErrorCounter"));
  CHECK(j["ports"][2]["disabled_by_ibwarden"] == true);
  CHECK(j["next_offset"].is_null());
  j = body_of(api->handle(request("GET", "/api/v1/ports?node=node0002%20mlx5_0")));
  REQUIRE(j["total"] == 1);
  CHECK(j["ports"][0]["peer_node"] == "leaf001");
  j = body_of(api->handle(request("GET", "/api/v1/ports?node=0x0002C90300000012")));
  CHECK(j["total"] == 1);
  j = body_of(api->handle(request("GET", "/api/v1/ports?node=leaf001&state=Down")));
  CHECK(j["total"] == 2);
  j = body_of(api->handle(request("GET", "/api/v1/ports?has_errors=true")));
  REQUIRE(j["total"] == 1);
  CHECK(j["ports"][0]["port"] == 1);
  CHECK(body_of(api->handle(request("GET", "/api/v1/ports?has_errors=false")))["total"] == 5);
  CHECK(error_of(api->handle(request("GET", "/api/v1/ports?state=broken"))) ==
        "state: must be down, init, armed, active or disabled");
  CHECK(error_of(api->handle(request("GET", "/api/v1/ports?has_errors=yes"))) ==
        "has_errors: must be true or false");
}

TEST_CASE("web api: disabled by ibwarden - errors since cleared - down links counted once",
          "[web]") {
  WebBench b;
  store::WriteBatch w;
  // leaf001/2 and its host both Down: one link down, counted once. Host 1 reports an error
  // count from before (no rise in the last sweep): it has errors, as ibqueryerrors says.
  w.ports.push_back(port_record(kLeaf, 2, "leaf001", 1, kHost2, "node0002 mlx5_0", 1, "C-2"));
  w.ports.push_back(port_record(kHost2, 1, "node0002 mlx5_0", 1, kLeaf, "leaf001", 2, "C-2"));
  w.ports.push_back(port_record(kHost1, 1, "node0001 mlx5_0", 4, kLeaf, "leaf001", 1, "C-1"));
  w.ports.back().counters.value[static_cast<size_t>(ingest::Counter::PortRcvErrors)] = 7;
  b.db->write(w);
  auto api = b.api();
  auto j = body_of(api->handle(request("GET", "/api/v1/fabric")));
  CHECK(j["down"] == 1);
  // leaf001/3 is Polling in its record (a simulator's view), but ibwarden disabled it.
  j = body_of(api->handle(request("GET", "/api/v1/ports?state=disabled")));
  REQUIRE(j["total"] == 1);
  CHECK(j["ports"][0]["port"] == 3);
  j = body_of(api->handle(request("GET", "/api/v1/ports?has_errors=true")));
  REQUIRE(j["total"] == 2);  // leaf001/1 (rose in the last sweep) and node0001 (count 7)
  std::string text = api->handle(request("GET", "/api/v1/metrics")).body;
  CHECK(text.find("ibwarden_ports_down{fabric=\"default\"} 1\n") != std::string::npos);
}

TEST_CASE("web api: metrics are all present before the first sweep and with no orders", "[web]") {
  WebBench b;
  b.backend.health_value.sweep_seconds = -1;  // no sweep yet
  std::string text = b.api()->handle(request("GET", "/api/v1/metrics")).body;
  CHECK(text.find("ibwarden_sweep_duration_seconds{fabric=\"default\"} NaN\n") !=
        std::string::npos);
  CHECK(text.find("ibwarden_last_sweep_timestamp_seconds{fabric=\"default\"} 0\n") !=
        std::string::npos);
  CHECK(text.find("ibwarden_workorders_open{fabric=\"default\",severity=\"info\"} 0\n") !=
        std::string::npos);
  CHECK(text.find("ibwarden_workorders_open{fabric=\"default\",severity=\"critical\"} 1\n") !=
        std::string::npos);
}

TEST_CASE("web api: ports paginate with limit and offset", "[web]") {
  WebBench b;
  auto api = b.api();
  std::vector<std::string> seen;
  std::string target = "/api/v1/ports?limit=4";
  auto j = body_of(api->handle(request("GET", target)));
  CHECK(j["total"] == 6);
  CHECK(j["ports"].size() == 4);
  CHECK(j["next_offset"] == 4);
  j = body_of(api->handle(request("GET", "/api/v1/ports?limit=4&offset=4")));
  CHECK(j["ports"].size() == 2);
  CHECK(j["ports"][0]["node"] == "node0001 mlx5_0");
  CHECK(j["next_offset"].is_null());
  j = body_of(api->handle(request("GET", "/api/v1/ports?offset=100")));
  CHECK(j["ports"].empty());
  CHECK(error_of(api->handle(request("GET", "/api/v1/ports?limit=0"))) ==
        "limit: must be an integer from 1 to 5000");
  CHECK(error_of(api->handle(request("GET", "/api/v1/ports?offset=-1"))).rfind("offset:", 0) == 0);
}

TEST_CASE("web api: port detail has history events order and decisions", "[web]") {
  WebBench b;
  auto api = b.api();
  auto j = body_of(api->handle(request("GET", "/api/v1/ports/leaf001/1?since=1h")));
  CHECK(j["port"]["node"] == "leaf001");
  CHECK(j["port"]["peer_node"] == "node0001 mlx5_0");
  CHECK(j["disabled"].is_null());
  CHECK(j["history"]["samples"] == 10);
  CHECK(j["history"]["times"].size() == 10);
  CHECK(j["history"]["counters"]["SymbolErrorCounter"][9] == 145);
  CHECK(j["events"].size() == 3);
  CHECK(j["events"][0]["kind"] == "link_down");
  CHECK(j["workorder"]["id"] == b.order_open);
  REQUIRE(j["decisions"].size() == 1);
  CHECK(j["decisions"][0]["action"] == "work_order");
  // Down-sampling keeps the newest sample; a counter filter keeps only those named.
  j = body_of(api->handle(
      request("GET", "/api/v1/ports/leaf001/1?max_points=3&counters=SymbolErrorCounter")));
  CHECK(j["history"]["times"].size() == 3);
  CHECK(j["history"]["counters"].size() == 1);
  CHECK(j["history"]["counters"]["SymbolErrorCounter"].back() == 145);
  // A node name with a space, percent-encoded; a disabled port with its order.
  j = body_of(api->handle(request("GET", "/api/v1/ports/node0002%20mlx5_0/1")));
  CHECK(j["events"].size() == 3);
  // The link's far end: leaf001/2 shows the events its peer node0002 reported.
  j = body_of(api->handle(request("GET", "/api/v1/ports/leaf001/2")));
  REQUIRE(j["events"].size() == 3);
  CHECK(j["events"][0]["node"] == "node0002 mlx5_0");
  j = body_of(api->handle(request("GET", "/api/v1/ports/0x0002c90200000001/3")));
  CHECK(j["disabled"]["link_key"] == core::link_key(kLeaf, 3, 0, 0));
  CHECK(j["workorder"]["id"] == b.order_disabled);
  CHECK(j["decisions"][0]["reason"] == "BER 1e-10 over 12m");
}

TEST_CASE("web api: port detail errors name the parameter", "[web]") {
  WebBench b;
  auto api = b.api();
  CHECK(api->handle(request("GET", "/api/v1/ports/leaf009/1")).status == 404);
  CHECK(error_of(api->handle(request("GET", "/api/v1/ports/leaf001/x"))) ==
        "port: must be a port number from 0 to 255");
  CHECK(error_of(api->handle(request("GET", "/api/v1/ports/leaf001/1?counters=Bogus"))) ==
        "counters: unknown counter \"Bogus\"");
  CHECK(error_of(api->handle(request("GET", "/api/v1/ports/leaf001/1?since=soon")))
            .rfind("since:", 0) == 0);
  CHECK(error_of(api->handle(request("GET", "/api/v1/ports/leaf001/1?max_points=1")))
            .rfind("max_points:", 0) == 0);
  // Two nodes with one name: ask for the GUID.
  store::WriteBatch w;
  w.ports.push_back(port_record(0x99, 1, "leaf001", 4, 0, "", 0, ""));
  b.db->write(w);
  Response r = api->handle(request("GET", "/api/v1/ports/leaf001/1"));
  CHECK(r.status == 400);
  CHECK(error_of(r) == "node: \"leaf001\" names 2 nodes; use the node's 0xGUID");
}

TEST_CASE("web api: events page by id with since and limit", "[web]") {
  WebBench b;
  auto api = b.api();
  auto j = body_of(api->handle(request("GET", "/api/v1/events?limit=4")));
  REQUIRE(j["events"].size() == 4);
  CHECK(j["events"][0]["id"] == 1);
  CHECK(j["events"][0]["source"] == "opensm");
  CHECK(j["last_id"] == 4);
  CHECK(j["more"] == true);
  j = body_of(api->handle(request("GET", "/api/v1/events?limit=4&after_id=4")));
  CHECK(j["events"].size() == 2);
  CHECK(j["more"] == false);
  CHECK(j["last_id"] == 6);
  j = body_of(api->handle(request("GET", "/api/v1/events?since=2027-01-15T07:50:04Z")));
  CHECK(j["events"].size() == 3);
  CHECK(body_of(api->handle(request("GET", "/api/v1/events?since=1m")))["events"].empty());
  CHECK(error_of(api->handle(request("GET", "/api/v1/events?after_id=x"))).rfind("after_id:", 0) ==
        0);
  CHECK(error_of(api->handle(request("GET", "/api/v1/events?limit=10001"))) ==
        "limit: must be an integer from 1 to 10000");
}

TEST_CASE("web api: decisions page by id", "[web]") {
  WebBench b;
  auto api = b.api();
  auto j = body_of(api->handle(request("GET", "/api/v1/decisions?limit=1")));
  REQUIRE(j["decisions"].size() == 1);
  CHECK(j["decisions"][0]["rule"] == "symbol_errors");
  CHECK(j["decisions"][0]["node_guid"] == "0x0002c90200000001");
  CHECK(j["more"] == true);
  j = body_of(api->handle(request("GET", "/api/v1/decisions?after_id=1")));
  CHECK(j["decisions"].size() == 1);
  CHECK(j["more"] == false);
  CHECK(body_of(api->handle(request("GET", "/api/v1/decisions?since=1m")))["decisions"].empty());
}

TEST_CASE("web api: metrics in Prometheus text and 503 on a broken store", "[web]") {
  WebBench b;
  b.backend.health_value.sources = {{"opensm", web::SourceStatus::ok, "", 0}};
  auto api = b.api();
  Response r = api->handle(request("GET", "/api/v1/metrics"));
  CHECK(r.status == 200);
  CHECK(r.content_type == "text/plain; version=0.0.4");
  CHECK(r.body.find("ibwarden_disabled_ports{fabric=\"default\"} 1\n") != std::string::npos);
  CHECK(r.body.find("ibwarden_links{fabric=\"default\"} 2\n") != std::string::npos);
  CHECK(r.body.find("ibwarden_events_per_second{fabric=\"default\"} 0\n") != std::string::npos);
  CHECK(r.body.find("ibwarden_workorders_open{fabric=\"default\",severity=\"critical\"} 1\n") !=
        std::string::npos);
  CHECK(r.body.find(
            "ibwarden_source_status{fabric=\"default\",source=\"opensm\",status=\"ok\"} 1\n") !=
        std::string::npos);
  b.backend.fail_store = true;
  auto fresh = b.api();  // no cached connection
  r = fresh->handle(request("GET", "/api/v1/metrics"));
  CHECK(r.status == 200);
  CHECK(r.body.find("ibwarden_store_up{fabric=\"default\"} 0\n") != std::string::npos);
  r = fresh->handle(request("GET", "/api/v1/events"));
  CHECK(r.status == 503);
  CHECK(error_of(r).rfind("store: cannot open", 0) == 0);
}

TEST_CASE("web api: read-only store connections are reused", "[web]") {
  WebBench b;
  auto api = b.api();
  for (int i = 0; i < 5; ++i) REQUIRE(api->handle(request("GET", "/api/v1/events")).status == 200);
  CHECK(b.backend.opens == 1);
}
