// The daemon's sources (daemon/source.h), one file each in daemon/sources/, made by prepare()
// for the configuration. Each file's top comment says what its source reads and reports; the
// UFM events source (ufm.h), the counter-ingest path (counter_ingest.h) and the link check
// (link_check.h) have headers of their own.
#pragma once

#include <memory>

#include "config/config.h"
#include "daemon/source.h"

namespace ibw::daemon {

// Discovery ("discovery"): re-discovers the fabric when due (discovery.cpp).
std::unique_ptr<Source> make_discovery_source();
// The OpenSM log, the link check and the LFT dump ("opensm"; opensm_watcher.cpp).
std::unique_ptr<Source> make_opensm_watcher();
// The MAD counter sweep ("counters"; counters.cpp).
std::unique_ptr<Source> make_counter_sweep(const config::Config& cfg);
// Whether cfg asks for UFM Telemetry; it then replaces the MAD sweep.
bool ufm_telemetry_configured(const config::Config& cfg);
// UFM Telemetry as the counter source ("ufm_telemetry"; ufm_telemetry.cpp).
std::unique_ptr<Source> make_ufm_telemetry(const config::Config& cfg);
// UFM's event.log ("ufm_event_log"; ufm_event_log.cpp).
std::unique_ptr<Source> make_ufm_event_log();
// Cursed-route probes ("probes"; probes.cpp).
std::unique_ptr<Source> make_probe_source();
// The subnet-manager watcher ("sm_watch"; sm_watch.cpp).
std::unique_ptr<Source> make_sm_watch();
// The running Slurm jobs ("slurm_jobs", with slurm.enabled; slurm_jobs.cpp).
std::unique_ptr<Source> make_slurm_jobs();

}  // namespace ibw::daemon
