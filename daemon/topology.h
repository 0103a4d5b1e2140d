// The daemon's cached view of the fabric: the discovered topology with names applied, the
// correlator built from it and the plan, and the list of ports whose counters are polled.
// Immutable once built; threads share it through std::shared_ptr<const Topology> and a new
// one replaces it after each re-discovery.
#pragma once

#include <memory>
#include <vector>

#include "config/config.h"
#include "fabric/link_recovery.h"
#include "fabric/model.h"
#include "fabric/node_name_map.h"
#include "fabric/plan.h"
#include "ingest/correlator.h"
#include "ingest/counter_poller.h"
#include "rules/history.h"

namespace ibw::daemon {

struct Topology {
  fabric::Fabric fabric;
  std::unique_ptr<ingest::Correlator> correlator;
  std::vector<ingest::PollTarget> targets;  // every port with a peer
  std::vector<rules::LinkInfo> links;       // the same ports, as rule windows need them
  int64_t discovered_us = 0;
};

// Discovers live (SMPs, under the process's MAD locks `mad`: fabric/smp_port.h) or loads the
// configured ibnetdiscover file. Throws on failure.
// `isolated` runs a live discovery in a child process (`ibwarden discover-cache`, killed
// after `timeout`) and loads the cache it writes: a long-running process must not keep what
// libibnetdisc leaves behind in it (under umad2sim every discovery leaks a MAD agent slot
// until none is left), and a hung discovery cannot hang the daemon.
// A live discovery then re-asks every Active port it left without a peer and cross-checks
// OpenSM's opensm-subnet.lst in opensm.dump_dir (fabric/link_recovery.h); what that found is
// in *recovery. With `previous` (the last discovery), a live discovery also keeps the links it
// still lost while both ports report them up (fabric/lost_links.h), listed in *kept.
std::shared_ptr<const Topology> discover_topology(fabric::MadLocks& mad, const config::Config& cfg,
                                                  const fabric::Plan* plan,
                                                  const fabric::NodeNameMap* names, int64_t now_us,
                                                  bool isolated = false,
                                                  const fabric::Fabric* previous = nullptr,
                                                  std::vector<std::string>* kept = nullptr,
                                                  fabric::RecoveryReport* recovery = nullptr);
// The fabric alone, names applied (no correlator, targets or links: for commands that only
// need the model, like localize and route on a 65k-endpoint fabric); recovered as above.
fabric::Fabric discover_fabric(fabric::MadLocks& mad, const config::Config& cfg,
                               const fabric::NodeNameMap* names, bool isolated = false,
                               fabric::RecoveryReport* recovery = nullptr);
// `ibwarden discover-cache --output FILE [--ca CA] [--ca-port N]`: the child's side.
int cmd_discover_cache(int argc, char** argv, int first);
// Builds the derived parts (correlator, targets) for an already loaded fabric.
std::shared_ptr<const Topology> make_topology(fabric::Fabric fabric, const fabric::Plan* plan,
                                              int64_t now_us);

}  // namespace ibw::daemon
