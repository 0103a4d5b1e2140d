// Private to ingest/ (counter_poller.cpp: transport and the sweep loop; poller_steps.cpp: what
// each answer or timeout leads to): the umad CounterPoller's requests, per-target and
// per-switch state of one sweep, and the class itself (ingest/counter_poller.h).
#pragma once

#include <infiniband/mad.h>

#include <array>
#include <chrono>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "fabric/smp_port.h"
#include "ingest/counter_poller.h"
#include "ingest/switch_sums.h"

namespace ibw::ingest::poller_detail {

using SteadyClock = std::chrono::steady_clock;

enum class Query : uint8_t { class_port_info, counters, counters_ext, sum, sum_ext };

struct Request {
  Query query;
  uint32_t index;  // target index; ClassPortInfo: the LID's first target; sums: the group
  unsigned attempt = 0;
};

inline bool is_sum(Query q) {
  return q == Query::sum || q == Query::sum_ext;
}

inline uint16_t attribute_of(Query q) {
  switch (q) {
    case Query::class_port_info:
      return CLASS_PORT_INFO;
    case Query::counters:
    case Query::sum:
      return IB_GSI_PORT_COUNTERS;
    case Query::counters_ext:
    case Query::sum_ext:
      return IB_GSI_PORT_COUNTERS_EXT;
  }
  return 0;
}

struct InFlight {
  Request request;
  uint16_t attr = 0;
};

struct TargetState {
  std::array<uint8_t, IB_PC_DATA_SZ> pc{};
  std::array<uint8_t, IB_PC_DATA_SZ> pce{};
  PmaCapabilities caps;
  bool want_pc = true;  // false: an errors sweep reads PortCountersExtended alone
  bool want_ext = false;
  bool caps_known = false;  // PortCounters goes out before ClassPortInfo answers; the sample waits
  bool pc_done = false, pce_done = false, pce_ok = false;
  bool finished = false;
  int64_t time_us = 0;
  std::optional<CounterSample> sample;
};

// The targets of one switch LID read through its AllPortSelect sum.
struct Group {
  uint16_t lid = 0;
  uint64_t node_guid = 0;
  std::vector<uint32_t> targets;
  std::vector<int> ports;
  std::array<uint8_t, IB_PC_DATA_SZ> pc{}, pce{};
  PmaCapabilities caps;
  bool want_ext = false, pc_done = false, pce_done = false, pce_ok = false;
  bool finished = false;  // the sum answered, failed or timed out
  bool per_port = false;  // its ports were read one by one
  std::optional<CounterSample> sum;
};

struct CachedCaps {
  uint64_t node_guid = 0;
  PmaCapabilities caps;
};

class UmadPoller final : public CounterPoller {
 public:
  UmadPoller(fabric::MadLocks& locks, const PollerOptions& options, const Clock& clock);
  ~UmadPoller() override;
  SweepResult sweep(const std::vector<PollTarget>& targets, SweepKind kind) override;

 private:
  // State of one sweep.
  struct Sweep {
    const std::vector<PollTarget>* targets = nullptr;
    std::vector<TargetState> state;
    std::unordered_map<uint16_t, std::vector<uint32_t>> waiting_for_caps;  // LID -> targets
    std::unordered_map<uint16_t, uint32_t> group_of_lid;                   // candidate LIDs
    std::vector<Group> groups;
    bool full = true;
    std::deque<Request> pending;
    std::unordered_map<uint32_t, InFlight> in_flight;                    // TID -> request
    std::deque<std::pair<SteadyClock::time_point, uint32_t>> deadlines;  // send order
    std::vector<uint8_t> unresponsive, failed;
    SweepResult result;
  };

  void send(Sweep& s, const Request& r);
  void on_answer(Sweep& s, const InFlight& f, int mad_status, const uint8_t* data);
  void on_timeout(Sweep& s, const InFlight& f);
  void caps_known(Sweep& s, uint16_t lid, const PmaCapabilities* caps, bool cache);
  void start_counters(Sweep& s, uint32_t index, const PmaCapabilities& caps);
  void start_lid(Sweep& s, uint16_t lid, const std::vector<uint32_t>& targets,
                 const PmaCapabilities& caps);
  void sum_answered(Sweep& s, uint32_t group);
  void read_ports(Sweep& s, uint32_t group);
  void remember_groups(Sweep& s);
  void finish(Sweep& s, uint32_t index);
  bool receive(Sweep& s, int wait_ms);
  void expire(Sweep& s);

  PollerOptions options_;
  const Clock& clock_;
  int fd_ = -1;
  int agent_ = -1;
  uint32_t next_tid_ = 1;
  std::unordered_map<uint16_t, CachedCaps> caps_;  // key: LID
  SwitchSums sums_;
  std::vector<uint64_t> buf_;  // umad + MAD, 8-byte aligned
};

}  // namespace ibw::ingest::poller_detail
