// Raw counter samples in the PostgreSQL store (schema migration 2), used only inside store/.
//
// A row per reading cannot keep up with a large fabric's sweeps (20,000 index entries and tuple
// headers per sweep of 20,000 ports), so, like SQLite's stage (store/sample_tables.h), samples
// are stored as packed chunks (store/sample_codec.h): table sample_chunks holds one row per
// write and partition of ports (kParts partitions by a hash of GUID and port), with the time
// range of its samples. Reading one port decodes only its partition's chunks in the time range
// asked; compaction takes the samples older than its cutoff out of the oldest chunks.
// Order: chunk ids grow with writes and a chunk keeps its batch order, so among samples of
// equal time, (chunk id, position) is write order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ingest/counters.h"
#include "store/pg_db.h"
#include "store/records.h"

namespace ibw::store::pg_samples {

// Partitions per fabric: a reader of one port decodes about 1/kParts of each sweep.
inline constexpr int kParts = 1024;
// Partition of a port, 0..kParts-1 (part of the stored format: never change it).
int part_of(uint64_t node_guid, int port);

// Appends samples (store::stored_samples() of a batch, in batch order) as one chunk per
// partition they touch. The INSERT is sent (pg_detail::Db::send) and left in flight: the
// caller's next statement, or Db::finish(), waits for it. Inside a transaction only.
void send(pg_detail::Db& db, const std::string& fabric, const SampleRefs& samples);

// Samples of one port with time >= since_us, oldest first (equal times in write order).
std::vector<ingest::CounterSample> read(pg_detail::Db& db, const std::string& fabric,
                                        uint64_t node_guid, int port, int64_t since_us);

// Removes every sample with time < cutoff_us, partition by partition, handing each partition's
// removed samples to fold sorted by (GUID, port, time), equal times in write order. Chunks
// straddling the cutoff keep their newer samples (same id). Returns the samples removed.
size_t take_older(pg_detail::Db& db, const std::string& fabric, int64_t cutoff_us,
                  const std::function<void(const std::vector<ingest::CounterSample>&)>& fold);

// Migration 2: the rows of the version-1 table `samples` (every fabric) become chunks.
void convert_legacy(pg_detail::Db& db);

}  // namespace ibw::store::pg_samples
