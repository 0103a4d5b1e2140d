// Store::open(StoreSpec): the backend a configuration names.
#include "store/pg_store.h"
#include "store/sqlite_store.h"

namespace ibw::store {

std::unique_ptr<Store> Store::open(const StoreSpec& spec, bool read_only) {
  if (spec.backend == "postgres") return open_postgres(spec, read_only);
  if (spec.backend != "sqlite")
    throw StoreError("store.backend " + spec.backend + ": must be sqlite or postgres");
  SqliteStore::Options o;
  o.read_only = read_only;
  auto s = std::make_unique<SqliteStore>(spec.path, o);
  s->set_fabric(spec.fabric);
  return s;
}

}  // namespace ibw::store
