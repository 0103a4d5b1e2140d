// SwitchSums: the counter poller's memory of each switch's AllPortSelect sum (PortCounters with
// PortSelect 0xFF: every port's counters added up, each field saturating at its maximum) and of
// the error counters of the switch's ports (ingest/counter_poller.h, "Switch sums"). Pure
// bookkeeping, no I/O; exposed for unit tests.
//
// judge_sum compares a switch's sum, decoded like one port's reading, with the previous one over
// the error counters and PortXmitWait ("tracked"):
//  - zero: every tracked field is 0: every port's are 0, exactly, whatever came before;
//  - unchanged: each tracked field equal to the previous sum's, none at its maximum (a
//    saturated sum hides rises), and no data counter went down (someone reset a port: its
//    error counters may have gone down while another port's rose by as much);
//  - moved: anything else, or no previous sum: the ports must be read one by one.
// SwitchSums::known also takes an unchanged sum for moved when a tracked field is below the
// total of the ports' last readings (read after the previous sum, so a true sum is at least
// that): such a sum is not the ports' sum (a PMA that clips it early: ibsim adds
// PortXmitDiscards up to 255 only, so a port's 60000 reset to 30000 left the sum at 255 and
// hid the new discards). That switch is read port by port while it lasts.
// PortXmitWait is tracked: it moves under congestion and the congestion rule reads it per port,
// so a switch whose ports wait is read port by port each sweep (a quiet fabric stays cheap).
// Left to the next full sweep (which reads every port): a port reset to lower error counts
// while data counters are saturated in the sum and another port rose by exactly as much.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ingest/counters.h"

namespace ibw::ingest {

enum class SumVerdict : uint8_t { zero, unchanged, moved };

// Bits of the counters a sum is judged on: the error counters and PortXmitWait.
uint32_t sum_tracked_mask();
// Bits of the data and packet counters (read on the slower, full-sweep cadence).
uint32_t data_counter_mask();

// previous null: no earlier sum of this switch.
SumVerdict judge_sum(const CounterSample* previous, const CounterSample& sum);

class SwitchSums {
 public:
  // The error counters of `ports` (of node_guid at lid, in target order) when `sum` shows
  // them: zero, or unchanged since remember() of exactly these ports. Then appends one sample
  // per port to *out (time_us, the tracked counters valid, no data counters, `extended` as
  // the PMA's full readings would have it) and returns true; false: read the ports one by one.
  bool known(uint16_t lid, uint64_t node_guid, const std::vector<int>& ports,
             const CounterSample& sum, int64_t time_us, bool extended,
             std::vector<CounterSample>* out);
  // After the ports were read one by one: `sum` (read before them) and each port's reading
  // (null: the port did not answer, and the switch is forgotten until all answer again).
  void remember(uint16_t lid, uint64_t node_guid, const std::vector<int>& ports,
                const CounterSample& sum, const std::vector<const CounterSample*>& readings);
  void forget(uint16_t lid) { switches_.erase(lid); }
  size_t size() const { return switches_.size(); }

 private:
  struct Switch {
    uint64_t node_guid = 0;
    std::vector<int> ports;
    CounterSample sum;
    std::vector<CounterSample> errors;  // per port, the tracked counters of the last reading
    std::array<uint64_t, kCounterCount> port_total{};  // their sum (saturating)
  };
  std::unordered_map<uint16_t, Switch> switches_;  // key: LID
};

}  // namespace ibw::ingest
