// RouteCheckBoard: the daemon's last route check (fabric/route_check.h) of OpenSM's LFTs,
// re-run by the OpenSM watcher after every change of opensm-lfts.dump. update() keeps the
// result for the web API (GET /api/v1/routes/check, the Routes page, /metrics) and returns
// the events that are new since the previous check: one `credit_loop` (error) per loop not
// reported before (its links name their VL once a lane other than 0 is in it: the same links
// on two lanes are two loops), `routing_fallback` (error) when OpenSM's fallback is new or
// changed, `unreachable` (warning) when the number of unreachable pairs rose. An unchanged
// dump reloaded gives no event. Thread-safe (one mutex). The watcher re-runs the check too
// when opensm-sl2vl.dump changes.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/route_check.h"
#include "ingest/event.h"

namespace ibw::daemon {

class RouteCheckBoard {
 public:
  std::vector<ingest::Event> update(const fabric::Fabric& fabric, const fabric::RouteCheck& check,
                                    const fabric::RoutingEngineInfo& engine, int64_t now_us,
                                    double seconds);
  // {"checked": false} before the first check; else route_check_json plus "checked": true,
  // "time" (ISO), "seconds" (the check's duration), "checks_total".
  nlohmann::json to_json() const;

  struct Summary {
    bool checked = false;
    uint64_t credit_loops = 0, unreachable_pairs = 0, checks_total = 0;
    double balance_ratio = 0;
    bool fallback = false;
  };
  Summary summary() const;

 private:
  mutable std::mutex mutex_;
  nlohmann::json last_;
  Summary summary_;
  std::set<std::string> loops_;  // the links of each loop reported, as text
  std::string fallback_;         // "configured>in_use: reason" reported; "" none
};

}  // namespace ibw::daemon
