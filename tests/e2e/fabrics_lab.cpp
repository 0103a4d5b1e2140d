// ibw-e2e-fabrics_lab: two fabrics in one store behind one web API, for the browser test
// fabrics.e2e.mjs (issue 17: one dashboard for many fabrics). It serves the production path,
// daemon::WebBackend + web::Api + web::Server, as instance "host-a" watching fabric "alpha",
// over a store that also holds fabric "beta", leased by another instance, "host-b".
//
// With --url (a PostgreSQL server, e.g. the private one tests/lab/pg_server starts) the store
// is PostgreSQL: both fabrics' rows are written into it through Store::open(StoreSpec) and
// beta's lease is taken as host-b (take_lease), so WebBackend finds both through fabrics().
// Without --url (no PostgreSQL backend at hand) each fabric is a SQLite file and a thin
// subclass of WebBackend maps "beta" to the second file and lists its lease; everything above
// the backend (API, ?fabric=, dashboard) is the same code.
//
// Each fabric gets a leaf switch with hosts; alpha's hosts are named alpha-node*, beta's
// beta-node*, so the test can tell whose ports a page shows.
// Usage: ibw-e2e-fabrics_lab --dir DIR --tokens FILE --ready-file FILE [--url URL]
//          [--duration SECONDS]
// The ready file gets `port=N` and `backend=sqlite|postgres` once the server listens.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "daemon/source_health.h"
#include "daemon/web_backend.h"
#include "store/record_json.h"
#include "store/store.h"
#include "tests/lab/lab_main.h"
#include "web/api.h"
#include "web/server.h"

namespace fabrics_lab {

using namespace ibw;

using lab::g_stop;
using lab::now_us;

// A leaf (GUID base + 1) with `hosts` hosts on ports 1..hosts, the last one Down.
void fill(store::Store& db, const std::string& prefix, uint64_t base, int hosts) {
  store::WriteBatch b;
  int64_t t = now_us();
  uint64_t leaf = base + 1;
  for (int i = 1; i <= hosts; ++i) {
    uint64_t host = base + 0x100 + static_cast<uint64_t>(i);
    std::string name = prefix + "-node" + std::to_string(i);
    int state = i == hosts ? 1 : 4;
    for (int side = 0; side < 2; ++side) {
      store::PortRecord p;
      p.node_guid = side ? host : leaf;
      p.port = side ? 1 : i;
      p.node = side ? name : prefix + "-leaf";
      p.peer_guid = side ? leaf : host;
      p.peer_port = side ? i : 1;
      p.peer_node = side ? prefix + "-leaf" : name;
      p.state = state, p.phys_state = state == 4 ? 5 : 2, p.width = state == 4 ? 4 : 0;
      p.speed = state == 4 ? "HDR" : "";
      p.cable_id = prefix + "-C" + std::to_string(i);
      p.counters.time_us = t, p.counters.node_guid = p.node_guid, p.counters.port = p.port;
      p.last_change_us = t;
      b.ports.push_back(p);
    }
  }
  ingest::Event e;
  e.time_us = t, e.source = ingest::EventSource::opensm, e.kind = "link_down";
  e.severity = ingest::Severity::warning, e.node_guid = leaf, e.port = hosts;
  e.node = prefix + "-leaf", e.message = "link down " + prefix + "-leaf/" + std::to_string(hosts);
  e.dedup_key = prefix + ":down";
  b.events.push_back(e);
  db.write(b);
}

std::string beta_sources() {
  return web::sources_json({{"opensm", web::SourceStatus::ok, "", now_us()},
                            {"counters", web::SourceStatus::degraded, "sweep slow", now_us()}});
}

// SQLite: one file per fabric; "beta" and its lease are this backend's.
class TwoFiles : public daemon::WebBackend {
 public:
  TwoFiles(daemon::WebBackendDeps deps, std::string beta)
      : WebBackend(std::move(deps)), beta_(std::move(beta)) {}
  std::unique_ptr<store::Store> open_store(const std::string& fabric, bool writable) override {
    if (fabric == "beta") return store::Store::open(beta_, !writable);
    return WebBackend::open_store(fabric, writable);
  }
  std::vector<store::FabricEntry> fabrics() override {
    auto all = WebBackend::fabrics();
    store::Lease l;
    l.fabric = "beta", l.holder = "host-b", l.epoch = 1, l.now_us = now_us();
    l.expires_us = l.now_us + 3'600'000'000LL, l.sources = beta_sources();
    all.push_back({"beta", l});
    return all;
  }

 private:
  std::string beta_;
};

int run(const std::string& dir, const std::string& tokens, const std::string& ready,
        const std::string& url, int duration_s) {
  config::Config cfg;
  cfg.fabric.name = "alpha";
  cfg.web.enabled = true;
  cfg.web.listen = "127.0.0.1:0";
  cfg.web.tokens_file = tokens;
  std::string beta_path = dir + "/beta.db";
  if (url.empty()) {
    cfg.store.path = dir + "/alpha.db";
    fill(*store::Store::open(cfg.store.path), "alpha", 0x0002'c900'0000'0000ULL, 6);
    fill(*store::Store::open(beta_path), "beta", 0x0002'c9b0'0000'0000ULL, 4);
  } else {
    cfg.store.backend = "postgres";
    cfg.store.url = url;
    for (const char* name : {"alpha", "beta"}) {
      store::StoreSpec spec;
      spec.backend = "postgres", spec.url = url, spec.fabric = name;
      auto db = store::Store::open(spec);
      bool alpha = std::string(name) == "alpha";
      fill(*db, name, alpha ? 0x0002'c900'0000'0000ULL : 0x0002'c9b0'0000'0000ULL, alpha ? 6 : 4);
      db->take_lease(alpha ? "host-a" : "host-b", 0, 3'600'000'000LL,
                     alpha ? "[]" : beta_sources());
    }
  }
  daemon::SourceHealthBoard board;
  board.set({"opensm", ingest::HealthState::ok, "", now_us(), now_us()});
  daemon::WebBackendDeps deps;
  deps.cfg = cfg;
  deps.health = &board;
  deps.started_us = now_us();
  std::unique_ptr<daemon::WebBackend> backend = url.empty()
                                                    ? std::make_unique<TwoFiles>(deps, beta_path)
                                                    : std::make_unique<daemon::WebBackend>(deps);
  web::Api api(*backend, web::ApiOptions{}, web::TokenSet::load(tokens));
  web::ServerOptions options;
  options.listen = cfg.web.listen;
  options.error_log = [](const std::string& e) { std::cerr << "web: " << e << "\n"; };
  web::Server server(options, api);
  server.start();
  std::ofstream(ready + ".tmp") << "port=" << server.port()
                                << "\nbackend=" << (url.empty() ? "sqlite" : "postgres") << "\n";
  std::rename((ready + ".tmp").c_str(), ready.c_str());
  std::cerr << "fabrics_lab: listening on port " << server.port() << "\n";
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(duration_s);
  while (!g_stop && (duration_s <= 0 || std::chrono::steady_clock::now() < end))
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  server.stop();
  return 0;
}

}  // namespace fabrics_lab

int main(int argc, char** argv) {
  std::string dir, tokens, ready, url;
  int duration_s = 600;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--dir")
      dir = v;
    else if (k == "--tokens")
      tokens = v;
    else if (k == "--ready-file")
      ready = v;
    else if (k == "--url")
      url = v;
    else if (k == "--duration")
      duration_s = std::stoi(v);
    else {
      std::cerr << "ibw-e2e-fabrics_lab: unknown option " << k << "\n";
      return 2;
    }
  }
  if (dir.empty() || tokens.empty() || ready.empty()) {
    std::cerr
        << "usage: ibw-e2e-fabrics_lab --dir DIR --tokens FILE --ready-file FILE [--url URL]\n";
    return 2;
  }
  ibw::lab::stop_on_signals();
  try {
    return fabrics_lab::run(dir, tokens, ready, url, duration_s);
  } catch (const std::exception& e) {
    std::cerr << "ibw-e2e-fabrics_lab: " << e.what() << "\n";
    return 1;
  }
}
