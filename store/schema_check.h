// The refusal both backends' schema checks share (store/schema.cpp for SQLite,
// store/pg_schema.cpp for PostgreSQL), used only inside store/: a database migrated by a newer
// ibwarden is left untouched, with the same message whichever the backend.
#pragma once

#include <string>

#include "store/store.h"

namespace ibw::store {

// Throws StoreError naming `where` (the file or the masked server URL) when version > latest.
inline void check_schema_not_newer(const std::string& where, int version, int latest) {
  if (version > latest)
    throw StoreError("store " + where + ": schema version " + std::to_string(version) +
                     " is newer than this build of ibwarden knows (" + std::to_string(latest) +
                     "); upgrade ibwarden");
}

}  // namespace ibw::store
