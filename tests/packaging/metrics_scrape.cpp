// ibw-metrics-scrape: prints what GET /metrics answers, built by the real code: the daemon's
// web backend (daemon::WebBackend, configured from YAML by config::parse_config) and the web
// API (web::Api) over a temporary SQLite store holding one of everything the metrics count
// (ports, a port ibwarden disabled, a work order, a webhook delivery that failed), with source
// health and a cursed-route localization published as the daemon's threads do.
// tests/packaging/check_metric_names.py runs it: every ibwarden_* name the Prometheus alert
// rules and the Grafana dashboard use must be in this scrape.
// Exit status: 0 with the scrape on stdout; 1 (and why on stderr) when /metrics is not a 200
// of text/plain; version=0.0.4 or differs from /api/v1/metrics.
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "config/config.h"
#include "daemon/probe_state.h"
#include "daemon/source_health.h"
#include "daemon/web_backend.h"
#include "ingest/sm_tracker.h"
#include "store/store.h"
#include "web/api.h"

namespace {

using namespace ibw;

constexpr int64_t kSecond = 1'000'000;
constexpr uint64_t kLeaf = 0x0002c90200000001ULL;
constexpr uint64_t kHost = 0x0002c90300000011ULL;

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

store::PortRecord port(uint64_t guid, int num, const std::string& node, int state, uint64_t peer,
                       const std::string& peer_node, int peer_port, const std::string& cable) {
  store::PortRecord p;
  p.node_guid = guid, p.port = num, p.node = node, p.lid = 1;
  p.state = state, p.phys_state = state == 4 ? 5 : 2;
  p.peer_guid = peer, p.peer_node = peer_node, p.peer_port = peer_port, p.cable_id = cable;
  return p;
}

// leaf001/1 - host Active; leaf001/2 Down (planned, C-2); leaf001/3 disabled by ibwarden two
// days ago with its order, whose webhook delivery failed once; an event a second ago.
void fill(store::Store& db, int64_t now) {
  store::WriteBatch b;
  b.ports.push_back(port(kLeaf, 1, "leaf001", 4, kHost, "node0001 mlx5_0", 1, "C-1"));
  b.ports.push_back(port(kHost, 1, "node0001 mlx5_0", 4, kLeaf, "leaf001", 1, "C-1"));
  b.ports.push_back(port(kLeaf, 2, "leaf001", 1, 0, "", 0, "C-2"));
  b.ports.push_back(port(kLeaf, 3, "leaf001", 1, 0, "", 0, "C-3"));
  ingest::Event e;
  e.time_us = now - kSecond;
  e.kind = "link_down";
  e.node_guid = kLeaf, e.port = 2, e.node = "leaf001";
  e.message = "link down leaf001/2";
  e.dedup_key = "scrape:1";
  b.events.push_back(e);
  std::string key = core::link_key(kLeaf, 3, 0, 0);
  core::DecisionRecord d;
  d.time_us = now - 2 * 86400 * kSecond;
  d.rule = "symbol_errors", d.node_guid = kLeaf, d.node = "leaf001", d.port = 3;
  d.action = "disable", d.status = "executed", d.reason = "symbol errors", d.link_key = key;
  b.decisions.push_back(d);
  core::WorkOrder o;
  o.link_key = key, o.cable_id = "C-3", o.a = {kLeaf, "leaf001", 3, ""};
  o.severity = "critical", o.rule = "symbol_errors", o.summary = "symbol errors on leaf001/3";
  o.port_disabled = true;
  o.opened_us = o.updated_us = d.time_us;
  b.workorders.push_back(o);
  b.outbox = true;
  b.disabled_add.push_back({kLeaf, 3, d.time_us, 0, key});
  db.write(b);
  for (const auto& item : db.outbox_due(now, 0))
    db.outbox_failed(item.id, now + 60 * kSecond, "HTTP 503");
}

int scrape(const std::string& dir) {
  std::string db_path = dir + "/ibwarden.db";
  config::Config cfg = config::parse_config(
      "store:\n  path: " + db_path +
          "\nrules: null\nactions:\n  mode: enforce\n  max_disabled_total: 10\n"
          "  max_actions_per_hour: 4\nworkorders:\n  webhook: http://127.0.0.1:9/hooks\n"
          "web:\n  listen: 127.0.0.1:0\n",
      dir + "/ibwarden.yaml");
  int64_t now = now_us();
  fill(*store::Store::open(db_path), now);

  daemon::SourceHealthBoard board;  // as the source threads report
  board.set({"opensm", ingest::HealthState::ok, "", now, now});
  board.set({"counters", ingest::HealthState::ok, "", now, now});
  board.set({"probes", ingest::HealthState::ok, "", now, now});
  daemon::ProbeState probes;  // as the probe thread publishes a localization
  probes.publish({{"observations", 240},
                  {"pairs", 12},
                  {"suspects", nlohmann::json::array({{{"links", {"leaf001/1~spine001/1"}}}})},
                  {"rounds", 4}},
                 nlohmann::json::object());
  daemon::SmBoard sm;  // as the SM watcher publishes a master and one standby
  sm.configure(true);
  ingest::SmTracker tracker;
  fabric::SmInfo master{0x100001, 1, 0, fabric::SmState::master, 10};
  fabric::SmInfo standby{0x100004, 4, 0, fabric::SmState::standby, 5};
  tracker.update({now, 1, {master, standby}});
  sm.publish(tracker.to_json());
  board.set({"sm_watch", ingest::HealthState::ok, "", now, now});
  daemon::WebBackendDeps deps;
  deps.cfg = cfg;
  deps.health = &board;
  deps.sm = &sm;
  deps.probes = &probes;
  deps.started_us = now - 3600 * kSecond;
  deps.rules_loaded = 0;
  daemon::WebBackend backend(std::move(deps));
  backend.sweep_done(0.42, now - 5 * kSecond);
  web::ApiOptions options;
  options.now_us = [now] { return now; };  // one clock for both requests: equal bodies
  web::Api api(backend, options, std::nullopt);

  auto get = [&api](const std::string& target) {
    web::Request r;
    r.method = "GET";
    r.target = target;
    r.peer = "127.0.0.1";
    return api.handle(r);
  };
  web::Response root = get("/metrics");
  web::Response v1 = get("/api/v1/metrics");
  if (root.status != 200 || root.content_type != "text/plain; version=0.0.4") {
    std::cerr << "GET /metrics: " << root.status << " " << root.content_type << "\n"
              << root.body << "\n";
    return 1;
  }
  if (v1.status != root.status || v1.content_type != root.content_type || v1.body != root.body) {
    std::cerr << "GET /api/v1/metrics answers differently from GET /metrics\n";
    return 1;
  }
  std::cout << root.body;
  return 0;
}

}  // namespace

int main() {
  char tmpl[] = "/tmp/ibw-metrics-scrape-XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::cerr << "mkdtemp failed\n";
    return 1;
  }
  int status = 1;
  try {
    status = scrape(tmpl);
  } catch (const std::exception& e) {
    std::cerr << "ibw-metrics-scrape: " << e.what() << "\n";
  }
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);
  return status;
}
