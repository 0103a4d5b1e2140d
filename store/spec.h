// The StoreSpec a configuration names (config store: section and fabric.name), with the
// PostgreSQL password read from store.password_file or store.password_env.
#pragma once

#include "config/config.h"
#include "store/store.h"

namespace ibw::store {

// Throws fabric::InputError (the config file, field store.password_file / password_env) when
// the password file cannot be read or the variable is not set.
StoreSpec store_spec(const config::Config& cfg);

}  // namespace ibw::store
