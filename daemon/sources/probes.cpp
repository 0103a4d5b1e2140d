// The probe source: cursed routes, started when probes.interval or probes.spool_dir is set.
//  1. every probes.interval, one probe round from the local port (ingest/prober.h: every LID,
//     every link by directed route), kept in a ProbeWindow of probes.window rounds; external
//     observations from probes.spool_dir and POST /api/v1/probes join the window;
//  2. the window is localized (rules/localize.h) over the current topology and LFTs, with the
//     links ibwarden disabled taken out (and the window cleared when that set grows: old
//     routes no longer hold);
//  3. each member of each suspect group gets guided DR probes pinned to it (5 x probes.count),
//     and its receiving port's PortRcvErrors/SymbolErrorCounter rise since it was first
//     suspected is read from the port table: a PathFinding each;
//  4. rules::evaluate_cursed_paths decides; confirmed verdicts go to the action worker like
//     every other rule's (guard, dry-run/enforce, SMP or UFM, work order with the evidence);
//  5. the suspects and the route-health matrix are published for the web API (ProbeState,
//     daemon/probe_state.h).
// A round that cannot run (no port, no topology) is logged and reported as source "probes"
// on the health board; it is never a quiet no-op.
#include "daemon/sources/sources.h"

#include <map>
#include <set>

#include "config/store_spec.h"
#include "daemon/logger.h"
#include "daemon/probe_window.h"
#include "fabric/diagnostics.h"
#include "fabric/route_model.h"
#include "ingest/probe_spool.h"
#include "ingest/prober.h"
#include "rules/eval_cursed_path.h"
#include "rules/localize.h"
#include "store/record_json.h"

namespace ibw::daemon {

namespace probe_detail {

constexpr int kGuidedFactor = 5;  // guided DR probes per link: 5 x probes.count

struct Loop {
  SourceContext& ctx;
  const config::ProbesSection& cfg;
  ProbeWindow window;
  std::unique_ptr<ingest::Prober> prober;
  std::optional<ingest::ProbeSpool> spool;
  std::set<std::pair<uint64_t, int>> disabled;            // as last seen in the store
  std::map<std::pair<uint64_t, int>, uint64_t> baseline;  // receiving port -> errors at first sight
  std::string last_suspects;
  bool warned_no_rules = false, warned_no_lfts = false;
  int64_t warned_drop_us = -60'000'000;

  void health(ingest::HealthState state, const std::string& detail) {
    int64_t now = ctx.clock().now_us();
    if (ctx.report({"probes", state, detail, state == ingest::HealthState::ok ? now : 0, now}))
      log(state == ingest::HealthState::ok ? LogLevel::info : LogLevel::warning,
          "probe source " + std::string(state == ingest::HealthState::ok ? "ok" : "failing"),
          {{"detail", detail}});
  }

  ingest::ProbeOptions options() const {
    ingest::ProbeOptions o;
    o.ca = ctx.cfg().fabric.ca, o.ca_port = ctx.cfg().fabric.ca_port;
    o.count = cfg.count, o.timeout_ms = cfg.timeout_ms;
    o.max_in_flight = cfg.max_in_flight, o.max_rate = cfg.max_rate;
    return o;
  }

  // One round of the built-in prober into the window; false when it could not run.
  bool round(const Topology& topo) {
    try {
      if (!prober) prober = ingest::Prober::open(ctx.mad(), options(), ctx.clock());
      load_disabled();
      std::vector<ingest::LinkEnd> skip;  // links ibwarden disabled: no probe into them
      for (auto [guid, port] : disabled)
        if (uint32_t n = topo.fabric.find_guid(guid); n != fabric::kNoNode)
          skip.push_back({n, port});
      ingest::ProbeRound r = ingest::probe_fabric(*prober, topo.fabric, skip);
      log(LogLevel::info, "probe round",
          {{"targets", r.stats.targets},
           {"mads", r.stats.mads_sent},
           {"lost", r.stats.lost},
           {"seconds", static_cast<double>(r.stats.duration_us) / 1e6},
           {"warnings", r.warnings.size()}});
      health(ingest::HealthState::ok, r.warnings.empty() ? "" : r.warnings.front());
      window.add_round(std::move(r.observations), ctx.clock().now_us());
      return true;
    } catch (const std::exception& e) {
      prober.reset();  // reopen next time
      log(LogLevel::error, "probe round could not run", {{"error", e.what()}});
      health(ingest::HealthState::down, e.what());
      return false;
    }
  }

  // Spool files and POSTed observations into the window; true when any arrived. Refused files
  // and observations dropped at probes.max_posted are counted for /metrics.
  bool take_external() {
    int64_t now = ctx.clock().now_us();
    ProbeState& state = ctx.fabric().probe_state;
    size_t got_any = 0, dropped = 0;
    if (spool) {
      auto got = spool->poll(now);
      if (!got.error.empty()) health(ingest::HealthState::degraded, got.error);
      for (const auto& r : got.rejected)
        log(LogLevel::warning, "probe file rejected", {{"spool", spool->dir()}, {"file", r}});
      for (const auto& [reason, n] : got.refused) state.refused.add(reason, n);
      if (!got.accepted.empty())
        log(LogLevel::info, "probe files ingested",
            {{"files", got.accepted}, {"observations", got.observations.size()}});
      got_any += got.observations.size();
      dropped += window.add_posted(std::move(got.observations), now);
    }
    auto posted = state.take_posted();
    got_any += posted.size();
    dropped += window.add_posted(std::move(posted), now);
    window.expire(now);
    if (dropped) {
      state.refused.add("posted_dropped", dropped);
      if (now - warned_drop_us >= 60'000'000) {  // at most once a minute
        warned_drop_us = now;
        log(LogLevel::warning, "probe window full: oldest external observations dropped",
            {{"dropped", dropped}, {"max_posted", cfg.max_posted}});
      }
    }
    return got_any > 0;
  }

  // The links ibwarden disabled, as stored; a change either way clears the window (routes
  // changed under it). Read before each round (no probe into them) and each localization.
  void load_disabled() {
    std::set<std::pair<uint64_t, int>> now;
    try {
      auto db = store::Store::open(config::store_spec(ctx.cfg()), /*read_only=*/true);
      for (const auto& d : db->disabled_ports()) now.insert({d.node_guid, d.port});
    } catch (const std::exception& e) {
      log(LogLevel::warning, "probe: disabled ports unreadable", {{"error", e.what()}});
      return;
    }
    if (now != disabled) {
      log(LogLevel::info, "probe window cleared: a link was disabled or enabled",
          {{"disabled", now.size()}});
      window.clear();
      baseline.clear();
    }
    disabled = std::move(now);
  }

  // Guided DR probes through every link of the suspects: (sent, lost) per directed link key.
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> guided(const fabric::Fabric& fab,
                                                           const rules::LocalizeResult& res) {
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> out;
    if (!prober || res.suspects.empty()) return out;
    std::vector<ingest::LinkEnd> links;
    for (const auto& s : res.suspects)
      for (const auto& l : s.links) links.push_back({l.node, l.port});
    uint32_t local = fab.find_guid(prober->vantage().node_guid);
    if (local == fabric::kNoNode) return out;
    try {
      auto plan = ingest::plan_link_probes(fab, local, prober->vantage().port, links);
      auto round = prober->probe_routes(plan.targets);
      for (size_t i = 0; i < plan.targets.size() && i < round.observations.size(); ++i) {
        const auto& t = plan.targets[i];
        const auto& ob = round.observations[i];
        for (auto e : {t.near, t.far}) {
          auto& [sent, lost] = out[fabric::dir_link_key(e.node, e.port)];
          sent += ob.sent, lost += ob.lost;
        }
      }
    } catch (const std::exception& e) {
      log(LogLevel::warning, "guided probes failed", {{"error", e.what()}});
    }
    return out;
  }

  std::vector<rules::PathFinding> findings(
      const Topology& topo, const rules::LocalizeResult& res,
      const std::map<uint64_t, std::pair<uint64_t, uint64_t>>& dr) {
    const fabric::Fabric& fab = topo.fabric;
    std::vector<rules::PathFinding> out;
    for (const auto& s : res.suspects) {
      std::set<std::string> seen;  // one finding per physical link
      size_t physical = 0;
      for (const auto& l : s.links) {
        const fabric::Port* p = fab.node(l.node).port(l.port);
        if (!p || !p->has_peer()) continue;
        auto key = std::min(std::pair{fab.node(l.node).guid, l.port},
                            std::pair{fab.node(p->peer_node).guid, p->peer_port});
        physical +=
            seen.insert(fabric::format_guid(key.first) + "/" + std::to_string(key.second)).second;
      }
      seen.clear();
      for (const auto& l : s.links) {
        const fabric::Port* p = fab.node(l.node).port(l.port);
        if (!p || !p->has_peer()) continue;
        const fabric::Node& rx = fab.node(p->peer_node);
        auto key =
            std::min(std::pair{fab.node(l.node).guid, l.port}, std::pair{rx.guid, p->peer_port});
        if (!seen.insert(fabric::format_guid(key.first) + "/" + std::to_string(key.second)).second)
          continue;
        rules::PathFinding f;
        f.node_guid = rx.guid, f.port = p->peer_port, f.last_time_us = s.last_bad_us;
        rules::PathEvidence& e = f.evidence;
        e.link =
            fab.port_label(l.node, l.port) + " -> " + fab.port_label(p->peer_node, p->peer_port);
        e.score = s.score, e.loss = s.loss, e.group_size = physical;
        e.bad_observations = s.bad_observations, e.good_observations = s.good_observations;
        e.sample_bad_pairs = s.sample_bad_pairs;
        if (auto it = dr.find(fabric::dir_link_key(l.node, l.port)); it != dr.end())
          e.dr_sent = it->second.first, e.dr_lost = it->second.second;
        if (auto rec = ctx.fabric().ports.get(rx.guid, p->peer_port); rec && rec->counters.valid) {
          uint64_t errs =
              rec->counters.value[static_cast<size_t>(ingest::Counter::PortRcvErrors)] +
              rec->counters.value[static_cast<size_t>(ingest::Counter::SymbolErrorCounter)];
          auto [it, fresh] = baseline.emplace(std::pair{rx.guid, p->peer_port}, errs);
          if (!fresh) {
            e.counters_known = true;
            uint64_t rcv = rec->counters.value[static_cast<size_t>(ingest::Counter::PortRcvErrors)];
            e.rcv_errors_delta = errs >= it->second ? std::min(rcv, errs - it->second) : 0;
            e.symbol_errors_delta = errs >= it->second ? errs - it->second - e.rcv_errors_delta : 0;
          }
        }
        out.push_back(std::move(f));
      }
    }
    return out;
  }

  void act(const std::shared_ptr<const Topology>& topo, std::vector<rules::PathFinding> found) {
    if (found.empty()) return;
    if (!ctx.rules()) {
      if (!warned_no_rules)
        log(LogLevel::warning, "cursed-route suspects are not acted on: no rules.file");
      warned_no_rules = true;
      return;
    }
    ActionJob job;
    job.topo = topo;
    log(LogLevel::debug, "cursed-path findings",
        {{"findings", found.size()},
         {"first", found[0].evidence.link},
         {"loss", found[0].evidence.loss},
         {"bad", found[0].evidence.bad_observations},
         {"dr_sent", found[0].evidence.dr_sent},
         {"dr_lost", found[0].evidence.dr_lost}});
    for (auto& v :
         rules::evaluate_cursed_paths(ctx.rules()->rules(), found, ctx.clock().now_us())) {
      if (!v.confirmed || v.action == rules::Action::none) {  // say why nothing is done
        log(LogLevel::info, "cursed-path verdict not acted on",
            {{"rule", v.rule}, {"explanation", v.explanation}});
        continue;
      }
      actions::Finding f;
      if (auto rec = ctx.fabric().ports.get(v.node_guid, v.port)) f.counters = rec->counters;
      f.verdict = std::move(v);
      job.findings.push_back(std::move(f));
    }
    if (!job.findings.empty() && !ctx.submit(std::move(job)))
      log(LogLevel::warning, "action queue full; cursed-path verdicts wait for the next round");
  }

  void localize(const std::shared_ptr<const Topology>& topo) {
    const fabric::Fabric& fab = topo->fabric;
    std::shared_ptr<const fabric::RoutingTables> routes = ctx.fabric().routes();
    fabric::RouteModel model(fab, routes.get());
    load_disabled();
    for (auto [guid, port] : disabled)
      if (uint32_t n = fab.find_guid(guid); n != fabric::kNoNode) model.set_down(n, port);
    std::vector<ingest::Observation> obs = window.all();
    if (!routes) {  // static records need the LFTs: say so once, localize the rest
      size_t before = obs.size();
      std::erase_if(obs, [](const auto& o) { return o.routing == ingest::Routing::static_lft; });
      if (obs.size() != before && !warned_no_lfts)
        log(LogLevel::warning, "no LFT dump: LID-routed probes are left out of localization",
            {{"dump", ctx.cfg().opensm.dump_dir + "/opensm-lfts.dump"}});
      warned_no_lfts |= obs.size() != before;
    }
    rules::LocalizeOptions opt;
    opt.default_routing =
        cfg.routes == "static" ? ingest::Routing::static_lft : ingest::Routing::adaptive;
    opt.skip_unroutable = true;  // records over links that went down since are left out
    opt.skip_unresolved = true;  // and those naming nodes a re-discovery lost (the rest holds)
    rules::LocalizeResult res;
    try {
      res = rules::localize(model, obs, opt);
    } catch (const fabric::InputError& e) {  // the fabric changed under the window
      log(LogLevel::warning, "probe window no longer matches the fabric; cleared",
          {{"error",
            e.diagnostics().empty() ? e.what() : fabric::format_diagnostic(e.diagnostics()[0])}});
      window.clear();
      return;
    }
    act(topo, findings(*topo, res, guided(fab, res)));
    auto cable = [&](uint64_t guid, int port) { return topo->correlator->cable_at(guid, port); };
    nlohmann::json j = rules::localize_json(fab, res, cable);
    std::string now = store::iso_time(ctx.clock().now_us());
    j["time"] = now, j["rounds"] = window.rounds(), j["posted"] = window.posted();
    j["skipped"] = res.skipped + res.skipped_unresolved;
    std::string labels;
    for (const auto& s : res.suspects) labels += rules::suspect_label(fab, s) + "; ";
    if (labels != last_suspects)
      log(res.suspects.empty() ? LogLevel::info : LogLevel::warning, "cursed-route suspects",
          {{"suspects", res.suspects.size()}, {"links", labels}});
    last_suspects = labels;
    nlohmann::json health = route_health_matrix(fab, window.all());
    health["time"] = now, health["rounds"] = window.rounds();
    ctx.fabric().probe_state.publish(std::move(j), std::move(health));
  }
};

}  // namespace probe_detail

namespace {

void run_probes(SourceContext& ctx, const std::optional<std::string>&) {
  const auto& cfg = ctx.cfg().probes;
  int64_t interval = cfg.interval_us.value_or(60'000'000);
  probe_detail::Loop loop{ctx, cfg,
                          ProbeWindow(static_cast<int>(cfg.window), interval, cfg.max_posted)};
  if (cfg.spool_dir) {
    try {
      loop.spool.emplace(*cfg.spool_dir, 1'000'000, cfg.spool_max_bytes);
    } catch (const std::exception& e) {
      log(LogLevel::error, "probe spool unusable", {{"error", e.what()}});
      loop.health(ingest::HealthState::down, e.what());
    }
  }
  log(LogLevel::info, "probing",
      {{"interval_s", cfg.interval_us ? *cfg.interval_us / 1e6 : 0.0},
       {"spool_dir", cfg.spool_dir.value_or("")}});
  int64_t next = ctx.clock().now_us();
  while (ctx.running()) {
    auto topo = ctx.topology();
    int64_t now = ctx.clock().now_us();
    bool fresh = loop.take_external();
    if (topo && cfg.interval_us && now >= next) {
      fresh |= loop.round(*topo);
      next = now + *cfg.interval_us;
    } else if (!topo && cfg.interval_us && now >= next) {
      loop.health(ingest::HealthState::degraded, "no topology yet");
    }
    if (topo && fresh) loop.localize(topo);
    ctx.nap(std::chrono::seconds(1));
  }
}

}  // namespace

std::unique_ptr<Source> make_probe_source() {
  return std::make_unique<FunctionSource>("probes", run_probes);
}

}  // namespace ibw::daemon
