// The dashboard's embedded files (web/assets.h) and GET /api/v1/whoami, called as plain
// functions through Api::handle.
#include <catch2/catch.hpp>

#include <regex>
#include <set>

#include "tests/unit/test_web_helpers.h"
#include "web/assets.h"

using namespace ibw;
using namespace ibw::web_test;

namespace web_assets_test {

std::string header_of(const web::Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return "";
}

}  // namespace web_assets_test

using namespace web_assets_test;

TEST_CASE("web assets: the dashboard is served without a token with a strict CSP", "[web]") {
  WebBench b;
  auto api = b.api();
  web::Response r = api->handle(request("GET", "/", nullptr));
  REQUIRE(r.status == 200);
  CHECK(r.content_type == "text/html; charset=utf-8");
  CHECK(r.body.find("<script type=\"module\" src=\"/ui/app.js\"></script>") != std::string::npos);
  std::string csp = header_of(r, "Content-Security-Policy");
  CHECK(csp.find("script-src 'self'") != std::string::npos);
  CHECK(csp.find("unsafe-inline") == std::string::npos);
  CHECK(csp.find("frame-ancestors 'none'") != std::string::npos);
  CHECK(header_of(r, "X-Frame-Options") == "DENY");
  CHECK(r.actor == "anonymous");

  r = api->handle(request("GET", "/ui/app.js", nullptr));
  REQUIRE(r.status == 200);
  CHECK(r.content_type == "text/javascript; charset=utf-8");
  CHECK(api->handle(request("GET", "/ui/style.css", nullptr)).content_type ==
        "text/css; charset=utf-8");
  CHECK(api->handle(request("GET", "/ui/favicon.svg", nullptr)).content_type == "image/svg+xml");
  // The API itself still needs the token.
  CHECK(api->handle(request("GET", "/api/v1/fabric", nullptr)).status == 401);
}

TEST_CASE("web assets: every script the page imports is embedded", "[web]") {
  // index.html and every module name the scripts they load: each must be a file we serve,
  // or the dashboard breaks in the browser while every API test stays green.
  std::set<std::string> names;
  for (const auto& f : web::embedded_files()) names.insert(std::string(f.name));
  REQUIRE(names.count("index.html") == 1);
  std::regex ref(R"re((?:from '\./|src="/ui/|href="/ui/)([A-Za-z0-9_.-]+)['"])re");
  size_t refs = 0;
  for (const auto& f : web::embedded_files()) {
    std::string text(f.bytes);
    for (std::sregex_iterator it(text.begin(), text.end(), ref), end; it != end; ++it) {
      INFO(f.name << " refers to " << (*it)[1]);
      CHECK(names.count((*it)[1]) == 1);
      ++refs;
    }
  }
  CHECK(refs >= 10);
}

TEST_CASE("web assets: ETag revalidation - unknown files - other methods", "[web]") {
  WebBench b;
  auto api = b.api();
  web::Response first = api->handle(request("GET", "/ui/app.js", nullptr));
  std::string tag = header_of(first, "ETag");
  REQUIRE(tag.size() == 18);
  CHECK(header_of(first, "Cache-Control") == "no-cache");
  web::Request again = request("GET", "/ui/app.js", nullptr);
  again.headers["if-none-match"] = tag;
  web::Response r = api->handle(again);
  CHECK(r.status == 304);
  CHECK(r.body.empty());
  again.headers["if-none-match"] = "\"0000000000000000\"";
  CHECK(api->handle(again).status == 200);
  CHECK(header_of(api->handle(request("GET", "/ui/style.css", nullptr)), "ETag") != tag);

  CHECK(api->handle(request("GET", "/ui/nope.js", nullptr)).status == 404);
  CHECK(api->handle(request("GET", "/ui/../web/api.cpp", nullptr)).status == 404);
  CHECK(api->handle(request("GET", "/etc/passwd", nullptr)).status == 404);
  CHECK(api->handle(request("GET", "/ui/embed.cmake", nullptr)).status == 404);
  r = api->handle(request("POST", "/ui/app.js", nullptr, "{}"));
  CHECK(r.status == 405);
  CHECK(header_of(r, "Allow") == "GET, HEAD");
  r = api->handle(request("HEAD", "/ui/app.js", nullptr));
  CHECK(r.status == 200);
  CHECK(r.head);
  CHECK(header_of(r, "ETag") == tag);
  r = api->handle(request("DELETE", "/api/v1/fabric", kViewerToken));
  CHECK(r.status == 405);
  CHECK(header_of(r, "Allow") == "GET, HEAD");
}

TEST_CASE("web whoami: the caller's role and what it may do", "[web]") {
  WebBench b;
  auto api = b.api();
  auto viewer = body_of(api->handle(request("GET", "/api/v1/whoami", kViewerToken)));
  CHECK(viewer["role"] == "viewer");
  CHECK(viewer["authenticated"] == true);
  CHECK(viewer["can_operate"] == false);
  auto op = body_of(api->handle(request("GET", "/api/v1/whoami", kOperatorToken)));
  CHECK(op["role"] == "operator");
  CHECK(op["can_operate"] == true);
  CHECK(op["can_force"] == false);
  auto admin = body_of(api->handle(request("GET", "/api/v1/whoami", kAdminToken)));
  CHECK(admin["can_force"] == true);
  CHECK(api->handle(request("GET", "/api/v1/whoami", nullptr)).status == 401);

  auto ro = b.api(true);
  auto op_ro = body_of(ro->handle(request("GET", "/api/v1/whoami", kOperatorToken)));
  CHECK(op_ro["read_only"] == true);
  CHECK(op_ro["can_operate"] == false);
  auto anon = b.api(false, false);
  auto a = body_of(anon->handle(request("GET", "/api/v1/whoami", nullptr)));
  CHECK(a["authenticated"] == false);
  CHECK(a["role"] == "viewer");
  CHECK(a["read_only"] == true);
}
