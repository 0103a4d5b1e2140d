#include "store/pg_migrate.h"

#include "store/pg_binary.h"
#include "store/pg_fields.h"
#include "store/pg_rows.h"
#include "store/pg_samples.h"
#include "store/port_state.h"
#include "store/sample_codec.h"

namespace ibw::store::pg_migrate {

void to_v2(pg_detail::Db& db) {
  using pg_detail::ArrayBinary;
  using pg_detail::ElemType;
  pg_samples::convert_legacy(db);
  const pg_detail::Result r = db.exec(
      "SELECT fabric, node_guid, port, counters_time_us, counters_node_guid, counters_port, "
      "counter_values, counters_valid, counters_saturated, counters_extended, rates, rates_valid, "
      "deltas, deltas_valid, deltas_at_least FROM ports");
  ArrayBinary fabric(ElemType::text), guid(ElemType::int8), port(ElemType::int4),
      state(ElemType::bytea);
  for (int i = 0; i < r.rows(); ++i) {
    PortRecord p;
    row_read::port_counters(pg_detail::PgRow{r, i}, 3, p);
    fabric.bytes(r.text(i, 0));
    guid.i64(r.i64(i, 1));
    port.i32(r.i32(i, 2));
    state.bytes(sample_codec::encode_port_state(p));
  }
  if (r.rows() > 0)
    db.exec(
        "UPDATE ports p SET counters = t.c FROM unnest($1::text[], $2::bigint[], "
        "$3::integer[], $4::bytea[]) AS t(f, g, n, c) WHERE p.fabric = t.f AND p.node_guid = t.g "
        "AND p.port = t.n",
        pg_detail::Params()
            .binary(fabric.take())
            .binary(guid.take())
            .binary(port.take())
            .binary(state.take()));
  db.exec(
      "DROP TABLE samples; ALTER TABLE ports DROP COLUMN counters_time_us, DROP COLUMN "
      "counters_node_guid, DROP COLUMN counters_port, DROP COLUMN counter_values, DROP COLUMN "
      "counters_valid, DROP COLUMN counters_saturated, DROP COLUMN counters_extended, DROP "
      "COLUMN rates, DROP COLUMN rates_valid, DROP COLUMN deltas, DROP COLUMN deltas_valid, DROP "
      "COLUMN deltas_at_least, ALTER COLUMN counters SET NOT NULL");
}

void to_v4(pg_detail::Db& db) {
  const pg_detail::Result r =
      db.exec("SELECT fabric, node_guid, port, counters FROM ports ORDER BY fabric");
  for (int i = 0; i < r.rows();) {
    const std::string fabric = r.str(i, 0);
    port_state::Updates u;
    for (; i < r.rows() && r.text(i, 0) == fabric; ++i) {
      PortRecord p;
      p.node_guid = r.u64(i, 1);
      p.port = r.i32(i, 2);
      try {
        sample_codec::decode_port_state(r.bytea(i, 3), p);
      } catch (const StoreError& e) {
        throw StoreError("ports.counters of fabric " + fabric + " port " +
                         std::to_string(p.node_guid) + ":" + std::to_string(p.port) + ": " +
                         e.what());
      }
      u.add(p);
    }
    port_state::write(db, fabric, u);
  }
  db.exec("ALTER TABLE ports DROP COLUMN counters");
}

}  // namespace ibw::store::pg_migrate
