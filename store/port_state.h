// The counter state of ports (PortRecord: last sample, rates, deltas and their masks), kept
// packed per partition of ports in table port_state (SQLite schema 6, PostgreSQL schema 4),
// used only inside store/. The identity and topology columns of a port stay a row of `ports`.
//
// Why: a telemetry scrape of a large fabric changes the counters of every port; updating
// 393,216 rows (JSON text on SQLite, a bytea each on PostgreSQL) took 2.2-3.3 s per scrape.
// Now a write rewrites one blob per partition touched (sample_tables::part_of, 256
// partitions, about 1,500 ports each at k=64), merging the new states into the stored blob
// byte-wise (no decoding of the untouched ports); partitions without a changed port are not
// touched.
//
// Blob of one partition: a version byte, then one entry per port sorted by (GUID, port):
// GUID (8 bytes, little-endian), zigzag varint port, varint length, then the port's state as
// sample_codec::append_port_state() writes it. A port that has no `ports` row may have an
// entry (a WriteBatch::port_counters reading of it): readers only look up ports they have a
// row of, and a row written later writes its state with it, so nobody sees the entry.
// Every decoder throws StoreError naming the table and partition of a malformed blob.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "store/store.h"

namespace ibw::store::sqlite_detail {
class Db;
}
namespace ibw::store::pg_detail {
class Db;
}

namespace ibw::store::port_state {

inline constexpr int kParts = 256;
// Partition of a port (sample_tables::part_of: part of the stored format).
int part_of(uint64_t node_guid, int port);

// The new states of one write, grouped by partition. Added in batch order: the last state
// added for a port wins (ports first, then port_counters, as WriteBatch says).
class Updates {
 public:
  void add(const PortRecord& p);            // the counter part of a whole record
  void add(const ingest::CounterDelta& d);  // what set_counters(d) gives a record
  // Room for n states (a scrape adds one per port: no regrowing of a 50 MB buffer).
  void reserve(size_t n);
  bool empty() const { return count_ == 0; }
  // At most what merging every new state adds to the stored blobs (keys, lengths, states).
  size_t bytes() const;
  // Partitions with at least one new state, ascending.
  std::vector<int> parts() const;
  // The blob of `part` with this write's states merged into `stored` (the stored blob, "" for
  // none). Throws StoreError naming the partition when `stored` is malformed.
  std::string merge(int part, std::string_view stored);
  // merge(), appended to `out` (PostgreSQL writes it straight into its array parameter).
  void merge_into(int part, std::string_view stored, std::string& out);

 private:
  struct Entry {
    uint64_t guid;
    int port;
    uint32_t seq;  // order added
    uint32_t off;  // state bytes in arena_
    uint32_t len;
  };
  void push(uint64_t guid, int port, size_t off);
  std::vector<Entry> parts_[kParts];
  std::string arena_;
  PortRecord scratch_;
  uint32_t count_ = 0;
};

// Calls found(node_guid, port, state bytes) for every entry of a partition's blob, in key order.
void for_each(int part, std::string_view blob,
              const std::function<void(uint64_t, int, std::string_view)>& found);

// Sets the counter fields of each record from the stored blobs, read by blob_of(parts needed);
// a record whose port has no entry keeps all-zero counter fields (as a row without a reading).
// blob_of calls back (part, blob) for each stored partition of those asked.
using BlobSource = std::function<void(const std::vector<int>& parts,
                                      const std::function<void(int, std::string_view)>& blob)>;
void fill(std::vector<PortRecord>& records, const BlobSource& blob_of);

// SQLite (table port_state (part, data)): write the updates, read into records.
void write(sqlite_detail::Db& db, Updates& u);
void fill(sqlite_detail::Db& db, std::vector<PortRecord>& records);
// SQLite migration 6: the counter columns of every `ports` row (JSON text) become entries of
// port_state, then the columns are dropped.
void convert_legacy(sqlite_detail::Db& db);

// PostgreSQL (table port_state (fabric, part, data)): the same for one fabric. write() locks
// the partitions it rewrites (rows created first), so two writers of one fabric never lose
// each other's states.
void write(pg_detail::Db& db, const std::string& fabric, Updates& u);
void fill(pg_detail::Db& db, const std::string& fabric, std::vector<PortRecord>& records);

}  // namespace ibw::store::port_state
