// Cursed routes as the web API sees them: ProbeState (what the probe source,
// daemon/sources/probes.cpp, publishes: suspects and the route-health matrix; observations
// POSTed to /api/v1/probes on their way to it), the check of POSTed observations, and the
// route-health matrix.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/probe_intake.h"
#include "daemon/topology.h"
#include "fabric/routing.h"
#include "ingest/observation.h"

namespace ibw::daemon {

// What the probe thread publishes and the web API reads; POSTed observations on their way in.
// Thread-safe.
class ProbeState {
 public:
  void publish(nlohmann::json suspects, nlohmann::json route_health);
  std::optional<nlohmann::json> suspects() const;
  std::optional<nlohmann::json> route_health() const;
  // Validated observations from POST /api/v1/probes, taken by the probe thread. False (nothing
  // kept) when the queue would then hold more than max_pending (probes.max_posted): the
  // probe thread is behind and the poster is told to retry.
  bool post(std::vector<ingest::Observation> obs, size_t max_pending);
  std::vector<ingest::Observation> take_posted();
  // Inputs refused at the caps (intake quota, full queue, spool files), for /metrics.
  RefusalCounts refused;

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

}  // namespace ibw::daemon
