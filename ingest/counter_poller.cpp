// CounterPoller over libibumad: one umad agent for the Performance Management class, GETs
// pipelined up to `window` deep and matched to their answers by transaction ID.
//
// Per sweep, each target goes through: ClassPortInfo of its LID (unless cached) ->
// PortCounters and, when advertised, PortCountersExtended (both in flight together) -> sample.
// Each attempt has a deadline here (steady clock); the kernel's ETIMEDOUT answer (umad status,
// which ibsim imitates at once for a dropped MAD) takes the same path. A retry gets a fresh
// TID, so a late answer to an abandoned attempt is ignored. Not supported: ClassPortInfo
// redirection (a redirecting PMA's targets end up in `failed`).
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include <array>
#include <chrono>
#include <cstring>
#include <deque>
#include <optional>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include "ingest/counter_poller.h"

#include "fabric/smp_port.h"

namespace ibw::ingest {
namespace poller_detail {

using SteadyClock = std::chrono::steady_clock;

enum class Query : uint8_t { class_port_info, counters, counters_ext };

struct Request {
  Query query;
  uint32_t index;  // target index; for ClassPortInfo, index of the first target on the LID
  unsigned attempt = 0;
};

uint16_t attribute_of(Query q) {
  switch (q) {
    case Query::class_port_info:
      return CLASS_PORT_INFO;
    case Query::counters:
      return IB_GSI_PORT_COUNTERS;
    case Query::counters_ext:
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
  bool want_ext = false;
  bool caps_known = false;  // PortCounters goes out before ClassPortInfo answers; the sample waits
  bool pc_done = false, pce_done = false, pce_ok = false;
  bool finished = false;
  int64_t time_us = 0;
  std::optional<CounterSample> sample;
};

struct CachedCaps {
  uint64_t node_guid = 0;
  PmaCapabilities caps;
};

class UmadPoller final : public CounterPoller {
 public:
  UmadPoller(fabric::MadLocks& locks, const PollerOptions& options, const Clock& clock);
  ~UmadPoller() override;
  SweepResult sweep(const std::vector<PollTarget>& targets) override;

 private:
  // State of one sweep.
  struct Sweep {
    const std::vector<PollTarget>* targets = nullptr;
    std::vector<TargetState> state;
    std::unordered_map<uint16_t, std::vector<uint32_t>> waiting_for_caps;  // LID -> targets
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
  void finish(Sweep& s, uint32_t index);
  bool receive(Sweep& s, int wait_ms);
  void expire(Sweep& s);

  PollerOptions options_;
  const Clock& clock_;
  int fd_ = -1;
  int agent_ = -1;
  uint32_t next_tid_ = 1;
  std::unordered_map<uint16_t, CachedCaps> caps_;  // key: LID
  std::vector<uint64_t> buf_;                      // umad + MAD, 8-byte aligned
};

UmadPoller::UmadPoller(fabric::MadLocks& locks, const PollerOptions& options, const Clock& clock)
    : options_(options), clock_(clock) {
  if (options_.window == 0) options_.window = 1;
  std::string where = "CA " + (options_.ca.empty() ? std::string("(default)") : options_.ca) +
                      " port " + std::to_string(options_.ca_port);
  std::unique_lock<std::mutex> lock(locks.umad);
  umad_init();
  fd_ = umad_open_port(options_.ca.empty() ? nullptr : options_.ca.c_str(), options_.ca_port);
  if (fd_ < 0) throw std::runtime_error("cannot open umad port on " + where);
  agent_ = umad_register(fd_, IB_PERFORMANCE_CLASS, 1, 0, nullptr);
  if (agent_ < 0) {
    umad_close_port(fd_);
    throw std::runtime_error("cannot register a Performance Management agent on " + where);
  }
  buf_.resize((umad_size() + IB_MAD_SIZE + 7) / 8);
  next_tid_ = std::random_device{}() | 1u;
}

UmadPoller::~UmadPoller() {
  if (agent_ >= 0) umad_unregister(fd_, agent_);
  if (fd_ >= 0) umad_close_port(fd_);
}

void UmadPoller::send(Sweep& s, const Request& r) {
  const PollTarget& t = (*s.targets)[r.index];
  uint16_t attr = attribute_of(r.query);
  std::array<uint8_t, IB_PC_DATA_SZ> data{};
  uint32_t port = static_cast<uint32_t>(t.port);
  if (r.query == Query::counters) mad_encode_field(data.data(), IB_PC_PORT_SELECT_F, &port);
  if (r.query == Query::counters_ext) mad_encode_field(data.data(), IB_PC_EXT_PORT_SELECT_F, &port);

  uint32_t tid = next_tid_++;
  if (tid == 0) tid = next_tid_++;
  ib_rpc_t rpc{};
  rpc.mgtclass = IB_PERFORMANCE_CLASS;
  rpc.method = IB_MAD_METHOD_GET;
  rpc.attr.id = attr;
  rpc.attr.mod = 0;
  rpc.timeout = options_.timeout_ms;
  rpc.datasz = IB_PC_DATA_SZ;
  rpc.dataoffs = IB_PC_DATA_OFFS;
  rpc.trid = tid;  // the kernel (or umad2sim and ibsim) own the upper 32 bits
  ib_portid_t dest{};
  ib_portid_set(&dest, t.lid, 1, IB_DEFAULT_QP1_QKEY);
  std::memset(buf_.data(), 0, buf_.size() * sizeof(uint64_t));
  int len = mad_build_pkt(buf_.data(), &rpc, &dest, nullptr, data.data());
  // The kernel keeps a request with a timeout on its wait list so the answer is delivered;
  // retries are ours (a fresh TID each time).
  if (len > 0 &&
      umad_send(fd_, agent_, buf_.data(), len, static_cast<int>(options_.timeout_ms), 0) == 0)
    ++s.result.mads_sent;
  if (r.query == Query::class_port_info) ++s.result.class_port_info;
  if (r.attempt > 0) ++s.result.retries;
  // A failed send simply times out and is retried like a lost MAD.
  s.in_flight[tid] = InFlight{r, attr};
  s.deadlines.emplace_back(SteadyClock::now() + std::chrono::milliseconds(options_.timeout_ms),
                           tid);
  s.result.max_outstanding =
      std::max(s.result.max_outstanding, static_cast<unsigned>(s.in_flight.size()));
}

// caps null: the LID did not answer, its targets are unresponsive.
void UmadPoller::caps_known(Sweep& s, uint16_t lid, const PmaCapabilities* caps, bool cache) {
  auto it = s.waiting_for_caps.find(lid);
  if (it == s.waiting_for_caps.end()) return;
  std::vector<uint32_t> waiting = std::move(it->second);
  s.waiting_for_caps.erase(it);
  if (caps && cache) caps_[lid] = CachedCaps{(*s.targets)[waiting.front()].node_guid, *caps};
  for (uint32_t i : waiting) {
    if (caps) {
      TargetState& st = s.state[i];  // PortCounters is already on its way (sweep())
      st.caps = *caps;
      st.want_ext = caps->extended();
      st.caps_known = true;
      if (st.want_ext && !st.finished) s.pending.push_back(Request{Query::counters_ext, i});
      finish(s, i);
    } else {
      s.unresponsive[i] = 1;
      s.state[i].finished = true;
    }
  }
}

void UmadPoller::start_counters(Sweep& s, uint32_t index, const PmaCapabilities& caps) {
  TargetState& st = s.state[index];
  st.caps = caps;
  st.want_ext = caps.extended();
  st.caps_known = true;
  s.pending.push_back(Request{Query::counters, index});
  if (st.want_ext) s.pending.push_back(Request{Query::counters_ext, index});
}

void UmadPoller::finish(Sweep& s, uint32_t index) {
  TargetState& st = s.state[index];
  if (st.finished || !st.caps_known || !st.pc_done || (st.want_ext && !st.pce_done)) return;
  st.finished = true;
  const PollTarget& t = (*s.targets)[index];
  CounterSample sample =
      decode_port_counters(st.pc.data(), st.pce_ok ? st.pce.data() : nullptr, st.caps);
  sample.time_us = st.time_us;
  sample.node_guid = t.node_guid;
  sample.port = t.port;
  st.sample = sample;
}

void UmadPoller::on_answer(Sweep& s, const InFlight& f, int mad_status, const uint8_t* data) {
  uint32_t i = f.request.index;
  TargetState& st = s.state[i];
  switch (f.request.query) {
    case Query::class_port_info: {
      // A PMA must implement ClassPortInfo; one that rejects it gets the classic attribute only
      // (not cached: the next sweep asks again).
      PmaCapabilities caps = mad_status == 0 ? decode_class_port_info(data) : PmaCapabilities{};
      caps_known(s, (*s.targets)[i].lid, &caps, mad_status == 0);
      return;
    }
    case Query::counters:
      if (st.finished) return;
      if (mad_status != 0) {  // e.g. a port number the PMA does not have
        s.failed[i] = 1;
        st.finished = true;
        return;
      }
      std::memcpy(st.pc.data(), data, st.pc.size());
      st.pc_done = true;
      st.time_us = clock_.now_us();
      break;
    case Query::counters_ext:
      if (st.finished) return;
      st.pce_done = true;
      st.pce_ok = mad_status == 0;
      if (st.pce_ok) std::memcpy(st.pce.data(), data, st.pce.size());
      break;
  }
  finish(s, i);
}

void UmadPoller::on_timeout(Sweep& s, const InFlight& f) {
  Request r = f.request;
  uint32_t i = r.index;
  if (r.query != Query::class_port_info && s.state[i].finished) return;
  if (r.attempt < options_.retries) {
    ++r.attempt;
    s.pending.push_front(r);
    return;
  }
  switch (r.query) {
    case Query::class_port_info:
      caps_known(s, (*s.targets)[i].lid, nullptr, false);
      return;
    case Query::counters:
      s.unresponsive[i] = 1;
      s.state[i].finished = true;
      return;
    case Query::counters_ext:  // the classic counters still make a sample
      s.state[i].pce_done = true;
      finish(s, i);
      return;
  }
}

// Handles at most one MAD; false when none came within wait_ms.
bool UmadPoller::receive(Sweep& s, int wait_ms) {
  int len = IB_MAD_SIZE;
  if (umad_recv(fd_, buf_.data(), &len, wait_ms) < 0) return false;
  auto* mad = static_cast<uint8_t*>(umad_get_mad(buf_.data()));
  uint32_t tid = static_cast<uint32_t>(mad_get_field64(mad, 0, IB_MAD_TRID_F));
  auto it = s.in_flight.find(tid);
  if (it == s.in_flight.end()) return true;  // stale: an answer after we gave up on it
  InFlight f = it->second;
  if (umad_status(buf_.data()) != 0) {  // the kernel gave up on the request (ETIMEDOUT)
    s.in_flight.erase(it);
    on_timeout(s, f);
    return true;
  }
  if (mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F) != IB_PERFORMANCE_CLASS ||
      mad_get_field(mad, 0, IB_MAD_RESPONSE_F) != 1 ||  // IB_MAD_METHOD_F lacks the R bit
      mad_get_field(mad, 0, IB_MAD_METHOD_F) != IB_MAD_METHOD_GET ||
      mad_get_field(mad, 0, IB_MAD_ATTRID_F) != f.attr)
    return true;
  s.in_flight.erase(it);
  on_answer(s, f, static_cast<int>(mad_get_field(mad, 0, IB_MAD_STATUS_F)), mad + IB_PC_DATA_OFFS);
  return true;
}

void UmadPoller::expire(Sweep& s) {
  auto now = SteadyClock::now();
  while (!s.deadlines.empty()) {
    auto [deadline, tid] = s.deadlines.front();
    auto it = s.in_flight.find(tid);
    if (it == s.in_flight.end()) {  // answered already
      s.deadlines.pop_front();
      continue;
    }
    if (deadline > now) break;
    s.deadlines.pop_front();
    InFlight f = it->second;
    s.in_flight.erase(it);
    on_timeout(s, f);
  }
}

SweepResult UmadPoller::sweep(const std::vector<PollTarget>& targets) {
  Sweep s;
  s.targets = &targets;
  s.state.resize(targets.size());
  s.unresponsive.assign(targets.size(), 0);
  s.failed.assign(targets.size(), 0);
  s.result.started_us = clock_.now_us();
  auto t0 = SteadyClock::now();

  for (uint32_t i = 0; i < targets.size(); ++i) {
    const PollTarget& t = targets[i];
    if (t.lid == 0 || t.port < 0 || t.port > 255) {
      s.failed[i] = 1;
      s.state[i].finished = true;
      continue;
    }
    auto cached = caps_.find(t.lid);
    if (cached != caps_.end() && cached->second.node_guid == t.node_guid) {
      start_counters(s, i, cached->second.caps);
      continue;
    }
    // Cold: PortCounters needs no capability, so it goes out with the LID's ClassPortInfo
    // instead of after it; only PortCountersExtended waits for the answer (caps_known).
    auto& waiting = s.waiting_for_caps[t.lid];
    if (waiting.empty()) s.pending.push_back(Request{Query::class_port_info, i});
    waiting.push_back(i);
    s.pending.push_back(Request{Query::counters, i});
  }

  while (!s.pending.empty() || !s.in_flight.empty()) {
    while (s.in_flight.size() < options_.window && !s.pending.empty()) {
      Request r = s.pending.front();
      s.pending.pop_front();
      if (r.query != Query::class_port_info && s.state[r.index].finished) continue;
      send(s, r);
    }
    if (s.in_flight.empty()) continue;
    // Wait for an answer until the oldest request's deadline.
    auto next = s.deadlines.front().first;
    auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - SteadyClock::now()).count();
    // Then take whatever else has arrived before refilling: sends go out in bursts.
    if (receive(s, static_cast<int>(std::max<int64_t>(wait, 0)))) {
      for (unsigned n = 1; n < options_.window && receive(s, 0); ++n) {
      }
    }
    expire(s);
  }

  for (uint32_t i = 0; i < targets.size(); ++i) {
    if (s.state[i].sample) s.result.samples.push_back(*s.state[i].sample);
    if (s.unresponsive[i]) s.result.unresponsive.push_back(targets[i]);
    if (s.failed[i]) s.result.failed.push_back(targets[i]);
  }
  s.result.duration_us =
      std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - t0).count();
  return std::move(s.result);
}

}  // namespace poller_detail

std::unique_ptr<CounterPoller> CounterPoller::open(fabric::MadLocks& locks,
                                                   const PollerOptions& options,
                                                   const Clock& clock) {
  return std::make_unique<poller_detail::UmadPoller>(locks, options, clock);
}

}  // namespace ibw::ingest
