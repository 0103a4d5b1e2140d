// Private to rules/: the ufm_high_ber check of one port (semantics in rules/evaluate.h),
// kept apart from the counter and link rules of evaluate.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "rules/evaluate.h"

namespace ibw::rules {

// True when rule r (type ufm_high_ber) fires on port p at now_us; then *what gets the
// explanation (without rule name and port) and *ev the evidence: the uncleared high_ber
// events in the window with severity >= r.min_severity, and the latest one's time.
// Allocates nothing when the port has no BER events.
bool ufm_high_ber_fires(const Rule& r, const PortWindow& p, int64_t now_us, std::string* what,
                        Evidence* ev);

// "2024-05-01T12:00:00Z" (UTC, whole seconds), for explanations.
std::string utc_text(int64_t time_us);

}  // namespace ibw::rules
