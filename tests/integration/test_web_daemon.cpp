// Integration: the web API inside `ibwarden run` on ibsim + OpenSM (enforce mode). The daemon
// binds web.listen 127.0.0.1:0 and logs the port; stock curl is the client. Checks /health
// (per-source status), a fault injected on the ibsim console showing up as a disabled port in
// /fabric and /decisions, the work order, 401/403 on mutating requests, and the operator
// re-enabling the port through POST /ports/{node}/{port}/enable (read back in the decision).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <regex>
#include <thread>

#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"

using nlohmann::json;
using namespace ibw::test;
using namespace std::chrono_literals;

namespace web_daemon_test {

using Http = ibw::test::HttpResult;

const std::string kViewer = "viewer-token-0123456789";
const std::string kOperator = "operator-token-0123456789";

Http curl(int port, const std::string& method, const std::string& path, const std::string& token,
          const std::string& body = "") {
  return http_call(port, method, path, token, body);
}

}  // namespace web_daemon_test

using namespace web_daemon_test;

TEST_CASE("web daemon: health - a disabled port - its order and an enable from the API",
          "[integration][web]") {
  auto lab = ibw::lab::two_tier_lab(2, 4, 2);
  ibw::lab::SimLab sim({ibw::lab::to_ibsim_net(lab)});
  std::string d = sim.dir();
  std::ofstream(d + "/plan.csv") << ibw::lab::plan_csv(lab);
  std::ofstream(d + "/tokens") << "# role token\nviewer " << kViewer << "\noperator " << kOperator
                               << "\n";
  chmod((d + "/tokens").c_str(), 0600);
  std::string config = d + "/ibwarden.yaml";
  ibw::lab::sim_config()
      .set("opensm", "rediscover_delay", "200ms")
      .set("rules", "file", shipped_rules())
      .set("actions", "mode", "enforce")
      .set("web", {{"listen", "127.0.0.1:0"}, {"tokens_file", "tokens"}})
      .write(config);
  Daemon daemon({config, d, sim.sockname(), d + "/daemon.log"});
  daemon.start();
  REQUIRE(daemon.wait_log("web API listening", 1, 30s));
  std::smatch m;
  std::string log = daemon.log();
  REQUIRE(std::regex_search(log, m, std::regex("\"port\":([0-9]+)")));
  int port = std::stoi(m[1]);
  INFO(daemon.log());

  // Health: every request needs a token once a tokens file is configured.
  CHECK(curl(port, "GET", "/api/v1/health", "").status == 401);
  auto until = std::chrono::steady_clock::now() + 20s;
  Http health;
  do {
    health = curl(port, "GET", "/api/v1/health", kViewer);
    std::this_thread::sleep_for(200ms);
  } while (health.body["sources"]["counters"]["status"] != "ok" &&
           std::chrono::steady_clock::now() < until);
  REQUIRE(health.status == 200);
  CHECK(health.body["sources"]["opensm"]["status"] == "ok");
  CHECK(health.body["sources"]["counters"]["status"] == "ok");
  CHECK(health.body["sources"]["ufm"]["status"] == "disabled");

  // A bad uplink is disabled by the automation and shows up in the API.
  sim.console("PerformanceSet \"leaf001\"[3] PortCounters.SymbolErrorCounter=5000");
  Http decisions;
  until = std::chrono::steady_clock::now() + 20s;
  do {
    decisions = curl(port, "GET", "/api/v1/decisions", kViewer);
    std::this_thread::sleep_for(200ms);
    // A decision is stored pending first (its intent), then executed: wait past that.
  } while ((decisions.body["decisions"].empty() ||
            decisions.body["decisions"][0]["status"] == "pending") &&
           std::chrono::steady_clock::now() < until);
  REQUIRE(decisions.body["decisions"].size() == 1);
  CHECK(decisions.body["decisions"][0]["status"] == "executed");
  auto fabric = curl(port, "GET", "/api/v1/fabric", kViewer);
  CHECK(fabric.body["disabled"] == 1);
  CHECK(fabric.body["down"] == 0);  // disabled by ibwarden: not counted as down
  // ibsim keeps reporting the disabled port's state; the filter still finds it, and its
  // error counter keeps it under has_errors after the sweep that saw the jump.
  std::this_thread::sleep_for(2500ms);
  auto has_port = [](const json& body, const std::string& node, int p) {
    for (const auto& x : body["ports"])
      if (x["node"] == node && x["port"] == p) return true;
    return false;
  };
  CHECK(has_port(curl(port, "GET", "/api/v1/ports?state=disabled", kViewer).body, "leaf001", 3));
  CHECK(has_port(curl(port, "GET", "/api/v1/ports?has_errors=true", kViewer).body, "leaf001", 3));
  // The last audit, without a POST first: run on demand against the plan.
  auto audit = curl(port, "GET", "/api/v1/audit", kViewer);
  CHECK(audit.status == 200);
  CHECK(audit.body.contains("summary"));
  auto orders = curl(port, "GET", "/api/v1/workorders", kViewer);
  REQUIRE(orders.body["workorders"].size() == 1);
  CHECK(orders.body["workorders"][0]["cable_id"] == "C-leaf001-3");

  // Mutations: the viewer may not, the operator may.
  const std::string enable = "/api/v1/ports/leaf001/3/enable";
  CHECK(curl(port, "POST", enable, "", R"({"reason":"reseated"})").status == 401);
  CHECK(curl(port, "POST", enable, kViewer, R"({"reason":"reseated"})").status == 403);
  CHECK(curl(port, "POST", enable, kOperator, R"({})").status == 400);
  auto done = curl(port, "POST", enable, kOperator, R"({"reason":"reseated"})");
  CHECK(done.status == 200);
  CHECK(done.body["status"] == "executed");
  CHECK(done.body["action"] == "enable");
  CHECK(done.body["reason"].get<std::string>().find("reseated") != std::string::npos);
  orders = curl(port, "GET", "/api/v1/workorders", kViewer);
  CHECK(orders.body["workorders"][0]["status"] == "resolved");
  CHECK(daemon.stop() == 0);
}
