// The values the store reads and writes (see store/roles.h for who reads and writes which):
// events, counter samples and their hourly aggregates, per-port state, leases, the batch one
// transaction writes and its result, the queries, and the store's errors. The remediation
// records (decisions, work orders, outbox items, disabled ports) and where a store is
// (StoreSpec) are plain values of core/, named here under store:: as well.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/remedy_records.h"
#include "core/store_spec.h"
#include "ingest/counter_tracker.h"
#include "ingest/counters.h"
#include "ingest/event.h"
#include "ingest/ufm/port_state.h"

namespace ibw::store {

using core::DecisionRecord;
using core::DisabledPort;
using core::Fence;
using core::link_key;
using core::LinkEnd;
using core::OutboxItem;
using core::StoreSpec;
using core::WorkOrder;

class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A conditional write lost a race (WriteBatch::workorders_if_version): nothing was written.
class StoreConflict : public StoreError {
 public:
  using StoreError::StoreError;
};

// A write of a fenced store (StoreSpec::fence) found that its holder no longer holds the
// fabric's lease at its epoch: another instance took over. Nothing was written; the caller
// must stop acting (the daemon steps down to standby).
class StoreFenced : public StoreError {
 public:
  using StoreError::StoreError;
};

// One fabric's lease row (PostgreSQL): who watches it. Times are the database server's clock,
// UTC microseconds, so hosts with skewed clocks agree on expiry.
struct Lease {
  std::string fabric;
  std::string holder;      // instance name of the holder ("" = never taken)
  int64_t epoch = 0;       // + 1 at every change of holder; fences the holder's writes
  int64_t expires_us = 0;  // the holder must renew before this
  int64_t now_us = 0;      // the server's clock when this was read
  std::string sources;     // the holder's source health, JSON array text ("[]" unknown)
  bool taken = false;      // take_lease: true when THIS call took or renewed the lease (false:
                           // unchanged, e.g. held by another process with the same name)
};

// A fabric the store holds (Store::fabrics): its lease when HA is on.
struct FabricEntry {
  std::string name;
  std::optional<Lease> lease;  // nullopt: no lease row (SQLite, or HA off)
};

struct StoredEvent {
  int64_t id = 0;
  ingest::Event event;
};

// Latest known state of one port; what `ibwarden ports` prints.
struct PortRecord {
  uint64_t node_guid = 0;
  int port = 0;
  std::string node;  // display name
  uint16_t lid = 0;
  uint64_t peer_guid = 0;
  std::string peer_node;
  int peer_port = 0;
  std::string cable_id;
  int state = 0;                   // PortInfo.PortState (1 Down .. 4 Active), 0 unknown
  int phys_state = 0;              // PortInfo.PortPhysicalState
  int width = 0;                   // active lanes
  std::string speed;               // "HDR", ...
  ingest::CounterSample counters;  // last sample (valid bits tell what is known)
  std::array<double, ingest::kCounterCount> rates{};  // per second, over the last interval
  uint32_t rates_valid = 0;
  std::array<uint64_t, ingest::kCounterCount> deltas{};  // over the last interval
  uint32_t deltas_valid = 0;
  uint32_t deltas_at_least = 0;  // bit i: saturated, the true delta may be larger
  int64_t last_change_us = 0;    // last state change seen
  // UFM's view of the port (table ufm_ports), when UFM reported it. Read only: ports() fills
  // it from the ufm_ports row of the same node GUID and port; writes of `ports` ignore it.
  std::optional<ingest::UfmPortState> ufm;
};

// Sets the counter part of a port's record from one reading (what PortTable::apply_counters
// does, and what WriteBatch::port_counters writes to a port's row).
inline void set_counters(PortRecord& r, const ingest::CounterDelta& d) {
  r.counters = d.sample;
  r.rates = d.rate;
  r.rates_valid = d.valid | d.rate_carried;
  r.deltas = d.delta;
  r.deltas_valid = d.valid;
  r.deltas_at_least = d.at_least;
}

struct EventQuery {
  int64_t since_us = 0;    // events with time >= since
  uint64_t node_guid = 0;  // with port: only that port (0 = all)
  int port = -1;           // -1 = any
  int64_t after_id = 0;    // paging: ids > after_id
  size_t limit = 10000;    // 0 = no limit
};

// Everything one ingest step wants stored, applied atomically.
struct WriteBatch {
  std::vector<ingest::Event> events;
  std::vector<ingest::CounterSample> samples;
  std::vector<PortRecord> ports;  // upserted by (node_guid, port)
  // Counter readings: each reading's sample is stored as a counter sample (after `samples`),
  // and, after `ports`, sets the counter columns of the row of (sample.node_guid, sample.port)
  // as set_counters() sets a record, leaving the other columns alone (a port without a row
  // gets none). A counter sweep or scrape writes these instead of whole records and separate
  // samples: only the counters of every port change, and each reading is held once.
  std::vector<ingest::CounterDelta> port_counters;
  // UFM's view of ports (ingest/ufm/port_state.h): upserted, then removed, by (node_guid, port).
  std::vector<ingest::UfmPortState> ufm_ports;
  std::vector<std::pair<uint64_t, int>> ufm_ports_removed;
  std::vector<std::pair<std::string, std::string>> cursors;  // source name -> opaque cursor

  // Remediation (core/remedy_records.h).
  // Applied after the rows above, in this order. The ids of decisions and work orders given
  // here are ignored (the store assigns them).
  std::vector<DecisionRecord> decisions;  // inserted; a dedup_key already stored is skipped
  // Intents completed: by id, the status, reason and evidence of a decision stored as
  // "pending" (a decision no longer pending is left alone). Applied after the inserts.
  std::vector<DecisionRecord> decisions_completed;
  // Upserted by link_key (must not be empty: StoreError). A new link gets a row at version 1.
  // For a known link, opened_us 0 means "keep the stored one"; then a row whose content
  // (everything but id, version and updated_us) equals the stored one is left alone, and any
  // other is replaced whole with version + 1. When `outbox` is set, each insert or change
  // also adds an outbox item with the order's JSON at its new version (workorder_json(), with
  // the final id and version), in the same transaction, so a webhook can neither miss a
  // change nor see one that was rolled back. An insert with opened_us 0 gets updated_us.
  std::vector<WorkOrder> workorders;
  // Optimistic concurrency for read-modify-write (PATCH from the web while the action worker
  // reopens the same order): an update whose `version` is not the stored one throws
  // StoreConflict and the whole batch is rolled back; the caller reads again and retries.
  bool workorders_if_version = false;
  bool outbox = false;
  std::vector<DisabledPort> disabled_add;                 // upserted by (node_guid, port)
  std::vector<std::pair<uint64_t, int>> disabled_remove;  // (node_guid, port)
};

// Pointers to samples, in their order (what the stores' sample writers take).
using SampleRefs = std::vector<const ingest::CounterSample*>;
inline SampleRefs sample_refs(const std::vector<ingest::CounterSample>& samples, size_t extra = 0) {
  SampleRefs out;
  out.reserve(samples.size() + extra);
  for (const ingest::CounterSample& s : samples) out.push_back(&s);
  return out;
}

// How many counter samples a batch stores: `samples` and one per reading of `port_counters`.
inline size_t stored_sample_count(const WriteBatch& b) {
  return b.samples.size() + b.port_counters.size();
}

// Every counter sample a batch stores, in write order: `samples`, then the sample of each of
// `port_counters`.
inline SampleRefs stored_samples(const WriteBatch& b) {
  SampleRefs out = sample_refs(b.samples, b.port_counters.size());
  for (const ingest::CounterDelta& d : b.port_counters) out.push_back(&d.sample);
  return out;
}

struct WriteResult {
  size_t events_inserted = 0;          // duplicates (same dedup_key) are skipped, not counted
  std::vector<int64_t> event_ids;      // id per batch event; 0 for a skipped duplicate
  std::vector<int64_t> decision_ids;   // id per batch decision; 0 for a skipped duplicate
  std::vector<int64_t> workorder_ids;  // id per batch work order (new, changed or not)
};

struct DecisionQuery {
  int64_t since_us = 0;  // decisions with time >= since
  int64_t after_id = 0;  // paging: ids > after_id
  std::string link_key;  // only this link ("" = all)
  size_t limit = 10000;  // 0 = no limit
};

struct WorkOrderQuery {
  std::string status;    // "" = any; "active" = open, in_progress or reopened
  int64_t after_id = 0;  // paging
  size_t limit = 10000;  // 0 = no limit
};

// The webhook outbox not delivered yet (delivered_us = 0), as Store::outbox_backlog() sums it.
struct OutboxBacklog {
  int64_t pending = 0;               // undelivered items
  int64_t failing = 0;               // of those, items with at least one failed attempt
  int64_t failed_attempts = 0;       // failed attempts of the undelivered items, summed
  std::optional<OutboxItem> oldest;  // the undelivered item with the lowest id (queued first)
};

// The WAL checkpoints of a SQLite store since it was opened (store/sqlite_checkpoint.h: they
// run on a thread of their own); all zero for PostgreSQL, whose server checkpoints itself.
struct CheckpointStats {
  uint64_t asked = 0;      // checkpoints the writer's commits asked for
  uint64_t done = 0;       // run by the thread (every frame in the WAL copied or not)
  uint64_t failed = 0;     // the thread's that failed (last_error)
  uint64_t in_commit = 0;  // run in a commit: the WAL had reached its bound, or `failing`
  bool failing = false;    // the thread's last checkpoint failed: commits checkpoint in place
  std::string last_error;  // of the last failure ("" when none)
};

struct Retention {
  int64_t raw_window_us = 24LL * 3600 * 1000000;             // keep raw samples this long
  int64_t aggregate_window_us = 30LL * 24 * 3600 * 1000000;  // keep hourly aggregates this long
  int64_t event_window_us = 90LL * 24 * 3600 * 1000000;
};

// One hour of one port after compact() folded its raw samples.
// max_delta[i] is the largest increase of counter i between two consecutive samples of the
// port, the interval belonging to the hour of its later sample (so the first sample of an
// hour is compared with the last one of the hour before). A counter that went backwards
// (reset) counts its new value as the increase; a pair is skipped when the earlier reading
// was saturated (unknown base) or the two used different counter widths (extended flag).
// delta_valid bit i is set when at least one pair gave a delta for counter i.
struct SampleAggregate {
  uint64_t node_guid = 0;
  int port = 0;
  int64_t bucket_us = 0;       // start of the UTC hour
  int64_t sample_count = 0;    // raw samples folded in
  int64_t first_time_us = 0;   // first raw sample of the hour
  ingest::CounterSample last;  // last raw sample of the hour
  std::array<uint64_t, ingest::kCounterCount> max_delta{};
  uint32_t delta_valid = 0;
};

}  // namespace ibw::store
