// The daemon's web backend (daemon::WebBackend) with many fabrics in mind: its own fabric's
// name, the fabrics its store lists (SQLite: its own, no lease), a 404 for a fabric the store
// does not hold, and a standby (is_leader false) that never performs a port action.
#include <catch2/catch.hpp>

#include "daemon/web_backend.h"
#include "tests/unit/test_web_helpers.h"

using namespace ibw;
using namespace ibw::web_test;

namespace web_backend_fabrics_test {

daemon::WebBackendDeps deps_for(const std::string& path) {
  daemon::WebBackendDeps d;
  d.cfg.fabric.name = "alpha";
  d.cfg.store.path = path;
  return d;
}

}  // namespace web_backend_fabrics_test

using namespace web_backend_fabrics_test;

TEST_CASE("web backend: its fabric and the store's fabrics on SQLite", "[web]") {
  WebBench b;
  daemon::WebBackend backend(deps_for(b.path));
  CHECK(backend.fabric() == "alpha");
  auto all = backend.fabrics();
  REQUIRE(all.size() == 1);
  CHECK(all[0].name == "alpha");
  CHECK_FALSE(all[0].lease.has_value());
  CHECK(backend.open_store("", false)->ports().size() == 6);
  CHECK(backend.open_store("alpha", false)->ports().size() == 6);
  try {
    backend.open_store("beta", false);
    FAIL("a fabric the store does not hold opened");
  } catch (const web::ApiError& e) {
    CHECK(e.status() == 404);
    CHECK(std::string(e.what()) == "no fabric beta in the store");
  }
  CHECK(backend.health().leader);  // no HA: always the leader
}

TEST_CASE("web backend: a standby answers port actions with 409 and acts on nothing", "[web]") {
  WebBench b;
  auto d = deps_for(b.path);
  bool leader = false;
  d.is_leader = [&leader] { return leader; };
  daemon::WebBackend backend(std::move(d));
  CHECK_FALSE(backend.health().leader);
  web::PortActionRequest r;
  r.node_guid = kLeaf, r.node = "leaf001", r.port = 2, r.reason = "test", r.actor = "t";
  try {
    backend.port_action(r);
    FAIL("a standby performed a port action");
  } catch (const web::ApiError& e) {
    CHECK(e.status() == 409);
    CHECK(std::string(e.what()) == "standby: fabric alpha is acted on by its leader (none)");
  }
  CHECK(b.db->decisions({}).size() == 2);  // nothing recorded
  // Through the API: the same 409.
  web::Api api(backend, b.options(), web::TokenSet::parse(tokens_text(), "tokens"));
  auto res = api.handle(
      request("POST", "/api/v1/ports/leaf001/2/disable", kOperatorToken, R"({"reason": "x"})"));
  CHECK(res.status == 409);
  CHECK(error_of(res).rfind("standby: fabric alpha", 0) == 0);
  // The leader (no topology in this test) goes past the standby check.
  leader = true;
  try {
    backend.port_action(r);
  } catch (const web::ApiError& e) {
    CHECK(e.status() == 503);
  }
}
