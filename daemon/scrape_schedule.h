// ScrapeSchedule: keeps the UFM inventory read (GET /resources/ports and /resources/links,
// once a minute; daemon/sources/ufm.cpp) apart from the UFM Telemetry scrapes
// (daemon/sources/ufm_telemetry.cpp). At scale both are large reads parsed on this host (at
// k=64 about 330 MB of JSON and 90 MB of CSV): run together on a small host each slows the
// other, and their memory peaks add up.
//
// The telemetry source tells it when a scrape begins and ends, and when the next one is due;
// the store writer how long the last counters batch took to write (the write of a scrape
// starts before its thread ends and goes on after it, on the main thread). Before a read the
// inventory asks whether to go now: not while a scrape runs or its batch is likely still
// being written, nor when the next scrape is due before a read as long as the last one could
// end. The inventory then postpones its read to its next poll, a bounded number of times
// (ufm.cpp): a stopped or failing telemetry source never holds it back for long, and nobody
// blocks on the other.
// Without a telemetry source nothing is ever registered and every read goes at once.
// Times are steady_us() microseconds (daemon/fabric_state.h). Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>

namespace ibw::daemon {

class ScrapeSchedule {
 public:
  // A scrape began at now_us.
  void begin(int64_t now_us);
  // The scrape that began ended at now_us; the next one is due at next_due_us.
  void end(int64_t now_us, int64_t next_due_us);
  // A counters batch took took_us to store.
  void stored(int64_t took_us);
  // Whether a read expected to take read_us (0: not known yet) may start at now_us without
  // meeting a scrape. A scrape counts from its beginning to its end plus the last store
  // write; one due counts from its due time for as long as the last one took, store included.
  bool clear_for(int64_t now_us, int64_t read_us) const;

 private:
  mutable std::mutex mutex_;
  bool running_ = false;
  int64_t began_us_ = 0;
  int64_t ended_us_ = 0;
  int64_t next_due_us_ = 0;  // 0: no scrape registered yet
  int64_t last_took_us_ = 0;
  int64_t last_store_us_ = 0;
};

}  // namespace ibw::daemon
