// Placeholder until the PostgreSQL backend lands: a clear error, never a silent SQLite.
#include "store/pg_store.h"

namespace ibw::store {

std::unique_ptr<Store> open_postgres(const StoreSpec& spec, bool /*read_only*/) {
  throw StoreError("store " + spec.url + ": the postgres backend is not built in");
}

}  // namespace ibw::store
