// Prober: active loss and latency probes from the local port, the built-in way to find
// "cursed routes" (`ibwarden probe`, later the daemon's probe rounds).
//
// Two kinds of probes, both SubnGet(NodeInfo) SMPs, never retried:
//  - LID-routed, to every CA port LID and switch LID of the fabric model: the request and
//    the reply follow the switches' LFTs (VL15 is not adaptively routed), so each target
//    tests the static route to it and back.
//  - Directed-route, one per link: source-routed from the local node over Active links of
//    the model (breadth first) to the link's near end, then out through the link; the node
//    at the far end answers. The request crosses the link one way and the reply the other,
//    so one vantage point tests every link in both directions (NetBouncer style).
// MADs are pipelined (at most max_in_flight outstanding, matched by transaction ID) and
// paced by a token bucket (max_rate MADs/s, burst max_in_flight) so probing never crowds
// out the subnet manager. A MAD with no answer within timeout_ms, or handed back by the
// kernel (or ibsim) with a non-zero umad status, is lost.
//
// Planning, statistics and the token bucket are pure (prober_plan.cpp, unit-testable);
// the umad I/O is in prober.cpp. Results are route observations (ingest/observation.h), every
// one marked roundtrip: both kinds of probe cross their route out and back.
// Not thread-safe; one Prober per thread. SMP agents are registered only while a round
// runs, under the process's MadLocks::smp (fabric/smp_port.h, given to open()).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fabric/model.h"
#include "fabric/smp_port.h"
#include "ingest/clock.h"
#include "ingest/observation.h"

namespace ibw::ingest {

struct ProbeOptions {
  std::string ca;               // umad CA; empty = first
  int ca_port = 0;              // 0 = first active
  unsigned count = 10;          // MADs per target per round
  unsigned timeout_ms = 50;     // per MAD; no retries
  unsigned max_in_flight = 16;  // outstanding MADs
  unsigned max_rate = 2000;     // MADs per second
};

// The port the prober sends from, as it identified itself.
struct Vantage {
  uint16_t lid = 0;
  uint64_t node_guid = 0;
  int port = 0;  // the local port number (0 on a switch)
};

// One end of a link in the fabric model.
struct LinkEnd {
  uint32_t node = fabric::kNoNode;
  int port = 0;
  bool operator==(const LinkEnd&) const = default;
};

// A LID-routed probe target.
struct LidTarget {
  uint16_t lid = 0;
  uint64_t node_guid = 0;  // checked against the NodeInfo answer
};

// A directed-route probe: out ports from the local node (smpquery -D without the leading 0),
// the last one being `link.near` 's port; the node reached is `far`.
struct DrTarget {
  std::vector<uint8_t> route;
  LinkEnd near, far;
  uint64_t far_guid = 0;  // checked against the NodeInfo answer
  std::string dst;        // "0xGUID" (switch) or "0xGUID/port" (CA)
};

struct DrPlan {
  std::vector<DrTarget> targets;
  std::vector<LinkEnd> unreachable;  // links (one end) with no directed route from here
};

// --- Pure planning ---------------------------------------------------------------------

// Every link whose both ends are present and not known to be non-Active (state 0, unknown,
// counts as usable: ibnetdiscover files carry no state), once, as its lower end.
std::vector<LinkEnd> fabric_links(const fabric::Fabric& fabric);
// Every switch's LID and every CA port's LID (linked ports), once each, except `local_lid`.
std::vector<LidTarget> plan_lid_targets(const fabric::Fabric& fabric, uint16_t local_lid);
// Directed routes for `links` (each given by either end) from the local node, which sends
// out of `local_port` when it is a CA. Throws std::invalid_argument when local_node is not
// in the model or a link end has no peer.
DrPlan plan_link_probes(const fabric::Fabric& fabric, uint32_t local_node, int local_port,
                        const std::vector<LinkEnd>& links);

// Token bucket: `rate` tokens per second, at most `burst`; starts full.
class TokenBucket {
 public:
  TokenBucket(double rate, double burst, int64_t now_us);
  bool take(int64_t now_us);              // one token, if there is one
  int64_t wait_us(int64_t now_us) const;  // until the next token (0: available now)

 private:
  void refill(int64_t now_us) const;
  double rate_, burst_;
  mutable double tokens_;
  mutable int64_t last_us_;
};

// Nearest-rank percentile (q in [0,1]) of the values; nullopt when empty. Sorts in place.
std::optional<double> percentile(std::vector<double>& values, double q);

// --- The prober --------------------------------------------------------------------------

struct ProbeStats {
  int64_t started_us = 0;   // the injected clock at the start of the round
  int64_t duration_us = 0;  // steady clock
  uint64_t targets = 0;
  uint64_t mads_sent = 0;
  uint64_t lost = 0;
  uint64_t mismatched = 0;       // answered by a node other than the model's (not loss)
  unsigned max_outstanding = 0;  // most MADs in flight at once
};

struct ProbeRound {
  std::vector<Observation> observations;  // one per target, in target order
  ProbeStats stats;
  std::vector<std::string> warnings;  // mismatched answers, links that could not be probed
};

class Prober {
 public:
  // Opens the local umad port (under locks.umad) and identifies it (LID, node GUID); throws
  // std::runtime_error naming the CA and port on failure. `locks` must outlive the prober.
  static std::unique_ptr<Prober> open(fabric::MadLocks& locks, const ProbeOptions& options,
                                      const Clock& clock);
  virtual ~Prober() = default;

  virtual const Vantage& vantage() const = 0;
  // LID-routed probes; observations src = local LID, dst = target LID, routing static.
  virtual ProbeRound probe_lids(const std::vector<LidTarget>& targets) = 0;
  // Directed-route probes; observations routing directed, path {0, route...}.
  virtual ProbeRound probe_routes(const std::vector<DrTarget>& targets) = 0;
};

// A full round: every LID, then every link of the fabric except `skip` (links given by either
// end: those ibwarden disabled, which the discovered fabric may still show up).
ProbeRound probe_fabric(Prober& prober, const fabric::Fabric& fabric,
                        const std::vector<LinkEnd>& skip = {});
// Guided probes: only the given links (either end), directed-route.
ProbeRound probe_links(Prober& prober, const fabric::Fabric& fabric,
                       const std::vector<LinkEnd>& links);

}  // namespace ibw::ingest
