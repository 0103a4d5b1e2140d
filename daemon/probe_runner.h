// Cursed routes in the daemon: the probe thread and what it shares with the web API.
//
// probe_loop() (started by run_generation when probes.interval or probes.spool_dir is set):
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
//  5. the suspects and the route-health matrix are published for the web API.
// A round that cannot run (no port, no topology) is logged and reported as source "probes"
// on the health board; it is never a quiet no-op.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/topology.h"
#include "fabric/routing.h"
#include "ingest/observation.h"

namespace ibw::daemon {

namespace daemon_detail {
struct Runtime;
}

// What the probe thread publishes and the web API reads; POSTed observations on their way in.
// Thread-safe.
class ProbeState {
 public:
  void publish(nlohmann::json suspects, nlohmann::json route_health);
  std::optional<nlohmann::json> suspects() const;
  std::optional<nlohmann::json> route_health() const;
  // Validated observations from POST /api/v1/probes, taken by the probe thread.
  void post(std::vector<ingest::Observation> obs);
  std::vector<ingest::Observation> take_posted();

 private:
  mutable std::mutex mutex_;
  std::optional<nlohmann::json> suspects_, health_;
  std::vector<ingest::Observation> posted_;
};

// Parses and checks observations posted to the API against the current fabric (every
// endpoint must resolve). Throws fabric::InputError ("POST /api/v1/probes:LINE: field: ...").
std::vector<ingest::Observation> validate_posted(const std::string& text, const Topology* topo);

// The route-health matrix (web/backend.h route_health()): leaf switches (switches with CAs) by
// leaf switches. Measured end-to-end observations fill a cell; elsewhere the loss is predicted
// from the per-link loss of the window's directed probes over the minimal routes both ways.
nlohmann::json route_health_matrix(const fabric::Fabric& fabric,
                                   const std::vector<ingest::Observation>& window);

void probe_loop(daemon_detail::Runtime& rt);

}  // namespace ibw::daemon
