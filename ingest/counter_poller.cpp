// CounterPoller over libibumad: one umad agent for the Performance Management class, GETs
// pipelined up to `window` deep and matched to their answers by transaction ID.
//
// Per sweep, each target goes through: ClassPortInfo of its LID (unless cached) ->
// PortCounters and, when advertised, PortCountersExtended (both in flight together) -> sample.
// A switch LID (two or more targets, AllPortSelect advertised) first sends its sum (Query::sum,
// + sum_ext with extended error counters); on its answer SwitchSums either gives its ports'
// samples or the ports go through the per-port path. An errors sweep asks one attribute per
// port: PortCountersExtended with extended error counters, else PortCounters.
// Each attempt has a deadline here (steady clock); the kernel's ETIMEDOUT answer (umad status,
// which ibsim imitates at once for a dropped MAD) takes the same path. A retry gets a fresh
// TID, so a late answer to an abandoned attempt is ignored. Not supported: ClassPortInfo
// redirection (a redirecting PMA's targets end up in `failed`).
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include <cstring>
#include <random>
#include <stdexcept>

#include "ingest/poller_detail.h"

namespace ibw::ingest {
namespace poller_detail {

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
  const PollTarget& t = (*s.targets)[is_sum(r.query) ? s.groups[r.index].targets.front() : r.index];
  uint16_t attr = attribute_of(r.query);
  std::array<uint8_t, IB_PC_DATA_SZ> data{};
  uint32_t port = is_sum(r.query) ? 0xFF : static_cast<uint32_t>(t.port);  // 0xFF: AllPortSelect
  if (attr == IB_GSI_PORT_COUNTERS) mad_encode_field(data.data(), IB_PC_PORT_SELECT_F, &port);
  if (attr == IB_GSI_PORT_COUNTERS_EXT)
    mad_encode_field(data.data(), IB_PC_EXT_PORT_SELECT_F, &port);

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

SweepResult UmadPoller::sweep(const std::vector<PollTarget>& targets, SweepKind kind) {
  Sweep s;
  s.targets = &targets;
  s.full = kind == SweepKind::full;
  s.result.full = s.full;
  s.state.resize(targets.size());
  s.unresponsive.assign(targets.size(), 0);
  s.failed.assign(targets.size(), 0);
  s.result.started_us = clock_.now_us();
  auto t0 = SteadyClock::now();

  // Targets by LID, LIDs in the order of their first target.
  std::vector<uint16_t> lids;
  std::unordered_map<uint16_t, std::vector<uint32_t>> by_lid;
  for (uint32_t i = 0; i < targets.size(); ++i) {
    const PollTarget& t = targets[i];
    if (t.lid == 0 || t.port < 0 || t.port > 255) {
      s.failed[i] = 1;
      s.state[i].finished = true;
      continue;
    }
    auto& on_lid = by_lid[t.lid];
    if (on_lid.empty()) lids.push_back(t.lid);
    on_lid.push_back(i);
  }
  for (uint16_t lid : lids) {
    const std::vector<uint32_t>& on_lid = by_lid[lid];
    auto cached = caps_.find(lid);
    if (cached != caps_.end() && cached->second.node_guid == targets[on_lid.front()].node_guid) {
      start_lid(s, lid, on_lid, cached->second.caps);
      continue;
    }
    s.pending.push_back(Request{Query::class_port_info, on_lid.front()});
    s.waiting_for_caps[lid] = on_lid;
    // Cold: PortCounters needs no capability, so it goes out with the LID's ClassPortInfo
    // instead of after it (only PortCountersExtended waits for the answer, caps_known) --
    // except on a switch, whose sum may make it unnecessary.
    if (on_lid.size() >= 2 && options_.switch_sums) continue;
    for (uint32_t i : on_lid) s.pending.push_back(Request{Query::counters, i});
  }

  while (!s.pending.empty() || !s.in_flight.empty()) {
    while (s.in_flight.size() < options_.window && !s.pending.empty()) {
      Request r = s.pending.front();
      s.pending.pop_front();
      if (is_sum(r.query) ? s.groups[r.index].finished
                          : r.query != Query::class_port_info && s.state[r.index].finished)
        continue;
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

  remember_groups(s);
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
