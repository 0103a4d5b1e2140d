// cursed_path rules: verdicts about links the localizer (rules/localize.h) names as the cause
// of lost or slow probes, not about port windows. The daemon's probe runner localizes over its
// window of rounds, sends guided DR probes pinned to each member of every suspect group and
// reads the receiving ports' counters; each member becomes one PathFinding here.
//
// A rule fires on a finding when its loss >= min_loss and bad_observations >=
// min_observations. It is confirmed (and so acted on) when:
//  - its confirm requirement holds: dr_probe = the guided DR probes through the link lost at
//    least one probe and at least min_loss of them; counters = PortRcvErrors or
//    SymbolErrorCounter rose on the receiving port; both = the two; none = nothing more;
//  - and the link is pinned: end-to-end data alone cannot split a suspect group (e.g. one of a
//    leaf's 16 uplinks under adaptive routing), so a member of a group of several links is
//    confirmed only by its own DR probes, never picked arbitrarily.
// Pure: no I/O, no clock.
#pragma once

#include <cstdint>
#include <vector>

#include "rules/evaluate.h"
#include "rules/rules.h"

namespace ibw::rules {

struct PathFinding {
  uint64_t node_guid = 0;  // the receiving port of the suspect link
  int port = 0;
  int64_t last_time_us = 0;  // newest bad observation behind it
  PathEvidence evidence;
};

// One verdict per enabled cursed_path rule and firing finding, in input order.
std::vector<Verdict> evaluate_cursed_paths(const RuleSet& rules,
                                           const std::vector<PathFinding>& findings,
                                           int64_t now_us);

// True when the guided DR probes of a finding show the loss (the dr_probe confirmation).
bool dr_confirms(const PathEvidence& e, double min_loss);

}  // namespace ibw::rules
