// Data conversions of the PostgreSQL store's schema migrations (store/pg_schema.cpp), run in
// the migration's transaction after its SQL, used only inside store/.
#pragma once

#include "store/pg_db.h"

namespace ibw::store::pg_migrate {

// Version 2: the rows of table `samples` become sample_chunks (pg_samples::convert_legacy);
// each port's counter columns become its `counters` state (sample_codec::encode_port_state);
// then the old table and columns are dropped.
void to_v2(pg_detail::Db& db);

// Version 4: each port's `counters` state (every fabric) becomes an entry of its partition in
// port_state (store/port_state.h); then the column is dropped.
void to_v4(pg_detail::Db& db);

}  // namespace ibw::store::pg_migrate
