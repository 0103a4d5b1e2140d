// `ibwarden incidents`: the incidents (rules/incidents.h) in a store's recorded events, found
// by the daemon's own tracker replayed over them in time order: the links and node types come
// from the recorded ports (cli/store_fabric.h), the events from --since (default the last
// 24 h). The daemon's GET /api/v1/incidents answers from its live tracker, which saw the same
// events as they were stored.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/store_fabric.h"
#include "config/config.h"
#include "config/store_spec.h"
#include "daemon/topology.h"
#include "rules/incidents.h"
#include "store/record_json.h"

namespace ibw::cli {

int cmd_incidents(const CmdArgs& args) {
  return run_command(args, "incidents", [&] {
    if (!args.has("config")) return args.usage_error("--config is required");
    std::string format = args.choice("format", "text");
    int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
    int64_t since =
        args.has("since") ? parse_since_arg(*args.get("since")) : now - 24LL * 3600 * 1'000'000;
    config::Config cfg = config::load_config(*args.get("config"));
    auto db = store::Store::open(config::store_spec(cfg), /*read_only=*/true);
    auto topo = daemon::make_topology(fabric_from_ports(db->ports()), nullptr, 0);
    rules::IncidentTracker tracker;
    tracker.learn(topo->links);
    store::EventQuery q;
    q.since_us = since;
    q.limit = 0;
    std::vector<ingest::Event> events;
    for (auto& e : db->events(q))
      if (rules::IncidentTracker::wants(e.event)) events.push_back(std::move(e.event));
    std::stable_sort(events.begin(), events.end(),
                     [](const auto& a, const auto& b) { return a.time_us < b.time_us; });
    tracker.add(events);
    auto list = tracker.list(since, now);
    if (format == "json") {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& inc : list) out.push_back(rules::incident_json(inc));
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    for (const auto& inc : list) {
      std::cout << store::iso_time(inc.first_us) << "  " << inc.kind << "  " << inc.node << "  "
                << inc.state << "  " << inc.events << " events";
      if (inc.cycles > 1) std::cout << ", " << inc.cycles << " cycles";
      std::cout << "  last " << store::iso_time(inc.last_us) << "\n    ports:";
      for (const auto& p : inc.ports) std::cout << " " << p.node << "/" << p.port;
      std::cout << "\n";
    }
    std::cout << list.size() << " incident(s)\n";
    return 0;
  });
}

}  // namespace ibw::cli
