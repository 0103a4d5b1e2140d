// The API's guards without sockets: failed logins limited by (address, token prefix), the
// Host check without tokens, generic 500 text, the access record's role, and the event
// streams' shared store reader (one query per tick for all streams).
#include <catch2/catch.hpp>

#include <string>

#include "tests/unit/test_web_helpers.h"
#include "web/server.h"
#include "web/stream.h"

using namespace ibw;
using namespace ibw::web_test;

namespace web_limits_test {

web::Request from(const std::string& peer, const std::string& target, const char* token) {
  web::Request r = request("GET", target, token);
  r.peer = peer;
  return r;
}

// A backend whose audit fails with an internal detail that must not reach the client.
struct FailingBackend : FakeBackend {
  using FakeBackend::FakeBackend;
  nlohmann::json run_audit() override {
    throw std::runtime_error("open /var/lib/ibwarden/secret.db: detail");
  }
};

}  // namespace web_limits_test

using namespace web_limits_test;

TEST_CASE("web limits: 20 wrong tokens from one address leave a right token working", "[web]") {
  WebBench b;
  auto api = b.api();
  std::string wrong = "guessing-token-0000000000";
  int limited = 0;
  for (int i = 0; i < 20; ++i)
    limited += api->handle(from("10.0.0.9", "/api/v1/health", wrong.c_str())).status == 429;
  auto right = api->handle(from("10.0.0.9", "/api/v1/health", kViewerToken));
  auto metrics = api->handle(from("10.0.0.9", "/metrics", kViewerToken));
  auto again = api->handle(from("10.0.0.9", "/api/v1/health", wrong.c_str()));
  WARN("20 wrong tokens from one address: " << limited << " answered 429; then the right token "
                                            << right.status << ", /metrics " << metrics.status);
  CHECK(limited == 10);  // the 11th to 20th
  CHECK(right.status == 200);
  CHECK(metrics.status == 200);
  CHECK(again.status == 429);
  CHECK(metrics.body.find("ibwarden_web_requests_refused_total{fabric=\"default\",reason="
                          "\"auth_limited\"} 10") != std::string::npos);
  CHECK(api->handle(from("10.0.0.8", "/api/v1/health", wrong.c_str())).status == 401);
}

TEST_CASE("web limits: new prefixes do not get round the limit of an address", "[web]") {
  web::AuthLimiter l(10, 60'000'000, 4);
  l.succeeded("10.0.0.9", kViewerToken, 0);  // authenticated before the attack
  for (int i = 0; i < 100; ++i) l.failed("10.0.0.9", "g" + std::to_string(1000000 + i), 1);
  CHECK(l.blocked_for("10.0.0.9", "fresh-prefix-token", 2) == 60);
  CHECK(l.blocked_for("10.0.0.9", kViewerToken, 2) == 0);  // a token known from there
  CHECK(l.blocked_for("10.0.0.9", "fresh-prefix-token", 60'000'001) == 0);  // window over
  for (int i = 0; i < 10; ++i) l.failed("10.0.0." + std::to_string(20 + i), "x", 3);
  CHECK(l.addresses() <= 4);  // bounded
}

TEST_CASE("web limits: without tokens the Host must be an address", "[web]") {
  WebBench b;
  auto api = b.api(false, /*with_tokens=*/false);
  auto with_host = [&](const std::string& host) {
    web::Request r = request("GET", "/api/v1/health", nullptr);
    r.headers["host"] = host;
    return api->handle(r).status;
  };
  CHECK(with_host("127.0.0.1:8080") == 200);
  CHECK(with_host("[::1]:8080") == 200);
  CHECK(with_host("localhost:8080") == 200);
  CHECK(with_host("") == 200);
  CHECK(with_host("rebind.attacker.example:8080") == 421);
  CHECK(with_host("127.0.0.1.nip.io") == 421);
  CHECK(api->guard().get(web::GuardStats::host_refused) == 2);
  auto tokens = b.api();  // with tokens: the token is the guard
  web::Request r = request("GET", "/api/v1/health", kViewerToken);
  r.headers["host"] = "ibwarden.example.com";
  CHECK(tokens->handle(r).status == 200);
}

TEST_CASE("web limits: a 500 says nothing of the error and logs it", "[web]") {
  WebBench b;
  FailingBackend backend{b.path};
  std::vector<std::string> logged;
  web::ApiOptions o = b.options();
  o.error_log = [&](const std::string& e) { logged.push_back(e); };
  web::Api api(backend, o, web::TokenSet::parse(tokens_text(), "tokens"));
  auto r = api.handle(request("POST", "/api/v1/audit", kOperatorToken, "{}"));
  CHECK(r.status == 500);
  CHECK(error_of(r) == web::kInternalError);
  CHECK(r.body.find("secret") == std::string::npos);
  REQUIRE(logged.size() == 1);
  CHECK(logged[0].find("POST /api/v1/audit: open /var/lib/ibwarden/secret.db") !=
        std::string::npos);
}

TEST_CASE("web limits: the access record names the role and the changes", "[web]") {
  web::AccessRecord a{"PATCH", "/api/v1/workorders/1", 200, 10, "operator@tokens:4", "::1"};
  CHECK(a.role() == "operator");
  CHECK(a.mutating());
  a.method = "GET", a.actor = "anonymous";
  CHECK(a.role() == "viewer");
  CHECK_FALSE(a.mutating());
  a.actor = "unauthenticated";
  CHECK(a.role() == "none");
}

TEST_CASE("web limits: 20 streams share one reader and one query per tick", "[web]") {
  WebBench b;
  // Store queries of one poll of 20 streams through one reader sharing answers for tick_us.
  auto round = [&](int64_t tick_us) {
    auto reader = std::make_shared<web::StreamReader>(b.backend, "", tick_us);
    web::EventStream::Options o;
    o.reader = reader;
    std::vector<std::unique_ptr<web::EventStream>> streams;
    for (int i = 0; i < 20; ++i) {
      streams.push_back(std::make_unique<web::EventStream>(
          b.backend, [] { return kNow; }, o, std::nullopt));
      streams.back()->start();
    }
    int64_t before = reader->queries();
    for (auto& s : streams) s->poll();
    return reader->queries() - before;
  };
  int64_t shared = round(60'000'000);
  int64_t alone = round(0);
  WARN("20 streams polled once: " << shared << " store queries with one shared reader, " << alone
                                  << " without sharing");
  CHECK(shared <= 3);   // events, decisions (and work orders, unless read at start this tick)
  CHECK(alone == 60);   // events, decisions, work orders for each stream
  store::WriteBatch w;  // a reader without sharing sees what was stored since
  w.events.push_back(port_event(9, kLeaf, 2, "leaf001", "link_down"));
  b.db->write(w);
  web::StreamReader fresh(b.backend, "", 0);
  store::EventQuery q;
  q.after_id = 6;
  CHECK(fresh.events(q).size() == 1);
}
