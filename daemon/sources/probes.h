// ProbeSource: cursed routes, started when probes.interval or probes.spool_dir is set.
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
#pragma once

#include "daemon/source.h"

namespace ibw::daemon {

class ProbeSource : public Source {
 public:
  std::string name() const override { return "probes"; }
  void run(SourceContext& ctx) override;
};

}  // namespace ibw::daemon
