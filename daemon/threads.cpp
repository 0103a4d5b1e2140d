// The daemon's thread bodies (daemon/runtime.h): the OpenSM watcher with the link check and
// the LFT reloads, the discovery thread, the counter sweeps, the rule evaluation after new
// data, the UFM hooks and the store writes. Start-up, reload and shutdown: daemon.cpp.
#include <sys/stat.h>

#include <filesystem>
#include <set>

#include "daemon/link_check.h"
#include "daemon/logger.h"
#include "daemon/runtime.h"
#include "fabric/diagnostics.h"
#include "ingest/counter_poller.h"
#include "ingest/counter_tracker.h"
#include "ingest/file_tailer.h"
#include "ingest/opensm_ingest.h"

namespace ibw::daemon::daemon_detail {

void enrich_all(const Topology* topo, std::vector<ingest::Event>& events) {
  if (!topo) return;
  for (auto& e : events) topo->correlator->enrich(e);
}

// Evaluates the rules after new data and hands acting verdicts to the action worker.
void evaluate_rules(Runtime& rt, const std::shared_ptr<const Topology>& topo) {
  if (!rt.rules || !topo) return;
  ActionJob job;
  job.topo = topo;
  for (auto& v : rt.rules->evaluate(topo->links, rt.clock.now_us())) {
    actions::Finding f;
    if (auto rec = rt.ports.get(v.node_guid, v.port)) f.counters = rec->counters;
    f.verdict = std::move(v);
    job.findings.push_back(std::move(f));
  }
  if (job.findings.empty()) return;
  size_t n = job.findings.size();
  if (!rt.worker->submit(std::move(job)))
    log(LogLevel::warning, "action queue full; verdicts deferred to the next evaluation",
        {{"verdicts", n}});
}

// Nodes of `before` that `after` does not have.
size_t lost_nodes(const fabric::Fabric& before, const fabric::Fabric& after) {
  size_t lost = 0;
  for (const fabric::Node& n : before.nodes())
    if (n.guid && after.find_guid(n.guid) == fabric::kNoNode) ++lost;
  return lost;
}

// Returns false when discovery failed (the caller retries).
bool discover(Runtime& rt) {
  int64_t now = rt.clock.now_us();
  std::shared_ptr<const Topology> topo, before;
  {
    std::lock_guard<std::mutex> lock(rt.topo_mutex);
    before = rt.topo;
  }
  std::vector<std::string> kept;
  try {
    topo = discover_topology(rt.cfg, rt.plan.get(), &rt.names, now, /*isolated=*/true,
                             before ? &before->fabric : nullptr, &kept);
    // A link that flaps while discovery crosses it hides every node discovery reached through
    // it (a leaf's hosts, say): nodes that vanish are confirmed by a second discovery before
    // they count as gone, so a flapping uplink cannot make a leaf's hosts look cut off.
    if (size_t lost = before ? lost_nodes(before->fabric, topo->fabric) : 0) {
      log(LogLevel::info, "discovery lost nodes; confirming with a second discovery",
          {{"nodes", lost}});
      now = rt.clock.now_us();
      kept.clear();
      topo = discover_topology(rt.cfg, rt.plan.get(), &rt.names, now, /*isolated=*/true,
                               &before->fabric, &kept);
    }
  } catch (const std::exception& e) {
    log(LogLevel::error, "discovery failed", {{"error", e.what()}});
    return false;
  }
  for (const std::string& link : kept)
    log(LogLevel::warning,
        "discovery lost its SMP across a link both ports still report up; kept the link "
        "(a lossy link drops discovery too)",
        {{"link", link}});
  {
    std::lock_guard<std::mutex> lock(rt.topo_mutex);
    rt.topo = topo;
  }
  if (!rt.acting) {  // a standby keeps the model warm; the holder records and acts
    log(LogLevel::debug, "fabric discovered (standby)", {{"nodes", topo->fabric.size()}});
    return true;
  }
  std::lock_guard<std::mutex> publish(rt.publish_mutex);
  store::WriteBatch batch;
  batch.ports = rt.ports.apply_topology(*topo, now, &batch.events);
  enrich_all(topo.get(), batch.events);
  log(LogLevel::info, "fabric discovered",
      {{"nodes", topo->fabric.size()},
       {"links", topo->fabric.link_count()},
       {"ports_polled", topo->targets.size()},
       {"link_changes", batch.events.size()}});
  if (rt.rules) rt.rules->add_events(batch.events);
  if (!batch.events.empty() || !batch.ports.empty()) rt.queue.push(std::move(batch));
  evaluate_rules(rt, topo);
  return true;
}

// Reloads OpenSM's LFT dump when its size or mtime changed since the last look.
class RouteWatcher {
 public:
  explicit RouteWatcher(std::string path) : path_(std::move(path)) {}
  void check(Runtime& rt) {
    struct stat st {};
    if (::stat(path_.c_str(), &st) != 0) return;
    std::pair<int64_t, int64_t> stamp{st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
                                      st.st_size};
    if (stamp == stamp_) return;
    stamp_ = stamp;
    try {
      auto tables = std::make_shared<const fabric::RoutingTables>(fabric::load_lft_dump(path_));
      log(LogLevel::info, "routing tables loaded",
          {{"path", path_}, {"switches", tables->by_switch.size()}});
      std::lock_guard<std::mutex> lock(rt.routes_mutex);
      rt.routes = std::move(tables);
    } catch (const std::exception& e) {  // OpenSM may be rewriting it: retry on the next change
      log(LogLevel::warning, "routing tables not loaded", {{"path", path_}, {"error", e.what()}});
      stamp_ = {};
    }
  }

 private:
  std::string path_;
  std::pair<int64_t, int64_t> stamp_{};
};

void watcher_loop(Runtime& rt) {
  RouteWatcher routes(rt.cfg.opensm.dump_dir + "/opensm-lfts.dump");
  std::optional<ingest::TailCursor> cursor;
  if (rt.opensm_cursor) cursor = ingest::TailCursor::parse(*rt.opensm_cursor);
  ingest::FileTailer tailer(rt.cfg.opensm.log, cursor,
                            /*start_at_end=*/!cursor && !rt.cfg.opensm.read_existing);
  if (!cursor) {  // store where reading starts, so a restart resumes there, not at the end
    if (auto pos = tailer.position()) {
      store::WriteBatch start;
      start.cursors.emplace_back("opensm", pos->serialize());
      rt.queue.push(std::move(start));
    }
  }
  std::string last_error;
  while (rt.running) {
    ingest::OsmLogContext ctx{rt.clock.now_us(), rt.cfg.opensm.utc_offset_s};
    ingest::OsmBatch osm = ingest::read_opensm_log(tailer, ctx);
    rt.health.set(
        {"opensm", tailer.error().empty() ? ingest::HealthState::ok : ingest::HealthState::down,
         tailer.error(), tailer.error().empty() ? rt.clock.now_us() : 0, rt.clock.now_us()});
    if (tailer.error() != last_error) {
      last_error = tailer.error();
      if (!last_error.empty())
        log(LogLevel::warning, "opensm log unavailable",
            {{"path", rt.cfg.opensm.log}, {"error", last_error}});
    }
    if (osm.rediscover) request_discovery(rt, rt.cfg.opensm.rediscover_delay_us);
    if (osm.cursor) {
      store::WriteBatch batch;
      batch.events = std::move(osm.events);
      auto topo = rt.topology();
      enrich_all(topo.get(), batch.events);
      batch.cursors.emplace_back("opensm", osm.cursor->serialize());
      if (!rt.queue.push(std::move(batch))) return;
    }
    check_links(rt, osm.link_change_lids);
    routes.check(rt);
    rt.nap(std::chrono::microseconds(rt.cfg.opensm.poll_us));
  }
}

void request_discovery(Runtime& rt, int64_t delay_us) {
  int64_t none = 0;  // a discovery already due keeps its time: repeated traps do not delay it
  rt.discover_due_us.compare_exchange_strong(none, steady_us() + std::max<int64_t>(delay_us, 1));
}

void discovery_loop(Runtime& rt) {
  int64_t last_full = steady_us();
  while (rt.running) {
    int64_t due = rt.discover_due_us.load(), now = steady_us();
    if (!due && now - last_full > rt.cfg.fabric.rediscover_interval_us) due = now;
    if (!due || now < due) {
      rt.nap(std::chrono::milliseconds(20));
      continue;
    }
    rt.discover_due_us = 0;  // a trap during this discovery schedules the next one
    last_full = now;
    if (!discover(rt))  // retry soon: a link change must not wait for the next trap
      request_discovery(rt, 1'000'000);
  }
}

void counter_loop(Runtime& rt) {
  ingest::TrackerOptions topts;
  topts.jump_threshold = rt.cfg.counters.jump_threshold;
  ingest::CounterTracker tracker(topts);
  for (const auto& s : rt.last_samples) tracker.seed(s);
  std::unique_ptr<ingest::CounterPoller> poller;
  while (rt.running) {
    auto topo = rt.topology();
    if (!topo) {
      rt.nap(std::chrono::milliseconds(200));
      continue;
    }
    auto started = Clock::now();
    try {
      if (!poller) {
        ingest::PollerOptions po;
        po.ca = rt.cfg.fabric.ca;
        po.ca_port = rt.cfg.fabric.ca_port;
        po.window = rt.cfg.counters.window;
        po.timeout_ms = rt.cfg.counters.timeout_ms;
        po.retries = rt.cfg.counters.retries;
        poller = ingest::CounterPoller::open(po, rt.clock);
      }
      ingest::SweepResult res = poller->sweep(topo->targets);
      std::unique_lock<std::mutex> publish(rt.publish_mutex);
      store::WriteBatch batch;
      std::vector<ingest::CounterDelta> deltas;
      deltas.reserve(res.samples.size());
      for (const auto& s : res.samples) deltas.push_back(tracker.update(s, &batch.events));
      for (const auto& t : res.unresponsive)
        tracker.unresponsive(t.node_guid, t.port, res.started_us, &batch.events);
      for (auto& e : batch.events) {
        if (e.kind == ingest::kind::port_unresponsive) {
          // Keyed on the last answer, not the sweep: a restart re-detecting the same dead port
          // must not report it again.
          auto rec = rt.ports.get(e.node_guid, e.port);
          e.dedup_key = "counters:port_unresponsive:" + std::to_string(e.node_guid) + ":" +
                        std::to_string(e.port) +
                        ":since:" + std::to_string(rec ? rec->counters.time_us : 0);
        }
        if (e.dedup_key.empty())
          e.dedup_key = "counters:" + e.kind + ":" + std::to_string(e.node_guid) + ":" +
                        std::to_string(e.port) + ":" + std::to_string(e.time_us);
      }
      enrich_all(topo.get(), batch.events);
      rt.ports.apply_counters(deltas);
      if (rt.rules) rt.rules->add_deltas(deltas);
      batch.port_counters = std::move(deltas);
      batch.samples = std::move(res.samples);
      log(LogLevel::debug, "counter sweep",
          {{"ports", topo->targets.size()},
           {"answered", batch.samples.size()},
           {"unresponsive", res.unresponsive.size()},
           {"duration_ms", res.duration_us / 1000.0}});
      if (!rt.queue.push(std::move(batch))) return;
      publish.unlock();
      rt.health.set(
          {"counters", ingest::HealthState::ok, "", rt.clock.now_us(), rt.clock.now_us()});
      if (rt.web_backend) rt.web_backend->sweep_done(res.duration_us / 1e6, rt.clock.now_us());
      evaluate_rules(rt, topo);
    } catch (const std::exception& e) {
      rt.health.set({"counters", ingest::HealthState::down, e.what(), 0, rt.clock.now_us()});
      log(LogLevel::error, "counter sweep failed", {{"error", e.what()}});
      poller.reset();
    }
    auto elapsed = Clock::now() - started;
    auto interval = std::chrono::microseconds(rt.cfg.counters.interval_us);
    if (elapsed < interval)
      rt.nap(std::chrono::duration_cast<std::chrono::microseconds>(interval - elapsed));
  }
}

// The UFM source's view of this runtime (daemon/ufm_source.h).
UfmSourceHooks ufm_hooks(Runtime& rt) {
  UfmSourceHooks h;
  h.topology = [&rt] { return rt.topology(); };
  h.push = [&rt](store::WriteBatch b) { return rt.queue.push(std::move(b)); };
  h.evaluate = [&rt](const std::shared_ptr<const Topology>& t) { evaluate_rules(rt, t); };
  h.publish_mutex = &rt.publish_mutex;
  h.ports = &rt.ports;
  h.rules = rt.rules.get();
  h.health = &rt.health;
  h.running = &rt.running;
  return h;
}

void lease_loop(Runtime& rt) {
  LeaseKeeper* keeper = rt.keeper.get();  // a reload hands it on to the next generation
  while (rt.running && !rt.lease_lost) {
    rt.nap(std::chrono::microseconds(rt.cfg.ha.renew_us));
    if (!rt.running) break;
    if (!keeper->tick(sources_json(rt))) rt.lease_lost = true;
  }
}

std::string sources_json(Runtime& rt) {
  if (rt.web_backend) return web::sources_json(rt.web_backend->health().sources);
  std::vector<web::SourceHealth> list;
  for (const auto& e : rt.health.snapshot())
    list.push_back({e.name,
                    e.state == ingest::HealthState::ok         ? web::SourceStatus::ok
                    : e.state == ingest::HealthState::degraded ? web::SourceStatus::degraded
                                                               : web::SourceStatus::down,
                    e.detail, e.last_ok_us});
  return web::sources_json(list);
}

// Batches with at least this many counter samples log their write time ("counters stored").
constexpr size_t kLoggedSamples = 1000;

// Writes one batch, retrying while the store fails. When shutting down it gives up after a
// few attempts; every later batch is then dropped too (rt.store_failed), so no cursor can
// move past events that were not stored: the sources re-read them after a restart.
void write_batch(store::WriteBatch& batch, Runtime& rt) {
  if (rt.store_failed || rt.lease_lost) return;
  for (int attempt = 0;; ++attempt) {
    try {
      auto started = std::chrono::steady_clock::now();
      store::WriteResult res = rt.db->write(batch);
      if (batch.samples.size() >= kLoggedSamples)  // a counter sweep or telemetry scrape
        log(LogLevel::info, "counters stored",
            {{"samples", batch.samples.size()},
             {"ports", batch.ports.size() + batch.port_counters.size()},
             {"events", batch.events.size()},
             {"write_ms",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                  .count()}});
      for (size_t i = 0; i < batch.events.size(); ++i)
        if (res.event_ids[i]) log_event(batch.events[i], res.event_ids[i]);
      return;
    } catch (const store::StoreFenced& e) {  // another instance holds the lease: step down
      log(LogLevel::error, "store write fenced: this instance lost the fabric's lease",
          {{"error", e.what()}});
      rt.lease_lost = true;
      return;  // the holder re-reads from the stored cursors
    } catch (const store::StoreError& e) {
      log(LogLevel::error, "store write failed; retrying",
          {{"error", e.what()}, {"attempt", attempt}});
      if (rt.lease_lost) return;  // stepping down: the next holder re-reads
      if (g_stop && attempt >= 2) {
        rt.store_failed = true;
        log(LogLevel::error, "shutting down with unstored batches; sources will re-read them");
        return;
      }
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
}

}  // namespace ibw::daemon::daemon_detail
