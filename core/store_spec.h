// Where a store is and whose rows it holds (StoreSpec), and the lease fence a leader's writes
// carry (Fence): plain values that config/ fills from the daemon's configuration
// (config/store_spec.h) and store/ opens (store/store.h, Store::open), so store/ needs no
// config and config needs no store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ibw::core {

// The lease a leader holds (see store::LeaseStore::take_lease). Its writes carry it: every
// write transaction of a store opened with a fence first checks that the fabric's lease row
// still names this holder at this epoch, under a row lock, and throws store::StoreFenced
// otherwise.
struct Fence {
  std::string holder;
  int64_t epoch = 0;
};

// Where the store is (config store: section) and which fabric's rows it reads and writes.
struct StoreSpec {
  std::string backend = "sqlite";  // "sqlite" | "postgres"
  std::string path;                // sqlite: the database file
  // postgres: a libpq connection string (URI "postgresql://user@host:port/db?host=/socket/dir"
  // or "key=value ..."); the password is never in it (see `password`).
  std::string url;
  std::string password;  // postgres: from store.password_file / password_env; "" = none
  // fabric.name. In PostgreSQL every table is keyed by it, so one database holds many
  // fabrics and this store sees only this one's rows. A SQLite file holds one fabric.
  std::string fabric = "default";
  // When set (the lease holder's connections), writes are fenced (see Fence). Postgres only.
  std::optional<Fence> fence;
  // postgres: SET lock_timeout (a lease request must not wait behind a paused holder's row
  // lock) and idle_in_transaction_session_timeout (the server ends the session of a holder
  // paused inside a transaction, releasing its locks); 0 = the server's defaults.
  int64_t lock_timeout_ms = 0;
  int64_t idle_tx_timeout_ms = 0;
};

}  // namespace ibw::core
