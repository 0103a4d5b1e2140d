// The subnet-manager watcher ("sm_watch"), on when sm_watch.enabled says so (auto: with live
// discovery, i.e. when the daemon reaches MADs). Every sm_watch.interval, from the local port:
//  1. PortInfo of the local port (an empty directed route): its MasterSMLID;
//  2. every sm_watch.rescan (and after each new topology), PortInfo of every CA port of the
//     topology: the ports whose IsSM bit is set are the SMs (master and standbys);
//  3. SMInfo of MasterSMLID and of every SM port found: GUID, priority, state, ActCount.
// The answers go to an ingest::SmTracker (no master / failover / master back, a frozen
// ActCount); its events are stored as opensm events, its view is published to the SmBoard
// (FabricState::sm: the action worker holds automatic actions while there is no master) and
// stored as the cursor "subnet_manager" (for `ibwarden status`) when it changes, at least
// once a minute. A poll that cannot open the local port marks the board failed and the source
// down on the health board: loud, and the action worker then holds (SmBoard's conservative
// rule).
// The OpenSM log's state lines ("Exiting SM", "Entering STANDBY state", "Entering MASTER
// state" ...: ingest/opensm_sm_state.h) reach the board as the OpenSM watcher publishes its
// sm_state events (SmBoard::note_log_state); the nap between polls ends when one arrives, and
// the tracker polls at once and then quickly (SmTracker::note_log_state), so MADs confirm a
// stopped or a new master sooner. The log never decides "no master" itself: it may be stale,
// or the local OpenSM may not be the master; SMInfo answers do. The last logged state is
// restored from the stored cursor at start (SmBoard::restore_log_state).
// In ibsim, OpenSM answers SMInfo itself (through umad2sim) and clears IsSM when it exits, so
// a stopped OpenSM is a master LID that no longer answers; ActCount moves at each answer.
#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "daemon/logger.h"
#include "daemon/sources/sources.h"
#include "fabric/port_info.h"
#include "fabric/sm_info.h"
#include "ingest/sm_tracker.h"

namespace ibw::daemon {
namespace sm_watch_detail {

constexpr int64_t kRestoreUs = 60'000'000;  // the stored view is rewritten at least this often

struct Watch {
  SourceContext& ctx;
  const config::SmWatchSection& cfg;
  ingest::SmTracker tracker;
  std::set<std::pair<uint16_t, int>> sm_ports = {};  // (LID, port) with IsSM, as last scanned
  std::shared_ptr<const Topology> scanned = {};      // the topology of the last scan
  int64_t next_scan_us = 0;
  std::string stored = {};  // the view as last stored
  int64_t stored_us = 0;
  int local_port_ = 0;   // the local port's number (PortInfo of the local port by DR)
  uint64_t log_seq = 0;  // SmBoard::log_seq when the board's logged state was last looked at

  void health(ingest::HealthState state, const std::string& detail) {
    int64_t now = ctx.clock().now_us();
    if (ctx.report({"sm_watch", state, detail, state == ingest::HealthState::ok ? now : 0, now}))
      log(state == ingest::HealthState::ok ? LogLevel::info : LogLevel::error,
          state == ingest::HealthState::ok ? "SM watcher ok" : "SM watcher failing",
          {{"detail", detail}});
  }

  // The CA ports of the topology whose IsSM bit is set.
  void scan(fabric::SmQuerier& q, const std::shared_ptr<const Topology>& topo, int64_t now) {
    next_scan_us = now + cfg.rescan_us;
    scanned = topo;
    if (!topo) return;
    sm_ports.clear();
    for (const auto& n : topo->fabric.nodes()) {
      if (n.type != fabric::NodeType::ca) continue;
      for (const auto& p : n.ports)
        if (p.present && p.lid && p.state == fabric::kPortActive)
          if (auto f = q.port_fields(p.lid, p.number); f && f->is_sm)
            sm_ports.insert({p.lid, p.number});
    }
  }

  ingest::SmPoll poll(int64_t now) {
    fabric::SmQuerier q(ctx.mad(), ctx.cfg().fabric.ca, ctx.cfg().fabric.ca_port, cfg.timeout_ms,
                        cfg.retries);
    ingest::SmPoll p;
    p.time_us = now;
    if (auto local = q.port_fields(0, local_port_number())) p.master_lid = local->master_sm_lid;
    auto topo = ctx.topology();
    if (now >= next_scan_us || topo != scanned) scan(q, topo, now);
    std::set<uint16_t> lids;
    if (p.master_lid) lids.insert(p.master_lid);
    for (const auto& [lid, port] : sm_ports) lids.insert(lid);
    for (uint16_t lid : lids)
      if (auto info = q.sm_info(lid)) p.answers.push_back(*info);
    return p;
  }

  int local_port_number() {
    if (!local_port_)
      local_port_ =
          fabric::local_port(ctx.mad(), ctx.cfg().fabric.ca, ctx.cfg().fabric.ca_port).port;
    return local_port_;
  }

  // Naps for d, in 50 ms steps, or until the OpenSM log gives a state line that paces the
  // polls (SmTracker::note_log_state): then the next poll runs at once.
  void nap(std::chrono::microseconds d) {
    using Clock = std::chrono::steady_clock;
    const auto until = Clock::now() + d;
    SmBoard& board = ctx.fabric().sm;
    while (ctx.running() && Clock::now() < until) {
      if (uint64_t seq = board.log_seq(); seq != log_seq) {
        log_seq = seq;
        auto logged = board.log_state();
        if (logged && tracker.note_log_state(ingest::sm_log_state_from_name(logged->state),
                                             logged->time_us, ctx.clock().now_us())) {
          log(LogLevel::info, "SM watcher polls now: OpenSM logged a state line",
              {{"log_state", logged->state}, {"at", logged->at}});
          return;
        }
      }
      std::this_thread::sleep_for(std::min<std::chrono::microseconds>(
          std::chrono::milliseconds(50),
          std::chrono::duration_cast<std::chrono::microseconds>(until - Clock::now())));
    }
  }

  void publish(std::vector<ingest::Event> events, int64_t now) {
    tracker.note_sweep(ctx.fabric().sm.last_sweep());
    auto view = tracker.to_json();
    ctx.fabric().sm.publish(view);
    for (const auto& e : events)
      log(e.severity == ingest::Severity::critical ? LogLevel::error : LogLevel::warning, e.message,
          {{"kind", e.kind}});
    std::string text = ctx.fabric().sm.json().dump();  // as /health shows it (watch, last_sweep)
    if (events.empty() && text == stored && now - stored_us < kRestoreUs) return;
    store::WriteBatch batch;
    enrich_all(ctx.topology().get(), events);
    for (auto& e : events) e.node = e.node.empty() ? "subnet manager" : e.node;
    batch.events = std::move(events);
    batch.cursors.emplace_back("subnet_manager", text);
    if (ctx.push(std::move(batch))) stored = std::move(text), stored_us = now;
  }
};

}  // namespace sm_watch_detail

namespace {

void run_sm_watch(SourceContext& ctx, const std::optional<std::string>& stored) {
  const auto& cfg = ctx.cfg().sm_watch;
  if (stored) ctx.fabric().sm.restore_log_state(nlohmann::json::parse(*stored, nullptr, false));
  sm_watch_detail::Watch w{ctx, cfg, ingest::SmTracker({cfg.fail_polls, cfg.freeze_us})};
  w.log_seq = ctx.fabric().sm.log_seq();
  while (ctx.running()) {
    auto started = std::chrono::steady_clock::now();
    int64_t now = ctx.clock().now_us();
    try {
      auto p = w.poll(now);
      w.publish(w.tracker.update(p), now);
      w.health(ingest::HealthState::ok, "");
    } catch (const std::exception& e) {
      ctx.fabric().sm.fail(e.what());
      w.health(ingest::HealthState::down, e.what());
    }
    auto spent = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - started);
    w.nap(std::max(
        std::chrono::microseconds(w.tracker.next_poll_us(now, cfg.interval_us) - now) - spent,
        std::chrono::microseconds(50'000)));
  }
}

}  // namespace

std::unique_ptr<Source> make_sm_watch() {
  return std::make_unique<FunctionSource>("sm_watch", &run_sm_watch, /*resumes=*/true,
                                          "subnet_manager");
}

}  // namespace ibw::daemon
