// PgStore: connection, schema, fencing, leases and the list of fabrics.
#include "store/pg_store.h"

#include "store/pg_schema.h"

namespace ibw::store {

namespace pg_store_detail {

// The server's clock in UTC microseconds: every lease time is on it, so hosts with skewed
// clocks agree on expiry.
constexpr const char* kNow = "(extract(epoch from clock_timestamp()) * 1e6)::bigint";

Lease read_lease(const pg_detail::Result& r, int row) {
  Lease l;
  l.fabric = r.str(row, 0);
  l.holder = r.str(row, 1);
  l.epoch = r.i64(row, 2);
  l.expires_us = r.i64(row, 3);
  l.sources = r.str(row, 4);
  l.now_us = r.i64(row, 5);
  return l;
}

}  // namespace pg_store_detail

using pg_store_detail::kNow;

std::unique_ptr<Store> open_postgres(const StoreSpec& spec, bool read_only) {
  return std::make_unique<PgStore>(spec, read_only);
}

PgStore::PgStore(const StoreSpec& spec, bool read_only)
    : db_(spec.url, spec.password),
      fabric_(spec.fabric),
      fence_(spec.fence),
      read_only_(read_only) {
  if (fabric_.empty()) throw StoreError("store " + db_.server() + ": empty fabric name");
  db_.set_session("SET bytea_output = 'hex'");  // what Result::bytea reads
  if (spec.lock_timeout_ms > 0)
    db_.set_session("SET lock_timeout = " + std::to_string(spec.lock_timeout_ms));
  if (spec.idle_tx_timeout_ms > 0)
    db_.set_session("SET idle_in_transaction_session_timeout = " +
                    std::to_string(spec.idle_tx_timeout_ms));
  if (read_only_) {
    pg_schema::check_read_only(db_);
    db_.exec("SET default_transaction_read_only = on");
    return;
  }
  pg_schema::migrate(db_);
}

PgStore::~PgStore() = default;

int PgStore::schema_version() {
  return pg_schema::version(db_);
}

void PgStore::check_writable() const {
  if (read_only_) throw StoreError("store " + db_.server() + ": opened read-only, cannot write");
}

void PgStore::check_fence() {
  if (!fence_) return;
  const pg_detail::Result r =
      db_.exec("SELECT 1 FROM leases WHERE fabric = $1 AND holder = $2 AND epoch = $3 FOR SHARE",
               pg_detail::Params().text(fabric_).text(fence_->holder).i64(fence_->epoch));
  if (r.rows() == 0)
    throw StoreFenced("store " + db_.server() + ": fabric " + fabric_ + ": " + fence_->holder +
                      " no longer holds the lease at epoch " + std::to_string(fence_->epoch) +
                      "; another instance took over");
}

Lease PgStore::take_lease(const std::string& holder, int64_t epoch, int64_t lease_us,
                          const std::string& sources) {
  check_writable();
  if (holder.empty()) throw StoreError("store " + db_.server() + ": take_lease: empty holder");
  pg_detail::Transaction tx(db_);
  // A row at epoch 0 with no holder stands for "never taken"; concurrent takers queue on its
  // row lock below (the losing INSERT waits for the winner's commit, then does nothing).
  db_.exec(
      "INSERT INTO leases (fabric, holder, epoch, expires_us, sources, holder_since_us) "
      "VALUES ($1, '', 0, 0, '[]', 0) ON CONFLICT (fabric) DO NOTHING",
      pg_detail::Params().text(fabric_));
  const pg_detail::Result cur =
      db_.exec(std::string("SELECT fabric, holder, epoch, expires_us, sources, ") + kNow +
                   " FROM leases WHERE fabric = $1 FOR UPDATE",
               pg_detail::Params().text(fabric_));
  const Lease l = pg_store_detail::read_lease(cur, 0);
  const bool expired = l.holder.empty() || l.expires_us <= l.now_us;
  if (expired) {
    db_.exec(std::string("UPDATE leases SET holder = $2, epoch = epoch + 1, expires_us = ") + kNow +
                 " + $3, sources = $4, holder_since_us = " + kNow + " WHERE fabric = $1",
             pg_detail::Params().text(fabric_).text(holder).i64(lease_us).text(sources));
  } else if (l.holder == holder && l.epoch == epoch) {
    db_.exec(std::string("UPDATE leases SET expires_us = ") + kNow +
                 " + $2, sources = $3 WHERE fabric = $1",
             pg_detail::Params().text(fabric_).i64(lease_us).text(sources));
  }
  const pg_detail::Result after =
      db_.exec(std::string("SELECT fabric, holder, epoch, expires_us, sources, ") + kNow +
                   " FROM leases WHERE fabric = $1",
               pg_detail::Params().text(fabric_));
  tx.commit();
  Lease out = pg_store_detail::read_lease(after, 0);
  out.taken = expired || (l.holder == holder && l.epoch == epoch);
  return out;
}

bool PgStore::release_lease(const std::string& holder, int64_t epoch) {
  check_writable();
  const pg_detail::Result r =
      db_.exec(std::string("UPDATE leases SET expires_us = ") + kNow +
                   " WHERE fabric = $1 AND holder = $2 AND epoch = $3 AND expires_us > " + kNow,
               pg_detail::Params().text(fabric_).text(holder).i64(epoch));
  return r.affected() > 0;
}

std::optional<Lease> PgStore::lease() {
  const pg_detail::Result r =
      db_.exec(std::string("SELECT fabric, holder, epoch, expires_us, sources, ") + kNow +
                   " FROM leases WHERE fabric = $1 AND epoch > 0",
               pg_detail::Params().text(fabric_));
  if (r.rows() == 0) return std::nullopt;
  return pg_store_detail::read_lease(r, 0);
}

std::vector<FabricEntry> PgStore::fabrics() {
  // Distinct fabrics of the big tables by a loose index scan (one probe per fabric), not a
  // scan of every row.
  static const std::string sql = [] {
    auto loose = [](const std::string& t) {
      return "f_" + t + " AS (SELECT min(fabric) AS f FROM " + t +
             " UNION ALL SELECT (SELECT min(fabric) FROM " + t + " WHERE fabric > f_" + t +
             ".f) FROM f_" + t + " WHERE f_" + t + ".f IS NOT NULL)";
    };
    return "WITH RECURSIVE " + loose("events") + ", " + loose("ports") + ", " + loose("cursors") +
           ", names AS (SELECT f FROM f_events UNION SELECT f FROM f_ports UNION SELECT f FROM "
           "f_cursors UNION SELECT fabric FROM leases WHERE epoch > 0) "
           "SELECT n.f, l.holder, l.epoch, l.expires_us, l.sources, " +
           kNow +
           " FROM names n LEFT JOIN leases l ON l.fabric = n.f AND l.epoch > 0 "
           "WHERE n.f IS NOT NULL ORDER BY n.f";
  }();
  const pg_detail::Result r = db_.exec(sql, pg_detail::Params());
  std::vector<FabricEntry> out;
  for (int i = 0; i < r.rows(); ++i) {
    FabricEntry e;
    e.name = r.str(i, 0);
    if (!r.is_null(i, 1)) {
      e.lease = pg_store_detail::read_lease(r, i);
      e.lease->fabric = e.name;
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace ibw::store
