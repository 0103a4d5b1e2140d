// The evidence remediation stores with its decisions and work orders (internal to actions/):
// a verdict's facts and counters, a port's read-back state, the guard's answer.
#pragma once

#include <nlohmann/json.hpp>

#include "actions/remedy.h"

namespace ibw::actions {

nlohmann::json evidence_json(const Finding& f);
nlohmann::json reading_json(const PortReading& r);
// {"verdict", "rule", "reason"} and, with `overridden`, whether force overrode a soft rule
// (the rule path's decisions leave it out).
nlohmann::json guard_json(const Decision& g, bool overridden = true);

}  // namespace ibw::actions
