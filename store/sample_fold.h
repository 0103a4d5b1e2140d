// The one rule both stores fold raw samples into hourly aggregates by (store.h,
// SampleAggregate): SqliteStore::compact (sqlite_compact.cpp) and PgStore::compact
// (pg_compact.cpp) call it, so the two backends cannot drift apart.
#pragma once

#include <cstdint>

#include "ingest/counters.h"
#include "store/store.h"

namespace ibw::store::sample_fold {

// Folds the interval prev -> cur into agg's max deltas: a pair with different counter widths,
// or out of time order, is skipped; per counter, a saturated earlier reading (unknown base) is
// skipped and a counter that went backwards (reset) counts its new value as the increase.
inline void fold_delta(SampleAggregate& agg, const ingest::CounterSample& prev,
                       const ingest::CounterSample& cur) {
  if (prev.extended != cur.extended || prev.time_us > cur.time_us) return;
  for (size_t i = 0; i < ingest::kCounterCount; ++i) {
    const uint32_t bit = 1u << i;
    if (!(prev.valid & bit) || !(cur.valid & bit) || (prev.saturated & bit)) continue;
    const uint64_t d = cur.value[i] >= prev.value[i] ? cur.value[i] - prev.value[i] : cur.value[i];
    if (!(agg.delta_valid & bit) || d > agg.max_delta[i]) agg.max_delta[i] = d;
    agg.delta_valid |= bit;
  }
}

}  // namespace ibw::store::sample_fold
