// `ibwarden run`: the event watcher daemon.
//
// Each source (daemon/source.h, daemon/sources/) runs on a thread of its own: the OpenSM
// watcher (the log, the link check after link-state traps, the LFT dump), discovery, the
// MAD counter sweep or UFM Telemetry, UFM's events and event.log, the probes. They publish
// through one SourceContext: port table, rules, the store queue, evaluation; verdicts go to
// the action worker. The writer (the calling thread) owns the store and applies batches in
// order, one transaction each, from a bounded queue (producers wait when it is full: nothing
// is dropped).
// A configuration generation is built (prepare.cpp), started and shut down
// (generation.cpp) as lists of named steps (daemon/steps.h).
// SIGTERM/SIGINT stop cleanly (queued batches are written first). SIGHUP reloads the
// configuration: a new file that does not validate is rejected and the old one kept.
#pragma once

#include <string>

#include "daemon/notify.h"

namespace ibw::daemon {

// Runs until SIGTERM/SIGINT, telling systemd through `notifier`; returns the process exit
// code (2 when the initial config or store cannot be used).
int run_daemon(const std::string& config_path, ServiceNotifier& notifier);

}  // namespace ibw::daemon
