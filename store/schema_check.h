// What both backends' schemas share (store/schema.cpp for SQLite, store/pg_schema.cpp for
// PostgreSQL), used only inside store/: the shape of a numbered migration, and the refusals
// (a database migrated by a newer ibwarden is left untouched, a read-only open of an older
// one is refused) with the same messages whichever the backend.
#pragma once

#include <cstddef>
#include <string>

#include "store/records.h"

namespace ibw::store {

// One schema change: its SQL, then an optional data conversion in the same transaction.
template <class Db>
struct Migration {
  int version;
  const char* description;
  const char* sql;
  void (*convert)(Db&) = nullptr;
};

// The version of the last of a backend's migrations (they are in version order).
template <class Db, size_t N>
int last_version(const Migration<Db> (&migrations)[N]) {
  return migrations[N - 1].version;
}

// Throws StoreError naming `where` (the file or the masked server URL) when version > latest.
inline void check_schema_not_newer(const std::string& where, int version, int latest) {
  if (version > latest)
    throw StoreError("store " + where + ": schema version " + std::to_string(version) +
                     " is newer than this build of ibwarden knows (" + std::to_string(latest) +
                     "); upgrade ibwarden");
}

// Throws StoreError naming `where` when a read-only open finds version < latest.
inline void check_schema_not_older(const std::string& where, int version, int latest) {
  if (version < latest)
    throw StoreError("store " + where + ": schema version " + std::to_string(version) +
                     " is older than this build's " + std::to_string(latest) +
                     "; open it read-write once (start the daemon) to migrate it");
}

}  // namespace ibw::store
