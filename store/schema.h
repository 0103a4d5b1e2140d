// The store's schema as numbered migrations, and the checks made when a file is opened.
//
// PRAGMA user_version holds the number of the last migration applied; PRAGMA application_id
// marks the file as an ibwarden store. Migration N takes a version N-1 database to version N;
// append new ones to kMigrations in schema.cpp (never edit one that has shipped).
// A read-write open applies the missing migrations in one IMMEDIATE transaction (so two
// processes opening a new file at once cannot both migrate it). A read-only open never
// migrates: it requires the file to be at exactly kSchemaVersion.
// Both refuse a version newer than kSchemaVersion, and a file that is some other SQLite
// database.
#pragma once

#include <cstdint>

#include "store/sqlite_db.h"

namespace ibw::store::schema {

// "IBWD"
inline constexpr int32_t kApplicationId = 0x49425744;

// Number of the last migration this build knows.
int latest_version();

// Brings a read-write connection up to latest_version(). Throws StoreError.
void migrate(sqlite_detail::Db& db);

// Checks a read-only connection is at latest_version(). Throws StoreError.
void check_read_only(sqlite_detail::Db& db);

}  // namespace ibw::store::schema
