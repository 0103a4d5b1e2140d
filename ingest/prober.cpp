// Prober over libibumad: SubnGet(NodeInfo) SMPs, LID-routed (SMI class) or directed-route
// (SMI direct class), pipelined and paced, never retried.
//
// A round sends `count` MADs per target, round-robin over the targets (so the probes of one
// target are spread over the round), while fewer than max_in_flight are outstanding and the
// token bucket has a token. Answers are matched by the low 32 bits of the transaction ID
// (the kernel, or umad2sim and ibsim, own the upper half). A MAD is lost when the kernel
// hands it back with a non-zero umad status (ETIMEDOUT; ibsim does so at once for a packet
// it drops) or when our own deadline (timeout_ms, steady clock) passes first; a late answer
// is then ignored. RTT = send to answer, steady clock, microseconds.
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <stdexcept>
#include <unordered_map>

#include "fabric/smp_port.h"
#include "ingest/prober.h"

namespace ibw::ingest {
namespace prober_detail {

int64_t steady_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// What one target's MADs look like on the wire.
struct Wire {
  bool directed = false;
  uint16_t lid = 0;
  std::vector<uint8_t> route;
  uint64_t expect_guid = 0;  // 0: not checked
};

struct Tally {
  uint64_t sent = 0, lost = 0, mismatched = 0, send_failed = 0;
  std::vector<double> rtt_us;
  uint64_t answered_guid = 0;
  int answered_port = 0;
};

class UmadProber final : public Prober {
 public:
  UmadProber(fabric::MadLocks& locks, const ProbeOptions& options, const Clock& clock);
  ~UmadProber() override;
  const Vantage& vantage() const override { return vantage_; }
  ProbeRound probe_lids(const std::vector<LidTarget>& targets) override;
  ProbeRound probe_routes(const std::vector<DrTarget>& targets) override;

 private:
  // SMP agents, registered for one round under locks_.smp.
  struct Session {
    Session(UmadProber& p);
    ~Session();
    void release();
    UmadProber& prober;
    std::unique_lock<std::mutex> lock;
  };
  struct InFlight {
    uint32_t wire;
    int64_t sent_us;
  };

  std::vector<Tally> run(const std::vector<Wire>& wires, unsigned count, ProbeStats* stats);
  bool send(const Wire& w, uint32_t index);
  // Handles at most one MAD; false when none came within wait_ms.
  bool receive(int wait_ms, const std::vector<Wire>& wires, std::vector<Tally>& tally);
  ProbeRound finish(std::vector<Observation> obs, const std::vector<Tally>& tally, ProbeStats stats,
                    const std::vector<std::string>& names);

  fabric::MadLocks& locks_;
  ProbeOptions options_;
  const Clock& clock_;
  std::string where_;
  int fd_ = -1;
  int smi_agent_ = -1, dr_agent_ = -1;
  uint32_t next_tid_ = 1;
  Vantage vantage_;
  std::vector<uint64_t> buf_;  // umad + MAD, 8-byte aligned
  std::unordered_map<uint32_t, InFlight> in_flight_;
  std::deque<std::pair<int64_t, uint32_t>> deadlines_;  // (steady us, TID), send order
};

UmadProber::Session::Session(UmadProber& p) : prober(p), lock(p.locks_.smp) {
  p.smi_agent_ = umad_register(p.fd_, IB_SMI_CLASS, 1, 0, nullptr);
  p.dr_agent_ = umad_register(p.fd_, IB_SMI_DIRECT_CLASS, 1, 0, nullptr);
  if (p.smi_agent_ < 0 || p.dr_agent_ < 0) {
    release();
    throw std::runtime_error("cannot register SMP agents on " + p.where_ +
                             ": is another subnet-management client of this process using it?");
  }
}

UmadProber::Session::~Session() {
  release();
}

void UmadProber::Session::release() {
  if (prober.smi_agent_ >= 0) umad_unregister(prober.fd_, prober.smi_agent_);
  if (prober.dr_agent_ >= 0) umad_unregister(prober.fd_, prober.dr_agent_);
  prober.smi_agent_ = prober.dr_agent_ = -1;
  prober.in_flight_.clear();
  prober.deadlines_.clear();
}

UmadProber::UmadProber(fabric::MadLocks& locks, const ProbeOptions& options, const Clock& clock)
    : locks_(locks), options_(options), clock_(clock) {
  if (options_.max_in_flight == 0) options_.max_in_flight = 1;
  if (options_.timeout_ms == 0) options_.timeout_ms = 1;
  where_ = "CA " + (options_.ca.empty() ? std::string("(default)") : options_.ca) + " port " +
           std::to_string(options_.ca_port);
  std::unique_lock<std::mutex> umad_lock(locks_.umad);  // see fabric/smp_port.h
  umad_init();
  umad_port_t port{};
  if (umad_get_port(options_.ca.empty() ? nullptr : options_.ca.c_str(), options_.ca_port, &port) <
      0)
    throw std::runtime_error("cannot read the local port (" + where_ +
                             "): does it exist and is umad accessible?");
  vantage_.lid = static_cast<uint16_t>(port.base_lid);
  vantage_.port = port.portnum;
  int state = port.state;
  std::string ca_name = port.ca_name;
  umad_release_port(&port);
  where_ = "CA " + ca_name + " port " + std::to_string(vantage_.port);
  if (state != 4 || vantage_.lid == 0)
    throw std::runtime_error("the local port (" + where_ + ") is not Active with a LID (state " +
                             std::to_string(state) + ", LID " + std::to_string(vantage_.lid) +
                             "): is the subnet manager running?");
  fd_ = umad_open_port(ca_name.c_str(), vantage_.port);
  umad_lock.unlock();
  if (fd_ < 0) throw std::runtime_error("cannot open umad port " + where_);
  buf_.resize((umad_size() + IB_MAD_SIZE + 7) / 8);
  next_tid_ = std::random_device{}() | 1u;
  // Who are we? NodeInfo of the local node (a directed route of no hops) gives its GUID and
  // the port number the SMPs leave through; no link is crossed.
  ProbeStats stats;
  auto tally = run({Wire{true, 0, {}, 0}}, 3, &stats);
  if (tally[0].rtt_us.empty())
    throw std::runtime_error("the local port (" + where_ +
                             ") does not answer NodeInfo: SMPs cannot be sent from here");
  vantage_.node_guid = tally[0].answered_guid;
  vantage_.port = tally[0].answered_port;
}

UmadProber::~UmadProber() {
  if (fd_ >= 0) umad_close_port(fd_);
}

bool UmadProber::send(const Wire& w, uint32_t index) {
  uint32_t tid = next_tid_++;
  if (tid == 0) tid = next_tid_++;
  ib_rpc_t rpc{};
  rpc.mgtclass = w.directed ? IB_SMI_DIRECT_CLASS : IB_SMI_CLASS;
  rpc.method = IB_MAD_METHOD_GET;
  rpc.attr.id = IB_ATTR_NODE_INFO;
  rpc.timeout = options_.timeout_ms;
  rpc.datasz = IB_SMP_DATA_SIZE;
  rpc.dataoffs = IB_SMP_DATA_OFFS;
  rpc.trid = tid;
  ib_portid_t dest{};
  if (w.directed) {
    dest.drpath.cnt = static_cast<int>(w.route.size());
    for (size_t i = 0; i < w.route.size(); ++i) dest.drpath.p[i + 1] = w.route[i];
    dest.drpath.drslid = 0xffff;
    dest.drpath.drdlid = 0xffff;
  } else {
    ib_portid_set(&dest, w.lid, 0, 0);
  }
  std::array<uint8_t, IB_SMP_DATA_SIZE> data{};
  std::memset(buf_.data(), 0, buf_.size() * sizeof(uint64_t));
  int len = mad_build_pkt(buf_.data(), &rpc, &dest, nullptr, data.data());
  if (len <= 0 || umad_send(fd_, w.directed ? dr_agent_ : smi_agent_, buf_.data(), len,
                            static_cast<int>(options_.timeout_ms), 0) != 0)
    return false;
  int64_t now = steady_us();
  in_flight_[tid] = InFlight{index, now};
  deadlines_.emplace_back(now + int64_t{options_.timeout_ms} * 1000, tid);
  return true;
}

bool UmadProber::receive(int wait_ms, const std::vector<Wire>& wires, std::vector<Tally>& tally) {
  int len = IB_MAD_SIZE;
  if (umad_recv(fd_, buf_.data(), &len, wait_ms) < 0) return false;
  int64_t now = steady_us();
  auto* mad = static_cast<uint8_t*>(umad_get_mad(buf_.data()));
  auto tid = static_cast<uint32_t>(mad_get_field64(mad, 0, IB_MAD_TRID_F));
  auto it = in_flight_.find(tid);
  if (it == in_flight_.end()) return true;  // stale: answered after its deadline
  InFlight f = it->second;
  Tally& t = tally[f.wire];
  if (umad_status(buf_.data()) != 0) {  // handed back unanswered (ETIMEDOUT)
    in_flight_.erase(it);
    ++t.lost;
    return true;
  }
  unsigned mclass = mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F);
  if ((mclass != IB_SMI_CLASS && mclass != IB_SMI_DIRECT_CLASS) ||
      mad_get_field(mad, 0, IB_MAD_RESPONSE_F) != 1 ||
      mad_get_field(mad, 0, IB_MAD_ATTRID_F) != IB_ATTR_NODE_INFO)
    return true;
  in_flight_.erase(it);
  t.rtt_us.push_back(static_cast<double>(now - f.sent_us));
  uint8_t* info = mad + IB_SMP_DATA_OFFS;
  t.answered_guid = mad_get_field64(info, 0, IB_NODE_GUID_F);
  t.answered_port = static_cast<int>(mad_get_field(info, 0, IB_NODE_LOCAL_PORT_F));
  uint64_t expect = wires[f.wire].expect_guid;
  if (expect != 0 && t.answered_guid != expect) ++t.mismatched;
  return true;
}

std::vector<Tally> UmadProber::run(const std::vector<Wire>& wires, unsigned count,
                                   ProbeStats* stats) {
  Session session(*this);
  std::vector<Tally> tally(wires.size());
  stats->started_us = clock_.now_us();
  stats->targets = wires.size();
  int64_t t0 = steady_us();
  TokenBucket bucket(options_.max_rate, options_.max_in_flight, t0);
  size_t total = wires.size() * count, next = 0;
  auto prune = [&] {  // drop the deadlines of answered MADs from the front
    while (!deadlines_.empty() && !in_flight_.count(deadlines_.front().second))
      deadlines_.pop_front();
  };
  while (next < total || !in_flight_.empty()) {
    int64_t now = steady_us();
    while (next < total && in_flight_.size() < options_.max_in_flight && bucket.take(now)) {
      auto w = static_cast<uint32_t>(next++ % wires.size());
      if (send(wires[w], w)) {
        ++tally[w].sent;
        stats->max_outstanding =
            std::max(stats->max_outstanding, static_cast<unsigned>(in_flight_.size()));
      } else {
        ++tally[w].send_failed;
      }
      now = steady_us();
    }
    prune();
    int64_t wait = INT64_MAX;
    if (!deadlines_.empty()) wait = deadlines_.front().first - now;
    if (next < total && in_flight_.size() < options_.max_in_flight)
      wait = std::min(wait, bucket.wait_us(now));
    if (wait == INT64_MAX) continue;
    int wait_ms = static_cast<int>(std::clamp<int64_t>((wait + 999) / 1000, 0, 60'000));
    if (receive(wait_ms, wires, tally))
      for (size_t n = 0; n < options_.max_in_flight && receive(0, wires, tally); ++n) {
      }
    now = steady_us();
    prune();
    while (!deadlines_.empty() && deadlines_.front().first <= now) {
      uint32_t tid = deadlines_.front().second;
      deadlines_.pop_front();
      ++tally[in_flight_.at(tid).wire].lost;
      in_flight_.erase(tid);
      prune();
    }
  }
  stats->duration_us = steady_us() - t0;
  for (const Tally& t : tally) {
    stats->mads_sent += t.sent;
    stats->lost += t.lost;
    stats->mismatched += t.mismatched;
  }
  return tally;
}

ProbeRound UmadProber::finish(std::vector<Observation> obs, const std::vector<Tally>& tally,
                              ProbeStats stats, const std::vector<std::string>& names) {
  ProbeRound round;
  round.stats = stats;
  uint64_t failed = 0;
  for (size_t i = 0; i < obs.size(); ++i) {
    Observation& o = obs[i];
    std::vector<double> rtt = tally[i].rtt_us;
    o.sent = tally[i].sent;
    o.lost = tally[i].lost;
    o.rtt_p50_us = percentile(rtt, 0.50);
    o.rtt_p99_us = percentile(rtt, 0.99);
    o.time_us = stats.started_us;
    failed += tally[i].send_failed;
    if (tally[i].mismatched)
      round.warnings.push_back(names[i] + ": " + std::to_string(tally[i].mismatched) +
                               " answer(s) from " + fabric::format_guid(tally[i].answered_guid) +
                               ", not the node the fabric model has there");
  }
  if (failed)
    round.warnings.push_back(std::to_string(failed) + " MAD(s) could not be sent from " + where_ +
                             " (umad_send failed); they are not counted as sent");
  round.observations = std::move(obs);
  return round;
}

ProbeRound UmadProber::probe_lids(const std::vector<LidTarget>& targets) {
  std::vector<Wire> wires;
  std::vector<Observation> obs;
  std::vector<std::string> names;
  for (const LidTarget& t : targets) {
    wires.push_back(Wire{false, t.lid, {}, t.node_guid});
    Observation o;
    o.src = std::to_string(vantage_.lid);
    o.dst = std::to_string(t.lid);
    o.routing = Routing::static_lft;
    o.roundtrip = true;  // the request out over the LFTs, the reply back over the reverse ones
    obs.push_back(std::move(o));
    names.push_back("LID " + std::to_string(t.lid));
  }
  ProbeStats stats;
  auto tally = run(wires, options_.count, &stats);
  return finish(std::move(obs), tally, stats, names);
}

ProbeRound UmadProber::probe_routes(const std::vector<DrTarget>& targets) {
  std::vector<Wire> wires;
  std::vector<Observation> obs;
  std::vector<std::string> names;
  for (const DrTarget& t : targets) {
    wires.push_back(Wire{true, 0, t.route, t.far_guid});
    Observation o;
    o.src = std::to_string(vantage_.lid);
    o.dst = t.dst;
    o.routing = Routing::directed;
    o.roundtrip = true;  // out along the route, the answer back along it
    o.path.push_back(0);
    for (uint8_t p : t.route) o.path.push_back(p);
    std::string path;
    for (int p : o.path) path += (path.empty() ? "" : ",") + std::to_string(p);
    names.push_back("directed route " + path);
    obs.push_back(std::move(o));
  }
  ProbeStats stats;
  auto tally = run(wires, options_.count, &stats);
  return finish(std::move(obs), tally, stats, names);
}

}  // namespace prober_detail

std::unique_ptr<Prober> Prober::open(fabric::MadLocks& locks, const ProbeOptions& options,
                                     const Clock& clock) {
  return std::make_unique<prober_detail::UmadProber>(locks, options, clock);
}

}  // namespace ibw::ingest
