// CounterPoller: reads PortCounters (0x12) and, where the port's PMA advertises it,
// PortCountersExtended (0x1D, 64-bit) for a list of ports over libibumad/libibmad.
// MADs are pipelined: up to `window` requests are outstanding at once and answers are
// matched by transaction ID, so a sweep costs about (ports / window) round trips instead of
// one blocking RPC per port. Ports that do not answer after `retries` are reported as
// unresponsive instead of failing the sweep.
// Not thread-safe; one poller per thread. Works under umad2sim (ibsim) like on hardware.
//
// Capabilities: the PMA's ClassPortInfo (0x0001) is read once per LID and cached (keyed by
// LID and node GUID). CapabilityMask bit 9 or 10 => PortCountersExtended is also read and its
// 64-bit data/packet counters replace the 32-bit ones; CapabilityMask2 bit 1 => its 64-bit
// error counters and PortXmitWait replace the narrow, saturating PortCounters fields too.
// PortXmitWait from PortCounters is only reported when CapabilityMask bit 12 is set.
//
// Switch sums (issue 32): a LID with two or more targets whose PMA advertises AllPortSelect
// (CapabilityMask bit 8) is read first as one PortCounters (+ PortCountersExtended when it has
// extended error counters) with PortSelect 0xFF; ingest/switch_sums.h judges that sum against
// the previous one. In an errors sweep an unchanged (or all-zero) sum gives every port of the
// switch its known error counters without a MAD of its own; a moved, saturated or unknown sum
// has its ports read one by one in the same sweep. A full sweep reads every port in full
// (data counters for rates) after the sum, so the sum stays the baseline of the next sweep.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fabric/smp_port.h"
#include "ingest/clock.h"
#include "ingest/counters.h"

namespace ibw::ingest {

struct PollTarget {
  uint64_t node_guid = 0;
  uint16_t lid = 0;  // LID to address the PMA at (a switch's port-0 LID, a CA port's LID)
  int port = 0;      // port number whose counters are read
};

struct PollerOptions {
  std::string ca;             // umad CA; empty = first
  int ca_port = 0;            // 0 = first active
  unsigned window = 64;       // outstanding MADs
  unsigned timeout_ms = 200;  // per MAD attempt
  unsigned retries = 2;
  bool switch_sums = true;  // false: every port one by one (the behaviour before issue 32)
};

// What a sweep reads. full: every port's PortCounters and PortCountersExtended (data counters
// for rates and error counters). errors: error counters and PortXmitWait only: the switch
// sums, and per port only where a sum moved and on LIDs without AllPortSelect (CA ports: one
// PortCounters each); samples then carry no data counters (valid bits clear) unless the PMA
// answered PortCountersExtended anyway (extended error counters).
enum class SweepKind : uint8_t { full, errors };

struct SweepResult {
  // Each list is in target order; every target is in exactly one of them.
  std::vector<CounterSample> samples;    // one per target that answered
  std::vector<PollTarget> unresponsive;  // targets that never answered
  std::vector<PollTarget> failed;        // answered PortCounters with an error status, or LID 0
  int64_t started_us = 0;
  int64_t duration_us = 0;
  uint64_t mads_sent = 0;
  uint64_t retries = 0;          // MADs sent again after a timeout
  uint64_t class_port_info = 0;  // ClassPortInfo queries sent (cache misses, with retries)
  unsigned max_outstanding = 0;  // most MADs in flight at once during the sweep
  bool full = true;              // the sweep's kind was SweepKind::full
  uint64_t switch_sums = 0;      // switches read as one AllPortSelect sum (answered)
  uint64_t switches_read = 0;    // of those, switches whose ports were then read one by one
};

// What a PMA's ClassPortInfo advertises (Performance Management class, attribute 0x0001).
struct PmaCapabilities {
  static constexpr uint16_t kExtendedWidth = 1u << 9;         // IB_PM_EXT_WIDTH_SUPPORTED
  static constexpr uint16_t kExtendedWidthNoIetf = 1u << 10;  // IB_PM_EXT_WIDTH_NOIETF_SUP
  static constexpr uint16_t kAllPortSelect = 1u << 8;         // IB_PM_ALL_PORT_SELECT
  static constexpr uint16_t kXmitWait = 1u << 12;             // IB_PM_PC_XMIT_WAIT_SUP
  static constexpr uint32_t kAdditionalExtended = 1u << 1;    // IB_PM_IS_ADDL_PORT_CTRS_EXT_SUP

  uint16_t mask = 0;   // CapabilityMask
  uint32_t mask2 = 0;  // CapabilityMask2 (27 bits)

  // PortCountersExtended answers (64-bit data and packet counters).
  bool extended() const {
    return (mask & (kExtendedWidth | kExtendedWidthNoIetf)) || extended_errors();
  }
  // PortCountersExtended also carries 64-bit error counters and PortXmitWait.
  bool extended_errors() const { return mask2 & kAdditionalExtended; }
  bool xmit_wait() const { return mask & kXmitWait; }
  bool all_port_select() const { return mask & kAllPortSelect; }
};

// Pure decoders of PMA attribute data (the bytes from MAD offset 64, IB_PC_DATA_OFFS), exposed
// for unit tests. decode_port_counters fills value/valid/saturated (and extended when pce is
// given); time, GUID and port are left to the caller. pce may be null.
PmaCapabilities decode_class_port_info(const uint8_t* data);
CounterSample decode_port_counters(const uint8_t* pc, const uint8_t* pce,
                                   const PmaCapabilities& caps);

class CounterPoller {
 public:
  // Opens the local umad port under locks.umad (fabric/smp_port.h: the process's one instance);
  // throws std::runtime_error naming CA/port on failure.
  static std::unique_ptr<CounterPoller> open(fabric::MadLocks& locks, const PollerOptions& options,
                                             const Clock& clock);
  virtual ~CounterPoller() = default;
  virtual SweepResult sweep(const std::vector<PollTarget>& targets,
                            SweepKind kind = SweepKind::full) = 0;
};

}  // namespace ibw::ingest
