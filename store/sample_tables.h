// The tables holding raw counter samples (schema migration 4), used only inside store/.
//
// Storing every reading as a row cannot hold a day of a large fabric (200,000 ports read every
// minute are 288 million samples), so samples live in two tiers of packed blobs
// (store/sample_codec.h):
// - sample_stage: what write() appends. One row per write and partition of ports (256
//   partitions by a hash of GUID and port), holding full values. Cheap to write, and a reader
//   of one port decodes only its partition's rows.
// - sample_runs / sample_blocks: what compact() makes of the whole stage (transpose()): one
//   run, and in it one block per port with that port's samples of the run, delta-encoded
//   column by column. Keyed (run, partition, GUID, port) so a run is written in key order,
//   and one port's history is a point lookup per run.
// Folding into hourly aggregates takes the samples older than the cutoff out of the oldest
// runs (take_older()); a run straddling the cutoff keeps its newer samples in a new run.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ingest/counters.h"
#include "store/records.h"
#include "store/sqlite_db.h"

namespace ibw::store::sample_tables {

// Partition of a port, 0..255 (part of the on-disk format: never change it).
int part_of(uint64_t node_guid, int port);

// Appends samples (store::stored_samples() of a batch) to the stage, calling row_written()
// after each sample is taken in.
void stage(sqlite_detail::Db& db, const SampleRefs& samples,
           const std::function<void()>& row_written);

// Samples of one port with time >= since_us, oldest first (equal times in write order).
std::vector<ingest::CounterSample> read(sqlite_detail::Db& db, uint64_t node_guid, int port,
                                        int64_t since_us);

// Moves the whole stage into a new run. Returns the samples moved.
size_t transpose(sqlite_detail::Db& db);

// Removes every sample with time < cutoff_us from the runs, handing each to fold (per port in
// time order). Returns the samples removed.
size_t take_older(sqlite_detail::Db& db, int64_t cutoff_us,
                  const std::function<void(const ingest::CounterSample&)>& fold);

// Migration 4: moves the rows of the old table `samples` into the stage.
void convert_legacy(sqlite_detail::Db& db);

}  // namespace ibw::store::sample_tables
