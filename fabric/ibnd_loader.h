// Loaders (b) and (c), both built on rdma-core's libibnetdisc:
//  - live discovery over SMPs from a local CA port (works under umad2sim/ibsim);
//  - ibnetdiscover cache files written by `ibnetdiscover --cache FILE`.
// Both yield full PortInfo (state, active/enabled/supported width and speed), unlike text.
#pragma once

#include <string>

#include "fabric/model.h"
#include "fabric/smp_port.h"

namespace ibw::fabric {

struct LiveDiscoveryOptions {
  std::string ca;           // umad CA name; empty = first CA
  int ca_port = 0;          // 0 = first active port
  unsigned timeout_ms = 0;  // 0 = library default
  unsigned retries = 0;     // 0 = library default
};

// Discovers the subnet reachable from the local port, under locks.smp (fabric/smp_port.h).
// Throws std::runtime_error when the local port cannot be opened or discovery fails.
Fabric discover_live(MadLocks& locks, const LiveDiscoveryOptions& options);
// The same discovery, written as an ibnetdiscover cache file (ibnd_cache_fabric; the file
// must not exist yet), for a discovery run in a child process (daemon/topology.h).
void discover_live_to_cache(MadLocks& locks, const LiveDiscoveryOptions& options,
                            const std::string& cache_path);

// Loads an ibnetdiscover cache file; throws InputError naming the file on failure.
Fabric load_ibnd_cache(const std::string& path);

}  // namespace ibw::fabric
