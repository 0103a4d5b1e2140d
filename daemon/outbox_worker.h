// The daemon's webhook thread: delivers the work-order outbox kept in the store
// (core/remedy_records.h) to workorders.webhook through actions::OutboxSender, with its own store
// connection, until `running` turns false. Failures are logged when they start and end (not
// on every retry); the secret is never logged.
#pragma once

#include <atomic>
#include <string>

#include "config/config.h"
#include "store/store.h"

namespace ibw::daemon {

// spec: the store to deliver from (the daemon's: fenced when it holds a lease, so a holder
// that lost its lease stops marking deliveries).
void run_outbox(const config::Config& cfg, const store::StoreSpec& spec, const std::string& secret,
                const std::atomic<bool>& running);

}  // namespace ibw::daemon
