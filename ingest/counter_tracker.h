// CounterTracker: pure bookkeeping over successive CounterSamples of each port. Computes
// deltas and per-second rates and turns what it sees into events:
//  - a counter that went down was reset by someone else (perfquery -R, a reboot): the new
//    value counts from zero, delta = new value, and a counter_reset event is emitted;
//  - a classic PortCounters field at its maximum is saturated: its delta is "at least"
//    (max - previous) and flagged, never negative and never wrapped;
//  - an error counter jumping by at least `jump_threshold` in one sweep gives counter_jump;
//  - a port that stops answering gives port_unresponsive once, until it answers again;
//  - when a port's data/packet counters switch between 32-bit PortCounters and 64-bit
//    PortCountersExtended (extended flag flips), those four start a new baseline (no delta);
//  - a reading without the data/packet counters (the MAD poller's errors sweeps read them on a
//    slower cadence) leaves their baseline as it was: the next reading that has them gets its
//    delta and rate over the interval since they were last read (no spike), and meanwhile
//    each delta carries the last rate of those four (rate_carried; no dip to zero).
// Events carry node_guid, port and the sample time; error-counter jumps are warnings, resets
// are info.
// No I/O, no clock: times come from the samples. Not thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fabric/flat_table.h"
#include "ingest/counters.h"
#include "ingest/event.h"

namespace ibw::ingest {

// The masks first, then the deltas (error counters first: Counter's order), the rates and
// the reading: the rules' first test of a delta (rules::History::rises: does a valid error
// counter rise?) reads its first two cache lines, not the reading's three before them.
struct CounterDelta {
  uint32_t valid = 0;     // bit i: delta/rate i are known (needs a previous reading)
  uint32_t at_least = 0;  // bit i: saturated, the true delta may be larger
  uint32_t reset = 0;     // bit i: the counter was reset since the previous reading
  // bit i: counter i was not in this reading; rate i is the one of its last reading (the
  // delta is not valid). Rates are known for valid | rate_carried.
  uint32_t rate_carried = 0;
  int64_t interval_us = 0;  // since the previous reading (of the data counters: see rate)
  std::array<uint64_t, kCounterCount> delta{};  // since the previous reading
  std::array<double, kCounterCount> rate{};     // delta per second
  CounterSample sample;                         // the new reading
};

struct TrackerOptions {
  uint64_t jump_threshold = 100;  // error-counter delta in one sweep that makes counter_jump
};

class CounterTracker {
 public:
  explicit CounterTracker(TrackerOptions options = {}) : options_(options) {}
  // Folds in one reading; appends any events it causes to *events.
  CounterDelta update(const CounterSample& sample, std::vector<Event>* events);
  // The same, writing every field of *out.
  void update(const CounterSample& sample, std::vector<Event>* events, CounterDelta& out);
  // As update(), writing every field of *out; but a reading no newer than the port's last one
  // (a telemetry answer repeating it) changes nothing, leaves *out alone and gives false.
  bool update_newer(const CounterSample& sample, std::vector<Event>* events, CounterDelta& out);
  // Marks a port that did not answer at time_us.
  void unresponsive(uint64_t node_guid, int port, int64_t time_us, std::vector<Event>* events);
  // Seeds the previous reading (after a restart, from the store) without emitting events.
  void seed(const CounterSample& sample);

 private:
  struct State {
    CounterSample last;        // the data/packet counters: of the last reading that had them
    int64_t data_time_us = 0;  // time of that reading
    std::array<float, 4> data_rate{};  // their last rates, carried through readings without them
    uint8_t data_rate_known = 0;       // bit k: data_rate[k] is known
    bool have = false;
    bool unresponsive = false;
  };
  // Folds sample into st, writing every field of d.
  void fold(State& st, const CounterSample& sample, std::vector<Event>* events,
            CounterDelta& d) const;
  TrackerOptions options_;
  fabric::FlatTable<State> ports_;  // key: guid * 256 + port
};

}  // namespace ibw::ingest
