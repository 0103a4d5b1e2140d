// Web API remediation endpoints through Api::handle with a fake backend: work-order listing,
// PATCH (status, assignee, note; 409 when resolving a disabled link), disable/enable with a
// reason through the backend (force needs admin; refused 409, failed 502), and the audit.
#include <catch2/catch.hpp>

#include "tests/unit/test_web_helpers.h"

using namespace ibw;
using namespace ibw::web_test;
using web::Response;

namespace web_remedy_test {

Response patch(web::Api& api, int64_t id, const std::string& body,
               const char* token = kOperatorToken) {
  return api.handle(request("PATCH", "/api/v1/workorders/" + std::to_string(id), token, body));
}

}  // namespace web_remedy_test

using namespace web_remedy_test;

TEST_CASE("web remedy: work orders list by status and one by id", "[web]") {
  WebBench b;
  auto api = b.api();
  auto j = body_of(api->handle(request("GET", "/api/v1/workorders")));
  REQUIRE(j["workorders"].size() == 2);
  CHECK(j["workorders"][0]["port_disabled"] == true);
  CHECK(j["workorders"][0]["a"] == "leaf001/3");
  CHECK(j["more"] == false);
  j = body_of(api->handle(request("GET", "/api/v1/workorders?status=active&limit=1")));
  CHECK(j["workorders"].size() == 1);
  CHECK(j["more"] == true);
  CHECK(body_of(api->handle(request("GET", "/api/v1/workorders?status=verified")))["workorders"]
            .empty());
  CHECK(error_of(api->handle(request("GET", "/api/v1/workorders?status=done")))
            .rfind("status: must be", 0) == 0);
  j = body_of(api->handle(request("GET", "/api/v1/workorders/" + std::to_string(b.order_open))));
  CHECK(j["id"] == b.order_open);
  CHECK(api->handle(request("GET", "/api/v1/workorders/999")).status == 404);
  CHECK(error_of(api->handle(request("GET", "/api/v1/workorders/x"))) ==
        "id: must be a work order number");
}

TEST_CASE("web remedy: PATCH takes an order and sets assignee and note", "[web]") {
  WebBench b;
  b.backend.outbox = true;
  auto api = b.api();
  Response r = patch(*api, b.order_open,
                     R"({"status": "in_progress", "assignee": "kim", "note": "on my way"})");
  REQUIRE(r.status == 200);
  auto j = body_of(r);
  CHECK(j["status"] == "in_progress");
  CHECK(j["assignee"] == "kim");
  CHECK(j["note"] == "on my way");
  CHECK(j["version"] == 2);
  CHECK(j["updated"] == "2027-01-15T08:00:00.000000Z");
  auto stored = b.db->workorder(b.order_open);
  CHECK(stored->status == "in_progress");
  CHECK(b.db->outbox_due(kNow + 1, 0).size() == 1);  // the webhook hears of it
  // Resolving an order whose link was never disabled.
  j = body_of(patch(*api, b.order_open, R"({"status": "resolved"})"));
  CHECK(j["status"] == "resolved");
  CHECK(j["resolved"] == "2027-01-15T08:00:00.000000Z");
  CHECK(j["assignee"] == "kim");
  j = body_of(patch(*api, b.order_open, R"({"status": "open", "assignee": null})"));
  CHECK(j["resolved"].is_null());
  CHECK(j["assignee"] == "");
}

TEST_CASE("web remedy: resolving an order whose port is disabled is a 409", "[web]") {
  WebBench b;
  auto api = b.api();
  Response r = patch(*api, b.order_disabled, R"({"status": "resolved"})");
  CHECK(r.status == 409);
  CHECK(error_of(r).find("has its link disabled; enable leaf001/3") != std::string::npos);
  CHECK(b.db->workorder(b.order_disabled)->status == "open");
  // Taking it is fine.
  CHECK(patch(*api, b.order_disabled, R"({"status": "in_progress"})").status == 200);
}

TEST_CASE("web remedy: PATCH rejects bad bodies with 400 naming the field", "[web]") {
  WebBench b;
  auto api = b.api();
  int64_t id = b.order_open;
  CHECK(error_of(patch(*api, id, R"({"status": "verified"})")) ==
        "status: must be in_progress, resolved or open");
  CHECK(error_of(patch(*api, id, R"({"status": 3})")) == "status: must be a string");
  CHECK(error_of(patch(*api, id, R"({"owner": "kim"})")) == "body: unknown field \"owner\"");
  CHECK(error_of(patch(*api, id, R"({})")) == "body: give status, assignee or note");
  CHECK(error_of(patch(*api, id, "not json")) == "body: not valid JSON");
  CHECK(error_of(patch(*api, id, R"({"note": ")" + std::string(5000, 'x') + "\"}")) ==
        "note: longer than 4000 bytes");
  CHECK(patch(*api, 999, R"({"note": "x"})").status == 404);
  web::Request form = request("PATCH", "/api/v1/workorders/1", kOperatorToken, "status=open");
  form.headers["content-type"] = "application/x-www-form-urlencoded";
  CHECK(api->handle(form).status == 415);
  CHECK(patch(*api, id, R"({"note": "x"})", kViewerToken).status == 403);
  CHECK(patch(*api, id, R"({"note": "x"})", nullptr).status == 401);
}

TEST_CASE("web remedy: disable and enable go through the backend with the reason", "[web]") {
  WebBench b;
  auto api = b.api();
  Response r = api->handle(request("POST", "/api/v1/ports/node0002%20mlx5_0/1/disable",
                                   kOperatorToken, R"({"reason": " bad cable "})"));
  REQUIRE(r.status == 200);
  auto j = body_of(r);
  CHECK(j["action"] == "disable");
  CHECK(j["status"] == "executed");
  CHECK(j["reason"] == "operator@tokens:4: bad cable");
  REQUIRE(b.backend.actions.size() == 1);
  const auto& a = b.backend.actions[0];
  CHECK(a.action == web::PortActionKind::disable);
  CHECK(a.node_guid == kHost2);
  CHECK(a.node == "node0002 mlx5_0");
  CHECK(a.port == 1);
  CHECK(a.reason == "bad cable");
  CHECK_FALSE(a.force);
  // The disabled list is read again after an action.
  auto fabric = body_of(api->handle(request("GET", "/api/v1/fabric")));
  CHECK(fabric["disabled"] == 2);
  r = api->handle(request("POST", "/api/v1/ports/0x0002c90200000001/3/enable", kOperatorToken,
                          R"({"reason": "cleaned"})"));
  CHECK(r.status == 200);
  CHECK(b.backend.actions.back().action == web::PortActionKind::enable);
  CHECK(body_of(api->handle(request("GET", "/api/v1/fabric")))["disabled"] == 1);
}

TEST_CASE("web remedy: port actions need a reason and force needs admin", "[web]") {
  WebBench b;
  auto api = b.api();
  std::string target = "/api/v1/ports/leaf001/1/disable";
  CHECK(error_of(api->handle(request("POST", target, kOperatorToken))) ==
        "reason: required (say why)");
  CHECK(error_of(api->handle(request("POST", target, kOperatorToken, R"({"reason": "  "})"))) ==
        "reason: required (say why)");
  CHECK(error_of(api->handle(
            request("POST", target, kOperatorToken, R"({"reason": "x", "force": "yes"})"))) ==
        "force: must be true or false");
  Response r =
      api->handle(request("POST", target, kOperatorToken, R"({"reason": "x", "force": true})"));
  CHECK(r.status == 403);
  CHECK(error_of(r) == "force: needs the admin role");
  CHECK(b.backend.actions.empty());
  r = api->handle(request("POST", target, kAdminToken, R"({"reason": "x", "force": true})"));
  CHECK(r.status == 200);
  CHECK(b.backend.actions.at(0).force);
  CHECK(api->handle(request("POST", "/api/v1/ports/leaf009/1/disable", kOperatorToken,
                            R"({"reason": "x"})"))
            .status == 404);
}

TEST_CASE("web remedy: refused and failed actions map to 409 and 502", "[web]") {
  WebBench b;
  auto api = b.api();
  std::string target = "/api/v1/ports/leaf001/1/disable";
  std::string body = R"({"reason": "x"})";
  b.backend.action_status = "refused";
  Response r = api->handle(request("POST", target, kOperatorToken, body));
  CHECK(r.status == 409);
  CHECK(body_of(r)["status"] == "refused");
  b.backend.action_status = "failed";
  CHECK(api->handle(request("POST", target, kOperatorToken, body)).status == 502);
  b.backend.action_status = "dry_run";
  CHECK(api->handle(request("POST", target, kOperatorToken, body)).status == 200);
  b.backend.throw_status = 503;
  r = api->handle(request("POST", target, kOperatorToken, body));
  CHECK(r.status == 503);
  CHECK(error_of(r) == "no topology yet");
}

TEST_CASE("web remedy: audit is 404 until one runs and POST runs one", "[web]") {
  WebBench b;
  auto api = b.api();
  Response r = api->handle(request("GET", "/api/v1/audit"));
  CHECK(r.status == 404);
  CHECK(error_of(r).find("POST /api/v1/audit") != std::string::npos);
  CHECK(api->handle(request("POST", "/api/v1/audit", kViewerToken)).status == 403);
  r = api->handle(request("POST", "/api/v1/audit", kOperatorToken));
  CHECK(r.status == 200);
  CHECK(body_of(r)["summary"]["missing"] == 1);
  CHECK(b.backend.audits_run == 1);
  CHECK(body_of(api->handle(request("GET", "/api/v1/audit")))["summary"]["ok"] == 2);
  CHECK(api->handle(request("POST", "/api/v1/audit", kOperatorToken, R"({"live": true})")).status ==
        400);
}
