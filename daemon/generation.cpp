// run_generation(): one configuration generation of `ibwarden run` (daemon/runtime.h), its
// start-up and shutdown as lists of named steps (daemon/steps.h), the main loop that writes
// the store batches, and what the main loop does besides: reloads (SIGHUP), the HA standby,
// takeover and step-down, and the hourly store compaction.
#include <algorithm>

#include "daemon/logger.h"
#include "daemon/outbox_worker.h"
#include "daemon/remedy_setup.h"
#include "daemon/runtime.h"
#include "daemon/sources/link_check.h"
#include "daemon/steps.h"
#include "daemon/ufm_setup.h"

namespace ibw::daemon::daemon_detail {

namespace {

void maybe_compact(Runtime& rt, DaemonProcess& p) {
  if (p.last_compact != Clock::time_point{} &&
      Clock::now() - p.last_compact < std::chrono::hours(1))
    return;
  p.last_compact = Clock::now();
  store::Retention ret{rt.cfg.store.raw_window_us, rt.cfg.store.aggregate_window_us,
                       rt.cfg.store.event_window_us};
  try {
    size_t removed = rt.store.db->compact(rt.fabric.clock.now_us(), ret);
    log(LogLevel::debug, "store compacted", {{"rows_removed", removed}});
  } catch (const std::exception& e) {
    log(LogLevel::warning, "store compaction failed", {{"error", e.what()}});
  }
}

// SIGHUP: loads and prepares the new configuration. True with `next` set when it is valid (the
// caller ends this generation); false, logged and reported to systemd, when it is rejected.
bool try_reload(Runtime& rt, DaemonProcess& p, std::unique_ptr<Runtime>& next) {
  p.notifier.reloading();
  try {
    auto candidate = prepare(config::load_config(p.config_path), p.mad);
    if (g_stop) return false;
    // The same instance on the same fabric and store keeps its lease across the reload.
    StorePart& now = rt.store;
    StorePart& then = candidate->store;
    if (now.keeper && then.keeper && candidate->cfg.ha.instance == rt.cfg.ha.instance &&
        then.spec.url == now.spec.url && then.spec.fabric == now.spec.fabric)
      then.keeper = std::move(now.keeper);
    next = std::move(candidate);
    log(LogLevel::info, "configuration reloaded", {{"config", p.config_path}});
    return true;
  } catch (const std::exception& e) {
    log(LogLevel::error, "new configuration rejected; keeping the running one",
        {{"config", p.config_path}, {"error", e.what()}});
    p.notifier.ready(ready_status(rt) + "; last reload rejected: " + e.what());
    return false;
  }
}

// HA standby: serves the web UI (started before) and tries to take the lease every ha.renew.
// True once this instance holds it; false on stop or a valid reload (`next`).
bool stand_by(Runtime& rt, DaemonProcess& p, std::unique_ptr<Runtime>& next) {
  LeaseKeeper& keeper = *rt.store.keeper;
  p.notifier.ready(ready_status(rt));
  log(LogLevel::info, "standing by for the fabric's lease",
      {{"fabric", rt.cfg.fabric.name},
       {"instance", keeper.instance()},
       {"lease_s", rt.cfg.ha.lease_us / 1e6},
       {"renew_s", rt.cfg.ha.renew_us / 1e6}});
  Clock::time_point next_try{};
  std::string holder = "\n";  // logs the first holder seen
  while (!g_stop) {
    p.notifier.watchdog_tick();
    if (g_reload.exchange(false) && try_reload(rt, p, next)) return false;
    if (Clock::now() >= next_try) {
      next_try = Clock::now() + std::chrono::microseconds(rt.cfg.ha.renew_us);
      if (keeper.tick("[]")) return true;
      store::Lease l = keeper.last();
      if (l.holder != holder) {
        holder = l.holder;
        log(LogLevel::info, "fabric's lease held by another instance",
            {{"holder", l.holder},
             {"epoch", l.epoch},
             {"expires_in_s", (l.expires_us - l.now_us) / 1e6}});
        p.notifier.ready(ready_status(rt));
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// The lease is ours: every write from now on carries its fence, and the next steps reconcile
// pending intents before the sources resume from their stored cursors.
void take_over(Runtime& rt) {
  StorePart& s = rt.store;
  s.spec.fence = s.keeper->fence();
  // Paused inside a transaction (SIGSTOP, a VM stall), this holder's session is ended by the
  // server after half a lease, so its row locks cannot hold a standby's takeover back.
  s.spec.idle_tx_timeout_ms = std::max<int64_t>(500, rt.cfg.ha.lease_us / 2000);
  s.db = store::Store::open(s.spec);
  size_t warmed = 0;
  if (rt.rules.runner) {  // the last hour as the previous holder stored it: flaps span a takeover
    store::EventQuery q;
    q.since_us = rt.fabric.clock.now_us() - 3600LL * 1'000'000;
    q.limit = 0;
    std::vector<ingest::Event> events;
    for (auto& e : s.db->events(q)) events.push_back(std::move(e.event));
    warmed = rt.rules.runner->add_events(events);
  }
  log(LogLevel::info,
      "taking over the fabric: reconciling pending intents, then resuming from "
      "the stored cursors",
      {{"fabric", rt.cfg.fabric.name},
       {"epoch", s.spec.fence->epoch},
       {"rule_events_loaded", warmed}});
}

// The lease is gone (taken over, or not renewed in time): this generation ends and a fresh
// standby one starts. Null (exit 1, for systemd to restart us) when it cannot be prepared.
std::unique_ptr<Runtime> step_down(Runtime& rt) {
  log(LogLevel::error, "stepping down to standby: this instance no longer holds the lease",
      {{"fabric", rt.cfg.fabric.name}, {"instance", rt.cfg.ha.instance}});
  try {
    return prepare(rt.cfg, rt.mad);
  } catch (const std::exception& e) {
    log(LogLevel::error, "cannot stand by again; exiting", {{"error", e.what()}});
    rt.store.failed = true;
    return nullptr;
  }
}

void start_source(Runtime& rt, Source& src) {
  SourceContext& ctx = *rt.sources.context;
  src.start(ctx);
  spawn(rt, [&src, &ctx] { src.run(ctx); });
}

// Before anything can act: port actions a crash left between request and record.
void reconcile(Runtime& rt) {
  try {
    reconcile_intents(rt.mad, rt.cfg, *rt.store.db, rt.fabric.plan.get(), &rt.fabric.names,
                      rt.fabric.clock.now_us());
  } catch (const std::exception& e) {
    log(LogLevel::error, "pending port actions not reconciled: they stay pending",
        {{"error", e.what()}});
  }
}

void seed_ports(Runtime& rt) {
  auto stored = rt.store.db->ports();
  for (const auto& r : stored)
    if (r.counters.valid) rt.fabric.stored_samples.push_back(r.counters);
  rt.fabric.ports.seed(std::move(stored));
}

void start_worker(Runtime& rt) {
  if (!rt.rules.worker) return;
  if (LeaseKeeper* k = rt.store.keeper.get())
    rt.rules.worker->set_store(rt.store.spec, [k] { return k->held(); });
  rt.rules.worker->set_after_action([&rt](const core::DecisionRecord& d) { read_back(rt, d); });
  rt.rules.worker->set_hold([&rt] { return rt.fabric.sm.hold_reason(); });
  rt.rules.worker->set_known_names(
      [&rt](uint64_t guid) { return rt.fabric.ports.node_name(guid); });
  rt.rules.worker->set_topology([&rt] { return rt.fabric.topology(); });
  if (LinkJobs* jobs = rt.link_jobs.get())
    rt.rules.worker->set_affected(
        [jobs](uint64_t guid, int port) { return jobs->of_link(guid, port); },
        [board = &rt.fabric.jobs](const std::vector<std::string>& nodes)
            -> std::optional<std::vector<actions::AffectedJob>> {
          auto index = board->index();
          if (!index) return std::nullopt;
          return index->on_nodes(nodes);
        });
  if (rules::RuleRunner* runner = rt.rules.runner.get())
    rt.rules.worker->set_floor([runner](uint64_t guid, int port, int64_t since_us) {
      return runner->set_floor(guid, port, since_us);
    });
  rt.rules.worker->start();
}

void start_slurm(Runtime& rt) {
  if (!rt.rules.slurm) return;
  if (rt.store.keeper) rt.rules.slurm->set_store(rt.store.spec);
  rt.rules.slurm->start();
}

void drop_ufm_view(Runtime& rt) {
  if (rt.cfg.ufm) return;
  if (size_t n = drop_ufm_port_view(*rt.store.db))
    log(LogLevel::info, "ufm port view dropped (no ufm: section)", {{"rows", n}});
}

// The start-up steps, in order. An HA instance serves the web UI and keeps the model warm
// (discovery) while it stands by, and takes over once the lease is its own.
std::vector<Step> start_steps(Runtime& rt, DaemonProcess& p, std::unique_ptr<Runtime>& next) {
  auto web = Step{"start the web API", [&rt] {
                    if (rt.cfg.web.enabled) start_web(rt);
                    return true;
                  }};
  auto discovery =
      Step{"start discovery", [&rt] { return start_source(rt, *rt.sources.list.front()), true; }};
  std::vector<Step> steps;
  bool ha = rt.store.keeper != nullptr;
  if (ha) {
    steps.push_back(web);
    steps.push_back(discovery);
    steps.push_back({"stand by for the lease", [&] { return stand_by(rt, p, next); }});
    steps.push_back({"take over", [&rt] { return take_over(rt), true; }});
  }
  steps.push_back({"reconcile pending intents", [&rt] { return reconcile(rt), true; }});
  steps.push_back({"seed the port table", [&rt] { return seed_ports(rt), true; }});
  steps.push_back({"start the action worker", [&rt] { return start_worker(rt), true; }});
  steps.push_back({"start the Slurm drain", [&rt] { return start_slurm(rt), true; }});
  if (ha) {
    steps.push_back({"start the lease thread", [&rt] {
                       rt.store.acting = true;
                       rt.fabric.request_discovery(1);  // record the fabric as this holder finds it
                       spawn(rt, [&rt] { lease_loop(rt); });
                       return true;
                     }});
  } else {
    steps.push_back(web);
    steps.push_back(discovery);
  }
  steps.push_back({"drop the UFM port view", [&rt] { return drop_ufm_view(rt), true; }});
  steps.push_back({"start the sources", [&rt] {
                     for (size_t i = 1; i < rt.sources.list.size(); ++i)
                       start_source(rt, *rt.sources.list[i]);
                     return true;
                   }});
  steps.push_back({"start the outbox", [&rt] {
                     if (rt.cfg.workorders.webhook)
                       spawn(rt, [&rt] {
                         run_outbox(rt.cfg, rt.store.spec, rt.rules.webhook_secret,
                                    rt.sources.running);
                       });
                     return true;
                   }});
  // systemd (Type=notify): this generation runs
  steps.push_back({"notify ready", [&] { return p.notifier.ready(ready_status(rt)), true; }});
  return steps;
}

// Shutdown: the start-up steps undone in reverse (their order without HA): the sources stop,
// the web API, the action worker, then what the workers still produced is written and the
// threads joined; a stopping lease holder releases the lease, so a standby takes over at once.
void shut_down(Runtime& rt, bool release_lease) {
  const std::vector<Step> steps = {
      {"stop the sources",
       [&rt] {
         rt.sources.running = false;
         for (auto& src : rt.sources.list) src->stop();
         return true;
       }},
      {"stop the web API",
       [&rt] {
         if (rt.web.server) rt.web.server->stop();
         return true;
       }},
      {"stop the action worker",
       [&rt] {
         if (rt.rules.worker) rt.rules.worker->stop();
         if (rt.rules.slurm) rt.rules.slurm->stop();
         return true;
       }},
      {"drain the store queue",
       [&rt] {
         while (rt.sources.live_threads > 0 || rt.store.queue.size() > 0)
           if (auto batch = rt.store.queue.pop_for(std::chrono::milliseconds(50)))
             write_batch(*batch, rt);
         rt.store.queue.close();
         return true;
       }},
      {"join the threads",
       [&rt] {
         for (auto& t : rt.sources.threads) t.join();
         rt.sources.threads.clear();
         return true;
       }},
      {"release the lease",
       [&rt, release_lease] {
         if (release_lease && rt.store.keeper) rt.store.keeper->release();
         return true;
       }},
  };
  run_steps(steps);
}

}  // namespace

void read_back(Runtime& rt, const core::DecisionRecord& d) {
  auto topo = rt.fabric.topology();
  if (!topo || !rt.sources.context) return;
  uint32_t n = topo->fabric.find_guid(d.node_guid);
  if (n == fabric::kNoNode) return;
  const fabric::Node& node = topo->fabric.node(n);
  uint16_t lid = 0;
  if (node.type == fabric::NodeType::sw) {
    lid = node.ports.empty() ? 0 : node.ports[0].lid;
  } else if (const fabric::Port* p = node.port(d.port); p && p->has_peer()) {
    const fabric::Node& sw = topo->fabric.node(p->peer_node);
    lid = sw.ports.empty() ? 0 : sw.ports[0].lid;
  }
  if (lid) check_links(*rt.sources.context, {lid});
}

void spawn(Runtime& rt, std::function<void()> fn) {
  rt.sources.live_threads++;
  rt.sources.threads.emplace_back([&rt, fn = std::move(fn)] {
    try {
      fn();
    } catch (const std::exception& e) {
      log(LogLevel::error, "worker failed", {{"error", e.what()}});
    }
    rt.sources.live_threads--;
  });
}

std::unique_ptr<Runtime> run_generation(Runtime& rt, DaemonProcess& p) {
  std::unique_ptr<Runtime> next;
  const std::vector<Step> start = start_steps(rt, p, next);
  try {
    if (!completed(run_steps(start), start.size())) {  // a standby stopped or reloaded
      shut_down(rt, false);
      return next;
    }
    while (!g_stop) {
      if (rt.store.lease_lost) {  // fenced or not renewed: stop acting, stand by again
        next = step_down(rt);
        break;
      }
      p.notifier.watchdog_tick();  // only this loop pings: a wedged writer gets us restarted
      if (g_reload.exchange(false) && try_reload(rt, p, next)) break;
      if (auto batch = rt.store.queue.pop_for(std::chrono::milliseconds(100)))
        write_batch(*batch, rt);
      maybe_compact(rt, p);
    }
  } catch (...) {
    p.notifier.stopping();
    shut_down(rt, false);
    throw;
  }
  if (g_stop) p.notifier.stopping();  // before the workers drain: that can take a while
  shut_down(rt, !next);               // stopping: a standby takes over at once
  return next;
}

}  // namespace ibw::daemon::daemon_detail
