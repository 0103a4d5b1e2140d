// Many fabrics in one web API (issue 17): a fake backend holding two fabrics ("alpha", its
// own, and "beta", watched by another instance), each a SQLite file standing in for one
// PostgreSQL store's rows. GET /fabrics, ?fabric= on the store-backed routes (each fabric's
// rows, its own port list and connections), /health of another fabric from its lease row,
// 409 for the routes about this daemon's live state, never a port action on another fabric,
// and /metrics labelled by fabric with the per-fabric lease families.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "tests/unit/test_web_helpers.h"
#include "web/stream.h"

using namespace ibw;
using namespace ibw::web_test;
using web::Response;

namespace web_fabrics_test {

constexpr uint64_t kBetaLeaf = 0x0002'c902'0000'00b1ULL;

// WebBench's store is fabric "alpha" (held by this instance, "host-a"); "beta" is a second
// store with one leaf of two ports, an event, a decision and an order, leased by "host-b".
struct TwoFabrics : WebBench {
  std::string beta_path = dir.file("beta.db");
  std::unique_ptr<store::Store> beta = store::Store::open(beta_path);
  int64_t beta_order = 0;

  TwoFabrics() {
    store::WriteBatch w;
    w.ports.push_back(port_record(kBetaLeaf, 1, "beta-leaf", 4, 0, "", 0, "B-1"));
    w.ports.push_back(port_record(kBetaLeaf, 2, "beta-leaf", 1, 0, "", 0, "B-2"));
    w.events.push_back(port_event(1, kBetaLeaf, 2, "beta-leaf", "link_down"));
    core::DecisionRecord d;
    d.time_us = kNow - 60 * kSecond, d.rule = "flapping", d.node_guid = kBetaLeaf;
    d.node = "beta-leaf", d.port = 2, d.action = "work_order", d.status = "dry_run";
    d.reason = "flaps on beta-leaf/2", d.link_key = core::link_key(kBetaLeaf, 2, 0, 0);
    w.decisions.push_back(d);
    core::WorkOrder o = order(d.link_key, 2, 0, "error", false);
    o.a = {kBetaLeaf, "beta-leaf", 2, ""};
    o.summary = "flaps on beta-leaf/2";
    w.workorders.push_back(o);
    beta_order = beta->write(w).workorder_ids.at(0);

    backend.own_name = "alpha";
    backend.own_lease = lease("alpha", "host-a", kNow + 15 * kSecond, "[]");
    backend.health_value.sources = {{"opensm", web::SourceStatus::ok, "", kNow - kSecond}};
    store::FabricEntry e{"beta", lease("beta", "host-b", kNow + 10 * kSecond,
                                       R"([{"name":"opensm","status":"down","detail":"no log",)"
                                       R"("last_ok":"2027-01-15T07:59:00Z"}])")};
    backend.others.push_back({e, beta_path});
  }

  static store::Lease lease(const std::string& fabric, const std::string& holder,
                            int64_t expires_us, const std::string& sources) {
    store::Lease l;
    l.fabric = fabric, l.holder = holder, l.epoch = 3, l.expires_us = expires_us;
    l.now_us = kNow, l.sources = sources;
    return l;
  }
};

std::vector<std::string> port_nodes(const Response& r) {
  std::vector<std::string> out;
  nlohmann::json body = body_of(r);
  for (const auto& p : body["ports"]) out.push_back(p["node"].get<std::string>());
  return out;
}

}  // namespace web_fabrics_test

using namespace web_fabrics_test;

TEST_CASE("web fabrics: GET /fabrics lists every fabric with its leader and sources", "[web]") {
  TwoFabrics b;
  auto api = b.api();
  Response r = api->handle(request("GET", "/api/v1/fabrics"));
  REQUIRE(r.status == 200);
  auto j = body_of(r);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 2);
  auto names = [](const nlohmann::json& e) {
    std::vector<std::string> k;
    for (auto it = e.begin(); it != e.end(); ++it) k.push_back(it.key());
    std::sort(k.begin(), k.end());
    return k;
  };
  CHECK(names(j[0]) == std::vector<std::string>{"leader", "lease_expires", "name", "sources"});
  CHECK(j[0]["name"] == "alpha");
  CHECK(j[0]["leader"] == "host-a");
  CHECK(j[0]["lease_expires"] == "2027-01-15T08:00:15.000000Z");
  // The own fabric's sources are live (as /health shows them), not the lease row's "[]".
  REQUIRE(j[0]["sources"].size() == 1);
  CHECK(j[0]["sources"][0]["name"] == "opensm");
  CHECK(j[0]["sources"][0]["status"] == "ok");
  CHECK(j[1]["name"] == "beta");
  CHECK(j[1]["leader"] == "host-b");
  CHECK(j[1]["lease_expires"] == "2027-01-15T08:00:10.000000Z");
  CHECK(j[1]["sources"][0]["status"] == "down");
  CHECK(j[1]["sources"][0]["detail"] == "no log");
  CHECK(j[1]["sources"][0]["last_ok"] == "2027-01-15T07:59:00.000000Z");
}

TEST_CASE("web fabrics: one SQLite fabric without a lease has a null leader", "[web]") {
  WebBench b;  // the fake's own fabric, "default", no lease, no other fabric
  auto j = body_of(b.api()->handle(request("GET", "/api/v1/fabrics")));
  REQUIRE(j.size() == 1);
  CHECK(j[0]["name"] == "default");
  CHECK(j[0]["leader"].is_null());
  CHECK(j[0]["lease_expires"].is_null());
  CHECK(j[0]["sources"].is_array());
  auto h = body_of(b.api()->handle(request("GET", "/api/v1/health")));
  CHECK(h["fabric"] == "default");
  CHECK(h["leader"].is_null());
  CHECK(h["role"] == "leader");
}

TEST_CASE("web fabrics: ?fabric= reads that fabric's rows on store routes", "[web]") {
  TwoFabrics b;
  auto api = b.api();
  CHECK(port_nodes(api->handle(request("GET", "/api/v1/ports?fabric=beta"))) ==
        std::vector<std::string>{"beta-leaf", "beta-leaf"});
  auto own = port_nodes(api->handle(request("GET", "/api/v1/ports")));
  CHECK(own.size() == 6);
  CHECK(port_nodes(api->handle(request("GET", "/api/v1/ports?fabric=alpha"))) == own);

  auto ev = body_of(api->handle(request("GET", "/api/v1/events?fabric=beta")));
  REQUIRE(ev["events"].size() == 1);
  CHECK(ev["events"][0]["node"] == "beta-leaf");
  CHECK(body_of(api->handle(request("GET", "/api/v1/events")))["events"].size() == 6);
  auto dec = body_of(api->handle(request("GET", "/api/v1/decisions?fabric=beta&limit=10")));
  REQUIRE(dec["decisions"].size() == 1);
  CHECK(dec["decisions"][0]["reason"] == "flaps on beta-leaf/2");
  auto wo = body_of(api->handle(request("GET", "/api/v1/workorders?fabric=beta")));
  REQUIRE(wo["workorders"].size() == 1);
  CHECK(wo["workorders"][0]["summary"] == "flaps on beta-leaf/2");
  auto fab = body_of(api->handle(request("GET", "/api/v1/fabric?fabric=beta")));
  CHECK(fab["ports"] == 2);
  CHECK(fab["disabled"] == 0);
  auto port = api->handle(request("GET", "/api/v1/ports/beta-leaf/2?fabric=beta"));
  REQUIRE(port.status == 200);
  CHECK(body_of(port)["port"]["node"] == "beta-leaf");
  CHECK(api->handle(request("GET", "/api/v1/ports/beta-leaf/2")).status == 404);
  CHECK(b.backend.other_opens > 0);

  Response unknown = api->handle(request("GET", "/api/v1/ports?fabric=gamma"));
  CHECK(unknown.status == 404);
  CHECK(error_of(unknown) == "no fabric gamma in the store");
  CHECK(api->handle(request("GET", "/api/v1/whoami?fabric=beta")).status == 200);
}

TEST_CASE("web fabrics: the port list is cached per fabric", "[web]") {
  TwoFabrics b;
  web::ApiOptions o = b.options();
  o.ports_cache_us = 3600 * kSecond;  // both lists stay fresh for the whole test
  web::Api api(b.backend, o, web::TokenSet::parse(tokens_text(), "tokens"));
  CHECK(port_nodes(api.handle(request("GET", "/api/v1/ports"))).size() == 6);
  CHECK(port_nodes(api.handle(request("GET", "/api/v1/ports?fabric=beta"))).size() == 2);
  CHECK(port_nodes(api.handle(request("GET", "/api/v1/ports"))).size() == 6);
  CHECK(body_of(api.handle(request("GET", "/api/v1/fabric?fabric=beta")))["ports"] == 2);
}

TEST_CASE("web fabrics: PATCH a work order of another fabric writes that fabric", "[web]") {
  TwoFabrics b;
  auto api = b.api();
  std::string target = "/api/v1/workorders/" + std::to_string(b.beta_order) + "?fabric=beta";
  Response r = api->handle(request("PATCH", target, kOperatorToken, R"({"assignee": "kim"})"));
  REQUIRE(r.status == 200);
  CHECK(body_of(r)["assignee"] == "kim");
  CHECK(b.beta->workorder(b.beta_order)->assignee == "kim");
  auto own = b.db->workorder(b.beta_order);  // same id in alpha: untouched
  CHECK((!own || own->assignee.empty()));
}

TEST_CASE("web fabrics: /health of another fabric comes from its lease row", "[web]") {
  TwoFabrics b;
  auto api = b.api();
  auto own = body_of(api->handle(request("GET", "/api/v1/health")));
  CHECK(own["fabric"] == "alpha");
  CHECK(own["leader"] == "host-a");
  CHECK(own["status"] == "ok");
  auto h = body_of(api->handle(request("GET", "/api/v1/health?fabric=beta")));
  CHECK(h["fabric"] == "beta");
  CHECK(h["leader"] == "host-b");
  CHECK(h["lease_expires"] == "2027-01-15T08:00:10.000000Z");
  CHECK(h["watched"] == true);
  CHECK(h["status"] == "down");  // its opensm source is down
  CHECK(h["sources"]["opensm"]["detail"] == "no log");
  CHECK(h["store"]["status"] == "ok");
  // Expired: nobody watches it.
  b.backend.others[0].entry.lease->expires_us = kNow - kSecond;
  b.backend.others[0].entry.lease->sources = "[]";
  h = body_of(api->handle(request("GET", "/api/v1/health?fabric=beta")));
  CHECK(h["watched"] == false);
  CHECK(h["status"] == "down");
  CHECK(h["leader"] == "host-b");
}

TEST_CASE("web fabrics: live-state routes of another fabric answer 409 naming its leader",
          "[web]") {
  TwoFabrics b;
  auto api = b.api();
  const std::string why = "fabric beta is watched by host-b; ask it";
  for (const char* target : {"/api/v1/suspects?fabric=beta", "/api/v1/routes/health?fabric=beta",
                             "/api/v1/audit?fabric=beta"}) {
    Response r = api->handle(request("GET", target));
    INFO(target);
    CHECK(r.status == 409);
    CHECK(error_of(r).rfind(why, 0) == 0);
  }
  Response audit = api->handle(request("POST", "/api/v1/audit?fabric=beta", kOperatorToken));
  CHECK(audit.status == 409);
  CHECK(b.backend.audits_run == 0);
  web::Request probes = request("POST", "/api/v1/probes?fabric=beta", kOperatorToken);
  probes.headers["content-type"] = "text/csv";
  probes.body = "src,dst,sent,lost\n";
  CHECK(api->handle(probes).status == 409);
  // A port action is never performed on another fabric.
  Response d = api->handle(request("POST", "/api/v1/ports/beta-leaf/2/disable?fabric=beta",
                                   kOperatorToken, R"({"reason": "bad cable"})"));
  CHECK(d.status == 409);
  CHECK(error_of(d).rfind(why, 0) == 0);
  CHECK(b.backend.actions.empty());
  CHECK(b.beta->disabled_ports().empty());
  // The own fabric, named: acted on as without ?fabric=.
  Response own = api->handle(request("POST", "/api/v1/ports/leaf001/2/disable?fabric=alpha",
                                     kOperatorToken, R"({"reason": "bad cable"})"));
  CHECK(own.status == 200);
  CHECK(b.backend.actions.size() == 1);
}

TEST_CASE("web fabrics: /metrics is labelled by fabric with per-fabric leases", "[web]") {
  TwoFabrics b;
  b.backend.health_value.rules_loaded = 2;
  auto api = b.api();
  std::string own = api->handle(request("GET", "/metrics")).body;
  CHECK(own.find("\nibwarden_up{fabric=\"alpha\"} 1\n") != std::string::npos);
  CHECK(own.find("\nibwarden_rules_loaded{fabric=\"alpha\"} 2\n") != std::string::npos);
  CHECK(own.find("\nibwarden_links{fabric=\"alpha\"} 2\n") != std::string::npos);
  CHECK(own.find("\nibwarden_ha_leader{fabric=\"alpha\"} 1\n") != std::string::npos);
  CHECK(own.find("\nibwarden_ha_leader{fabric=\"beta\"} 0\n") != std::string::npos);
  CHECK(own.find("\nibwarden_fabric_lease_expires_seconds{fabric=\"beta\",leader=\"host-b\"} "
                 "1800000010\n") != std::string::npos);
  CHECK(own.find("\nibwarden_fabric_lease_expires_seconds{fabric=\"alpha\",leader=\"host-a\"} "
                 "1800000015\n") != std::string::npos);
  // Every sample line carries a fabric label.
  std::istringstream in(own);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') CHECK(line.find("{fabric=\"") != std::string::npos);

  std::string beta = api->handle(request("GET", "/metrics?fabric=beta")).body;
  CHECK(beta.find("\nibwarden_ports{fabric=\"beta\",state=\"Active\"} 1\n") != std::string::npos);
  CHECK(beta.find("\nibwarden_workorders_open{fabric=\"beta\",severity=\"error\"} 1\n") !=
        std::string::npos);
  CHECK(
      beta.find("ibwarden_source_status{fabric=\"beta\",source=\"opensm\",status=\"down\"} 1\n") !=
      std::string::npos);
  CHECK(beta.find("ibwarden_rules_loaded") == std::string::npos);  // this daemon's own state
  CHECK(beta.find("fabric=\"alpha\",state") == std::string::npos);

  // A standby holds no lease: 0 for its own fabric too.
  b.backend.health_value.leader = false;
  own = api->handle(request("GET", "/metrics")).body;
  CHECK(own.find("\nibwarden_ha_leader{fabric=\"alpha\"} 0\n") != std::string::npos);
  CHECK(body_of(api->handle(request("GET", "/api/v1/health")))["role"] == "standby");
}

TEST_CASE("web fabrics: the event stream of another fabric follows its rows", "[web]") {
  TwoFabrics b;
  auto api = b.api();
  Response r = api->handle(request("GET", "/api/v1/stream?fabric=beta"));
  REQUIRE(r.status == 200);
  REQUIRE(r.stream);
  CHECK(r.body.find("id: 1.1\n") != std::string::npos);  // beta's newest ids, not alpha's 6.2
  store::WriteBatch w;
  w.events.push_back(port_event(9, kBetaLeaf, 1, "beta-leaf", "link_down"));
  b.beta->write(w);
  store::WriteBatch own;
  own.events.push_back(port_event(10, kLeaf, 2, "leaf001", "link_down"));
  b.db->write(own);
  auto p = r.stream->poll();
  REQUIRE(p.messages.size() == 1);
  CHECK(p.messages[0].find("beta-leaf") != std::string::npos);
}

TEST_CASE("web fabrics: sources_json is what a lease row carries", "[web]") {
  std::vector<web::SourceHealth> s = {{"opensm", web::SourceStatus::degraded, "slow", kNow},
                                      {"ufm", web::SourceStatus::disabled, "", 0}};
  auto j = nlohmann::json::parse(web::sources_json(s));
  REQUIRE(j.size() == 2);
  CHECK(j[0]["name"] == "opensm");
  CHECK(j[0]["status"] == "degraded");
  CHECK(j[0]["detail"] == "slow");
  CHECK(j[0]["last_ok"] == "2027-01-15T08:00:00.000000Z");
  CHECK(j[1]["last_ok"] == "");
}
