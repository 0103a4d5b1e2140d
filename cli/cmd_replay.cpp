// `ibwarden replay`: the rules and the guard over recorded history, without touching the
// fabric. The fabric graph is rebuilt from the recorded ports (a node whose recorded ports
// share one LID is a switch, as switch ports answer on the switch's port-0 LID); counter
// samples, link events (and UFM's high_ber verdicts, when a ufm_high_ber rule is loaded) from
// the store go in time order through the daemon's own rule engine (rules::replay over a
// rules::RuleRunner, so a flap that OpenSM and UFM both reported counts once, as live).
// Verdicts go through actions::Remediator against a scratch store with a
// simulated executor, so the guard's budgets (per switch, per hour, total) apply as they
// would have in enforce mode; every would-be disable is reported as dry_run.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "actions/remedy.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/store_fabric.h"
#include "config/config.h"
#include "daemon/remedy_setup.h"
#include "daemon/topology.h"
#include "rules/replay.h"
#include "store/record_json.h"
#include "store/remedy_json.h"

namespace ibw::cli {

using daemon::make_topology;
using daemon::remedy_config;

using store::event_json;
using store::iso_time;
using store::port_json;

namespace cmd_replay_detail {

// Pretends every port action works, so the guard's state evolves as in enforce mode.
class SimulatedExecutor : public actions::PortExecutor {
 public:
  actions::PortChange disable(const actions::PortAddress&, int) override { return change(3); }
  actions::PortChange enable(const actions::PortAddress&, int) override { return change(2); }
  actions::PortReading read(const actions::PortAddress&, int) override { return {4, 5}; }

 private:
  static actions::PortChange change(uint8_t phys) {
    actions::PortChange c;
    c.before = {4, 5};
    c.set_reply = c.after = {1, phys};
    return c;
  }
};

}  // namespace cmd_replay_detail

using namespace cmd_replay_detail;

int cmd_replay(const CmdArgs& args) {
  std::string scratch;
  try {
    for (const char* required : {"config", "from"})
      if (!args.has(required)) throw UsageError(std::string("--") + required + " is required");
    std::string format = args.choice("format", "text");
    int64_t since = args.has("since") ? parse_since_arg(*args.get("since")) : 0;
    config::Config cfg = config::load_config(*args.get("config"));
    auto rules_file = args.get("rules");
    if (!rules_file && cfg.rules.file) rules_file = *cfg.rules.file;
    if (!rules_file) throw UsageError("no rules: give --rules FILE or set rules.file");
    rules::RuleSet rules = rules::load_rules(*rules_file);
    std::unique_ptr<fabric::Plan> plan;
    if (cfg.fabric.plan) plan = std::make_unique<fabric::Plan>(fabric::load_plan(*cfg.fabric.plan));

    auto src = store::Store::open(*args.get("from"), /*read_only=*/true);
    auto ports = src->ports();
    auto topo = make_topology(fabric_from_ports(ports), plan.get(), 0);
    // Every sample and link event, in time order.
    rules::Recording rec;
    auto& samples = rec.samples;
    for (const auto& p : ports) {
      auto s = src->samples(p.node_guid, p.port, since);
      samples.insert(samples.end(), s.begin(), s.end());
    }
    std::sort(samples.begin(), samples.end(),
              [](const auto& a, const auto& b) { return a.time_us < b.time_us; });
    store::EventQuery eq;
    eq.since_us = since;
    eq.limit = 0;
    // Link events and UFM's BER verdicts, as far as the rules use them.
    rules::RuleRunner runner(std::move(rules));
    rules::IncidentTracker incidents;  // as the daemon's: held verdicts, switch work orders
    runner.set_incidents(&incidents);
    auto& links = rec.events;
    for (auto& e : src->events(eq))
      if (runner.wants(e.event) || rules::IncidentTracker::wants(e.event))
        links.push_back(std::move(e.event));

    scratch = (std::filesystem::temp_directory_path() /
               ("ibwarden-replay-" + std::to_string(::getpid()) + ".db"))
                  .string();
    auto db = store::Store::open(scratch);
    actions::RemedyConfig rc = remedy_config(cfg);
    rc.guard.mode = actions::GuardMode::enforce;
    rc.outbox = false;
    SimulatedExecutor exec;
    actions::Remediator remedy(rc, *db, &exec);
    actions::PlanIndex index(plan.get());
    actions::RemedyContext ctx{&topo->fabric, topo->correlator.get(), &index, {}};
    rules::replay(
        runner, topo->links, rec,
        [&](const rules::Verdict& v, const ingest::CounterSample& last, int64_t now) {
          remedy.on_finding(actions::Finding{v, last}, ctx, now);
        },
        &incidents);

    store::DecisionQuery q;
    q.limit = 0;
    auto decisions = db->decisions(q);
    nlohmann::json out = nlohmann::json::array();
    for (auto d : decisions) {
      if (d.status == "executed" && d.action == "disable") d.status = "dry_run";
      if (format == "json") {
        out.push_back(store::decision_json(d));
      } else {
        std::cout << iso_time(d.time_us) << "  " << d.rule << "  " << d.node << "/" << d.port
                  << "  " << d.action << "  " << d.status << "\n    " << d.reason << "\n";
      }
    }
    if (format == "json") std::cout << out.dump(2) << "\n";
    if (format == "text")
      std::cout << decisions.size() << " decision(s) from " << samples.size() << " samples and "
                << std::count_if(links.begin(), links.end(),
                                 [](const ingest::Event& e) {
                                   return e.kind == ingest::kind::link_down ||
                                          e.kind == ingest::kind::link_up;
                                 })
                << " link events\n";
    db.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(scratch + suffix);
    return decisions.empty() ? 0 : 1;
  } catch (const UsageError& e) {
    return args.usage_error(e.what());
  } catch (const std::exception& e) {
    if (!scratch.empty())
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(scratch + suffix);
    std::cerr << "ibwarden replay: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace ibw::cli
