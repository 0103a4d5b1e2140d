// The one rule both stores fold raw samples into hourly aggregates by (store/records.h,
// SampleAggregate), and the aggregates' columns: SqliteStore::compact (sqlite_compact.cpp)
// and PgStore::compact (pg_compact.cpp) use them, so the two backends cannot drift apart.
#pragma once

#include <cstdint>
#include <optional>

#include "ingest/counters.h"
#include "store/records.h"

namespace ibw::store::sample_fold {

inline constexpr int64_t kHourUs = 3600LL * 1000000;

// Table sample_aggregates without fabric, in bind and read order.
inline constexpr const char* kAggregateColumns =
    "node_guid, port, bucket_us, sample_count, first_time_us, last_time_us, last_values, "
    "last_valid, last_saturated, last_extended, max_delta, delta_valid";

// The start of the UTC hour of a time (floored, also before 1970).
inline int64_t hour_of(int64_t t) {
  int64_t q = t / kHourUs;
  if (t % kHourUs < 0) --q;
  return q * kHourUs;
}

// A port's hour with nothing folded in yet.
inline SampleAggregate empty_hour(uint64_t node_guid, int port, int64_t bucket_us) {
  SampleAggregate a;
  a.node_guid = node_guid;
  a.port = port;
  a.bucket_us = bucket_us;
  return a;
}

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

// Folds one raw sample into its hour: the interval from the port's previous sample (when
// known), the first and last sample of the hour, the count.
inline void fold_sample(SampleAggregate& agg, const std::optional<ingest::CounterSample>& prev,
                        const ingest::CounterSample& cur) {
  if (prev) fold_delta(agg, *prev, cur);
  if (agg.sample_count == 0 || cur.time_us < agg.first_time_us) agg.first_time_us = cur.time_us;
  if (agg.sample_count == 0 || cur.time_us >= agg.last.time_us) agg.last = cur;
  ++agg.sample_count;
}

}  // namespace ibw::store::sample_fold
