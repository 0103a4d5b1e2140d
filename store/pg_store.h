// PgStore: the Store on PostgreSQL (store.backend: postgres), behind Store::open(StoreSpec).
// Internal to store/ and its tests; everything else uses the Store interface.
// Every table is keyed by fabric name, so one database holds many fabrics; a PgStore reads and
// writes only the rows of StoreSpec::fabric. Leases (Store::take_lease) and fencing
// (StoreSpec::fence) are described in store/store.h.
#pragma once

#include <memory>

#include "store/store.h"

namespace ibw::store {

// Connects to spec.url (with spec.password), migrates (under an advisory lock) unless
// read_only, and returns the store of spec.fabric. Throws StoreError naming the server.
std::unique_ptr<Store> open_postgres(const StoreSpec& spec, bool read_only);

}  // namespace ibw::store
