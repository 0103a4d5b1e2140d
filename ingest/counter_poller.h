// CounterPoller: reads PortCounters (0x12) and, where the port's PMA advertises it,
// PortCountersExtended (0x1D, 64-bit) for a list of ports over libibumad/libibmad.
// MADs are pipelined: up to `window` requests are outstanding at once and answers are
// matched by transaction ID, so a sweep costs about (ports / window) round trips instead of
// one blocking RPC per port. Ports that do not answer after `retries` are reported as
// unresponsive instead of failing the sweep.
// Not thread-safe; one poller per thread. Works under umad2sim (ibsim) like on hardware.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ingest/clock.h"
#include "ingest/counters.h"

namespace ibw::ingest {

struct PollTarget {
  uint64_t node_guid = 0;
  uint16_t lid = 0;  // LID to address the PMA at (a switch's port-0 LID, a CA port's LID)
  int port = 0;      // port number whose counters are read
};

struct PollerOptions {
  std::string ca;       // umad CA; empty = first
  int ca_port = 0;      // 0 = first active
  unsigned window = 64;        // outstanding MADs
  unsigned timeout_ms = 200;   // per MAD attempt
  unsigned retries = 2;
};

struct SweepResult {
  std::vector<CounterSample> samples;       // one per target that answered
  std::vector<PollTarget> unresponsive;     // targets that never answered
  int64_t started_us = 0;
  int64_t duration_us = 0;
  uint64_t mads_sent = 0;
};

class CounterPoller {
 public:
  // Opens the local umad port; throws std::runtime_error naming CA/port on failure.
  static std::unique_ptr<CounterPoller> open(const PollerOptions& options, const Clock& clock);
  virtual ~CounterPoller() = default;
  virtual SweepResult sweep(const std::vector<PollTarget>& targets) = 0;
};

}  // namespace ibw::ingest
