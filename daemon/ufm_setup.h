// UFM wiring from the configuration's ufm: section, shared by the daemon's UFM source
// (daemon/sources/ufm.h), its action worker and the manual commands (actions.via: ufm):
// credentials, and client options scaled to the poll interval.
//
// Credentials are read when called (the daemon calls it at startup, so a missing one stops
// it there): v3 from token_file (trailing whitespace trimmed); otherwise (v1, v2, and v3
// without token_file, whose client then fetches an access token with them) from the
// environment variables named by user_env and password_env. Errors name the key and the variable or
// file, never the value; the values go to the UFM client only (never logged or stored).
#pragma once

#include <string>

#include "config/config.h"
#include "ingest/ufm/client.h"
#include "store/store.h"

namespace ibw::daemon {

// Throws std::runtime_error naming ufm.<key> and the variable or file when a credential is
// missing or empty, or when ca_file cannot be read.
ingest::UfmCredentials ufm_credentials(const config::UfmSection& ufm);

// The REST client for events and actions. Scaled to poll_interval P: whole request
// clamp(3P, 5 s, 30 s); retries after clamp(P/10, 20 ms, 500 ms) doubling up to
// clamp(P, 100 ms, 8 s), 3 attempts; breaker opens after 5 failed calls for clamp(3P, 1 s,
// 5 min). TLS per verify_tls and ca_file.
ingest::UfmClientOptions ufm_client_options(const config::UfmSection& ufm,
                                            ingest::UfmCredentials credentials);
// A UFM Telemetry endpoint (the whole URL; api plain, no credentials, same TLS settings),
// timeouts scaled to counters.interval the same way.
ingest::UfmClientOptions ufm_telemetry_options(const config::UfmSection& ufm,
                                               const std::string& url, int64_t interval_us);

// The daemon started without a ufm: section: UFM's stored port view (table ufm_ports, the
// "ufm" object of `ibwarden ports`) would otherwise stay frozen at its last poll and be shown
// as current. Removes it; returns how many rows went.
size_t drop_ufm_port_view(store::Store& store);

}  // namespace ibw::daemon
