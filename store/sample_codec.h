// Binary encodings of counter samples, used only inside store/ (sqlite_samples.cpp).
//
// Two forms, both lossless (every field of ingest::CounterSample comes back bit for bit):
// - A stage chunk: any samples of any ports, in write order, each with its full values
//   (varints; only counters that are not 0 are written). What write() appends, cheap to make.
// - A block: the samples of one port in time order, stored column by column: per counter the
//   first value, then the differences between consecutive samples (or the differences of
//   those differences, whichever is narrower), bit-packed at the width of the widest. Error
//   counters that stay put cost a bit each, the traffic counters what their changes need.
//   Times are either an index range into a shared list of times (the run's, see
//   encode_times()), when the port was read at exactly those times, or packed the same way.
// Every decoder throws StoreError on a truncated or malformed blob.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/counters.h"
#include "store/store.h"

namespace ibw::store::sample_codec {

std::string encode_chunk(const std::vector<const ingest::CounterSample*>& samples);
// Appends the chunk's samples to out, in the order they were encoded.
void decode_chunk(std::string_view blob, std::vector<ingest::CounterSample>& out);

// A sorted list of distinct times shared by the blocks of one run ("" for none).
std::string encode_times(const std::vector<int64_t>& times);
std::vector<int64_t> decode_times(std::string_view blob);

// samples: one port, oldest first; times: the run's shared times (may be empty).
std::string encode_block(const ingest::CounterSample* samples, size_t n,
                         const std::vector<int64_t>& times);
// Appends the block's samples (node_guid and port set from the arguments) to out.
void decode_block(std::string_view blob, uint64_t node_guid, int port,
                  const std::vector<int64_t>& times, std::vector<ingest::CounterSample>& out);

// A port's counter state (PortRecord: counters, rates, deltas and their masks; the other
// fields are untouched), one entry of a partition of table port_state (store/port_state.h):
// the reading as in a chunk, the masks and non-zero deltas as varints, a non-zero rate as its
// delta over one of two intervals kept once when that gives its exact bits (a tracker's rate),
// else as its IEEE bits; entries of the older format (every rate's bits) still decode.
// append_port_state() appends the same bytes to out.
std::string encode_port_state(const PortRecord& p);
void append_port_state(std::string& out, const PortRecord& p);
void decode_port_state(std::string_view blob, PortRecord& p);

}  // namespace ibw::store::sample_codec
