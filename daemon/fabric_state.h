// FabricState: what the daemon knows of its fabric right now, shared by the sources (which
// update it), the rules, the action worker and the web API (which read it): the plan and the
// node-name-map, the current topology and LFTs, the port table, the sources' health, the
// cursed-route state, when the next re-discovery is due and when telemetry scrapes run. One per
// configuration generation. Thread-safe: the topology and the routes are swapped under their own
// mutexes; the port table, health board and probe state lock themselves.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "daemon/congestion_state.h"
#include "daemon/job_board.h"
#include "daemon/port_table.h"
#include "daemon/probe_state.h"
#include "daemon/route_check_state.h"
#include "daemon/scrape_schedule.h"
#include "daemon/sm_board.h"
#include "daemon/source_health.h"
#include "daemon/topology.h"
#include "fabric/host_map.h"
#include "fabric/node_name_map.h"
#include "fabric/plan.h"
#include "fabric/routing.h"
#include "ingest/clock.h"
#include "rules/incidents.h"

namespace ibw::daemon {

// Microseconds on the steady clock (discovery scheduling).
inline int64_t steady_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class FabricState {
 public:
  std::unique_ptr<fabric::Plan> plan;  // null without fabric.plan
  fabric::NodeNameMap names;
  fabric::HostMapFile slurm_map;  // slurm.node_map's entries (empty without one)
  ingest::SystemClock clock;
  PortTable ports;
  SourceHealthBoard health;  // sources' health (OpenSM, counters, UFM, probes): logs, /health
  ProbeState probe_state;    // cursed routes: published by the probe source, read by the web API
  // Incidents (switch reboots, hosts down, SM re-sweeps): fed every published event by the
  // publish sequence, read by the rules (held verdicts, switch work orders) and the web API.
  rules::IncidentTracker incidents;
  CongestionBoard congestion;   // congestion findings (report only): set by evaluate, read by web
  RouteCheckBoard route_check;  // the last route check of the LFTs: set by the OpenSM watcher
  // The subnet manager (master, standbys, no master): set by the SM watcher, read by the action
  // worker (held actions), the web API and, stored, by `ibwarden status`.
  SmBoard sm;
  // The running Slurm jobs (slurm.enabled): set by the slurm_jobs source, read by LinkJobs.
  JobBoard jobs;
  // When UFM Telemetry scrapes run: set by the telemetry source (and the store writer's
  // counters batches), read by the UFM source so that its inventory read does not meet one.
  ScrapeSchedule scrapes;
  // The counter readings stored before this start (the MAD sweep's baseline), set with the
  // port table's seed.
  std::vector<ingest::CounterSample> stored_samples;
  // Held from a PortTable update until its batch is queued, so full-row port writes reach
  // the store in the order they were made (the writer never takes it: no deadlock).
  std::mutex publish_mutex;

  std::shared_ptr<const Topology> topology() const {
    std::lock_guard<std::mutex> lock(topo_mutex_);
    return topo_;
  }
  void set_topology(std::shared_ptr<const Topology> topo) {
    std::lock_guard<std::mutex> lock(topo_mutex_);
    topo_ = std::move(topo);
  }
  // Replaces the topology with `next` unless another one replaced `expected` meanwhile.
  bool replace_topology(const std::shared_ptr<const Topology>& expected,
                        std::shared_ptr<const Topology> next) {
    std::lock_guard<std::mutex> lock(topo_mutex_);
    if (topo_ != expected) return false;
    topo_ = std::move(next);
    return true;
  }
  // OpenSM's LFTs (opensm-lfts.dump), when loaded.
  std::shared_ptr<const fabric::RoutingTables> routes() const {
    std::lock_guard<std::mutex> lock(routes_mutex_);
    return routes_;
  }
  void set_routes(std::shared_ptr<const fabric::RoutingTables> routes) {
    std::lock_guard<std::mutex> lock(routes_mutex_);
    routes_ = std::move(routes);
  }

  // Schedules a re-discovery delay_us from now, unless one is already due (it keeps its time:
  // repeated traps do not delay it).
  void request_discovery(int64_t delay_us) {
    int64_t none = 0;
    discover_due_us_.compare_exchange_strong(none, steady_us() + std::max<int64_t>(delay_us, 1));
  }
  // When the next re-discovery is due (steady_us() time; 0 = nothing due). Starts due, so the
  // fabric is discovered first thing.
  int64_t discovery_due() const { return discover_due_us_.load(); }
  // The discovery source starts one: a request from now on schedules the next.
  void discovery_started() { discover_due_us_ = 0; }

 private:
  mutable std::mutex topo_mutex_, routes_mutex_;
  std::shared_ptr<const Topology> topo_;
  std::shared_ptr<const fabric::RoutingTables> routes_;
  std::atomic<int64_t> discover_due_us_{1};
};

}  // namespace ibw::daemon
