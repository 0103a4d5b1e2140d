// The store a configuration names (core::StoreSpec from the store: section and fabric.name),
// with the PostgreSQL password read from store.password_file or store.password_env. Here, in
// config/, because it reads config::Config; store/ only opens the spec it is given.
#pragma once

#include "config/config.h"
#include "core/store_spec.h"

namespace ibw::config {

// Throws fabric::InputError (the config file, field store.password_file / password_env) when
// the password file cannot be read or the variable is not set.
core::StoreSpec store_spec(const Config& cfg);

}  // namespace ibw::config
