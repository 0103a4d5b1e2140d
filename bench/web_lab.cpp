// ibw-bench-web_lab: the daemon's web API over a large synthetic store, without ibsim, for
// bench/bench_web.sh and bench/bench_dashboard.sh (issue 15: 200k ports).
//
// It loads an ibnetdiscover file (e.g. `ibw-labgen --tiers 3 --k 64 --no-net --ibnetdiscover`:
// 65,536 endpoints, ~200k ports) and its plan through the daemon's own topology code
// (daemon::discover_topology, daemon::PortTable), gives every port counters (a fraction of
// them with errors), stores the ports plus a few events and disabled ports in a fresh SQLite
// store (0.5% of them Down), and then serves the production code path: daemon::WebBackend, web::Api
// and web::Server, configured from YAML by config::parse_config as `ibwarden run` does. Every
// --sweep seconds it writes new counter values for every port, as the daemon's counter sweep
// does, so the API's port list is reloaded from a store that changes.
//
// Usage: ibw-bench-web_lab --topology FILE --dir DIR [--plan FILE] [--tokens FILE]
//          [--listen 127.0.0.1:0] [--errors FRACTION] [--events N] [--sweep SECONDS]
//          [--ready-file FILE] [--duration SECONDS]
// The ready file gets `port=N` and `ports=N` lines once the server listens. Runs until
// SIGTERM/SIGINT or --duration.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "config/config.h"
#include "daemon/port_table.h"
#include "daemon/source_health.h"
#include "daemon/topology.h"
#include "daemon/web_backend.h"
#include "fabric/plan.h"
#include "store/store.h"
#include "tests/lab/lab_main.h"
#include "web/api.h"
#include "web/server.h"

namespace {

using namespace ibw;

using lab::g_stop;
using lab::now_us;

struct Args {
  std::string topology, dir, plan, tokens, listen = "127.0.0.1:0", ready;
  double errors = 0.01;
  int events = 10000;
  int sweep_s = 60;
  int duration_s = 0;
};

// One counter sweep `interval_s` after the last: traffic on every port, error counters rising
// on the ports chosen to have errors.
void sweep(std::vector<store::PortRecord>& ports, const std::vector<bool>& bad, int64_t t,
           int interval_s, std::mt19937_64& rng) {
  for (size_t i = 0; i < ports.size(); ++i) {
    store::PortRecord& p = ports[i];
    p.counters.time_us = t;
    p.counters.node_guid = p.node_guid;
    p.counters.port = p.port;
    p.counters.valid = (1u << ingest::kCounterCount) - 1;
    p.counters.extended = true;
    p.deltas_valid = p.rates_valid = p.counters.valid;
    for (size_t c = 0; c < ingest::kCounterCount; ++c) {
      bool error = ingest::is_error_counter(static_cast<ingest::Counter>(c));
      uint64_t d = error ? (bad[i] && c % 4 == 0 ? rng() % 50 : 0) : rng() % 100'000'000;
      p.counters.value[c] += d;
      p.deltas[c] = d;
      p.rates[c] = static_cast<double>(d) / interval_s;
    }
  }
}

void write_ports(store::Store& db, const std::vector<store::PortRecord>& ports) {
  constexpr size_t kChunk = 20000;
  for (size_t i = 0; i < ports.size(); i += kChunk) {
    store::WriteBatch b;
    b.ports.assign(ports.begin() + static_cast<ptrdiff_t>(i),
                   ports.begin() + static_cast<ptrdiff_t>(std::min(ports.size(), i + kChunk)));
    db.write(b);
  }
}

int run(const Args& a) {
  std::string yaml = "store:\n  path: " + a.dir +
                     "/ibwarden.db\nfabric:\n  discovery: " + a.topology + "\n" +
                     (a.plan.empty() ? "" : "  plan: " + a.plan + "\n") +
                     "rules: null\nweb:\n  listen: " + a.listen + "\n" +
                     (a.tokens.empty() ? "" : "  tokens_file: " + a.tokens + "\n");
  config::Config cfg = config::parse_config(yaml, a.dir + "/ibwarden.yaml");
  int64_t t0 = now_us();
  std::unique_ptr<fabric::Plan> plan;
  if (cfg.fabric.plan) plan = std::make_unique<fabric::Plan>(fabric::load_plan(*cfg.fabric.plan));
  fabric::MadLocks mad;  // a topology file: no MAD is sent
  auto topo = daemon::discover_topology(mad, cfg, plan.get(), nullptr, t0);
  daemon::PortTable table;
  std::vector<ingest::Event> link_events;
  std::vector<store::PortRecord> ports = table.apply_topology(*topo, t0, &link_events);

  for (size_t i = 0; i < ports.size(); i += 199) {  // 0.5% of the links down (state=down)
    ports[i].state = 1;
    ports[i].phys_state = 2;
  }
  std::mt19937_64 rng(1);
  std::vector<bool> bad(ports.size());
  for (size_t i = 0; i < ports.size(); ++i)
    bad[i] = std::uniform_real_distribution<double>(0, 1)(rng) < a.errors;
  sweep(ports, bad, t0, a.sweep_s, rng);
  auto db = store::Store::open(cfg.store.path);
  write_ports(*db, ports);
  {  // events over the last hour; a few ports disabled by ibwarden
    store::WriteBatch b;
    for (int i = 0; i < a.events; ++i) {
      const store::PortRecord& p = ports[rng() % ports.size()];
      ingest::Event e;
      e.time_us = t0 - 3'600'000'000 + 3'600'000'000LL * i / std::max(1, a.events);
      e.kind = i % 3 ? "counter_jump" : "link_down";
      e.node_guid = p.node_guid, e.port = p.port, e.node = p.node, e.cable_id = p.cable_id;
      e.message = e.kind + " " + p.node + "/" + std::to_string(p.port);
      e.dedup_key = "web_lab:" + std::to_string(i);
      b.events.push_back(std::move(e));
    }
    db->write(b);
    for (int i = 0; i < 8; ++i) {  // one batch each: its decision is the disable's
      const store::PortRecord& p = ports[(i * 7919) % ports.size()];
      store::WriteBatch d;
      core::DecisionRecord dec;
      dec.time_us = t0, dec.rule = "symbol_errors", dec.node_guid = p.node_guid;
      dec.node = p.node, dec.port = p.port, dec.action = "disable", dec.status = "executed";
      dec.reason = "web_lab",
      dec.link_key = core::link_key(p.node_guid, p.port, p.peer_guid, p.peer_port);
      d.decisions.push_back(dec);
      d.disabled_add.push_back({p.node_guid, p.port, t0, 0, dec.link_key});
      db->write(d);
    }
  }
  std::cerr << "web_lab: " << ports.size() << " ports stored in " << (now_us() - t0) / 1000
            << " ms\n";

  daemon::SourceHealthBoard board;
  board.set({"counters", ingest::HealthState::ok, "", t0, t0});
  daemon::WebBackendDeps deps;
  deps.cfg = cfg;
  deps.plan = plan.get();
  deps.topology = [topo] { return topo; };
  deps.health = &board;
  deps.started_us = t0;
  deps.rules_loaded = -1;
  daemon::WebBackend backend(std::move(deps));
  backend.sweep_done(1.0, now_us());
  std::optional<web::TokenSet> tokens;
  if (cfg.web.tokens_file) tokens = web::TokenSet::load(*cfg.web.tokens_file);
  web::Api api(backend, web::ApiOptions{}, tokens);  // the daemon's defaults (daemon.cpp)
  web::ServerOptions options;
  options.listen = cfg.web.listen;
  options.error_log = [](const std::string& e) { std::cerr << "web: " << e << "\n"; };
  web::Server server(options, api);
  server.start();
  if (!a.ready.empty()) {
    std::ofstream(a.ready + ".tmp")
        << "port=" << server.port() << "\nports=" << ports.size() << "\n";
    std::rename((a.ready + ".tmp").c_str(), a.ready.c_str());
  }
  std::cerr << "web_lab: listening on port " << server.port() << "\n";
  auto next = std::chrono::steady_clock::now() + std::chrono::seconds(a.sweep_s);
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(a.duration_s);
  while (!g_stop && (a.duration_s <= 0 || std::chrono::steady_clock::now() < end)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (std::chrono::steady_clock::now() < next) continue;
    next += std::chrono::seconds(a.sweep_s);
    int64_t t = now_us();
    sweep(ports, bad, t, a.sweep_s, rng);
    write_ports(*db, ports);
    backend.sweep_done(static_cast<double>(now_us() - t) / 1e6, now_us());
  }
  server.stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "ibw-bench-web_lab: " << k << " needs a value\n";
      return 2;
    }
    std::string v = argv[++i];
    if (k == "--topology")
      a.topology = v;
    else if (k == "--dir")
      a.dir = v;
    else if (k == "--plan")
      a.plan = v;
    else if (k == "--tokens")
      a.tokens = v;
    else if (k == "--listen")
      a.listen = v;
    else if (k == "--ready-file")
      a.ready = v;
    else if (k == "--errors")
      a.errors = std::stod(v);
    else if (k == "--events")
      a.events = std::stoi(v);
    else if (k == "--sweep")
      a.sweep_s = std::max(1, std::stoi(v));
    else if (k == "--duration")
      a.duration_s = std::stoi(v);
    else {
      std::cerr << "ibw-bench-web_lab: unknown option " << k << "\n";
      return 2;
    }
  }
  if (a.topology.empty() || a.dir.empty()) {
    std::cerr << "usage: ibw-bench-web_lab --topology FILE --dir DIR [--plan FILE] ...\n";
    return 2;
  }
  lab::stop_on_signals();
  try {
    return run(a);
  } catch (const std::exception& e) {
    std::cerr << "ibw-bench-web_lab: " << e.what() << "\n";
    return 1;
  }
}
