// `ibwarden run`: the event watcher daemon.
//
// Threads:
//  - watcher: tails the OpenSM log (cursor persisted with the events it produced), turns
//    lines into events, and after a link-state trap or SUBNET UP re-discovers the fabric
//    (debounced) so that link changes become link_down/link_up events naming port, peer
//    and cable;
//  - counters: every counters.interval sweeps PortCounters of every linked port over
//    pipelined MADs against the cached topology, tracks deltas/rates, emits counter events;
//  - writer (the calling thread): owns the store and applies batches in order, one
//    transaction each, from a bounded queue (producers wait when it is full: nothing is
//    dropped).
// SIGTERM/SIGINT stop cleanly (queued batches are written first). SIGHUP reloads the
// configuration: a new file that does not validate is rejected and the old one kept.
#pragma once

#include <string>

namespace ibw::daemon {

// Runs until SIGTERM/SIGINT; returns the process exit code (2 when the initial config or
// store cannot be used).
int run_daemon(const std::string& config_path);

}  // namespace ibw::daemon
