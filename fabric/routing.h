// Routing tables: the unicast linear forwarding tables (LFTs) of every switch, from
// OpenSM's `opensm-lfts.dump`, from `ibroute` / `dump_fts` output (one parser reads both, as
// OpenSM's file routing engine does) or read live over SMPs. With the fabric model they
// answer "trace the path from LID a to LID b" (as `ibtracert` does) and "which (source,
// destination) LID pairs cross port X". Static routing only: adaptive-routing groups come
// later. LMC 0 only: extra LIDs of an LMC > 0 port are not in the LidIndex, so paths to them
// report an unknown LID.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fabric/model.h"

namespace ibw::fabric {

struct MadLocks;  // fabric/smp_port.h

inline constexpr uint8_t kNoLftEntry = 0xff;  // LFT value for "no route to this LID"
inline constexpr int kMaxPathHops = 64;       // trace_path gives up (routing loop) beyond

// One switch's LFT: out_port[lid] (kNoLftEntry = no entry). Its size is the top of the table
// plus one: the header's last LID for dumps, LinearFDBTop + 1 when read live.
struct Lft {
  uint64_t switch_guid = 0;
  uint16_t switch_lid = 0;  // 0 when the source did not say (dump_fts by directed route)
  std::vector<uint8_t> out_port;

  // The out port for lid; kNoLftEntry beyond the table.
  uint8_t port_for(uint16_t lid) const {
    return lid < out_port.size() ? out_port[lid] : kNoLftEntry;
  }
};

struct RoutingTables {
  std::unordered_map<uint64_t, Lft> by_switch;  // key: switch node GUID

  const Lft* find(uint64_t switch_guid) const {
    auto it = by_switch.find(switch_guid);
    return it == by_switch.end() ? nullptr : &it->second;
  }
};

// True when both tables route every LID the same way (a LID beyond a table's end counts as
// kNoLftEntry, so a longer table padded with "no entry" still matches).
bool same_routes(const Lft& a, const Lft& b);

// Pure parser for opensm-lfts.dump and ibroute/dump_fts text (with or without -a / -n);
// switches are keyed by the `guid 0x...` of their header line. Blank lines, `#` comments,
// column titles and `N lids dumped` footers are skipped. Throws InputError listing every
// malformed line as file:line: field: message (a bad header or row, a LID outside the
// header's range or listed twice, a switch listed twice, a multicast table).
RoutingTables parse_lft_dump(std::string_view text, const std::string& file);
RoutingTables load_lft_dump(const std::string& path);

// Reads every switch's LFT over SMPs from the local port (umad CA name, port; empty/0 = the
// first): SwitchInfo for LinearFDBTop, then LinearForwardingTable blocks of 64 LIDs. A switch
// is addressed by its LID after NodeInfo confirms the GUID, else by a directed route found
// in the fabric model from the local node. Throws std::runtime_error naming the switches
// that could not be read (after trying all of them), or when the port cannot be opened.
// Holds locks.smp (fabric/smp_port.h) while its port is open.
RoutingTables read_lfts_live(MadLocks& locks, const Fabric& fabric, const std::string& ca = "",
                             int ca_port = 0);

struct Hop {
  uint32_t node = kNoNode;  // index in the fabric
  int in_port = 0;          // 0 at the source
  int out_port = 0;         // 0 at the destination, and at a hop with no usable entry
  bool operator==(const Hop&) const = default;
};

struct PathResult {
  std::vector<Hop> hops;  // source CA/switch ... destination; on error, up to the failure
  std::string error;      // non-empty when the route is broken (no entry, loop, down link)
  bool ok() const { return error.empty(); }
};

// Index from LID to (node, port) built from the fabric model: a switch's LID (Port::lid of
// port 0, or of any port) maps to (switch, 0); a CA or router port's LID to (node, port).
// When two ports claim one LID the first node in the fabric keeps it.
class LidIndex {
 public:
  explicit LidIndex(const Fabric& fabric);
  std::optional<std::pair<uint32_t, int>> find(uint16_t lid) const;
  const std::vector<uint16_t>& lids() const { return lids_; }  // every assigned LID, sorted

 private:
  std::vector<std::pair<uint32_t, int>> by_lid_;  // dense, index = LID; node kNoNode = none
  std::vector<uint16_t> lids_;
};

// Follows the LFTs from src_lid to dst_lid as ibtracert does: a CA or router source steps
// out of its port; each switch forwards through out_port = LFT[dst_lid] to the peer of that
// port; the trace ends at the switch owning dst_lid, or at the CA port owning it. Errors
// (PathResult::error, hops kept up to the failure): unknown LID, switch without an LFT, no
// entry (or port 0, or a port above the switch's ports) for dst_lid, an out port without a
// link or whose link is not Active (when the model knows the state), a path reaching another
// CA, more than kMaxPathHops hops (a routing loop).
PathResult trace_path(const Fabric& fabric, const RoutingTables& tables, const LidIndex& lids,
                      uint16_t src_lid, uint16_t dst_lid);

// Every (source LID, destination LID) pair, sorted, whose trace_path hops use the link at
// port (node, port) in either direction: a hop leaving through that port, or leaving through
// its peer port (entering through this one). Sources and destinations are the LIDs of CA and
// router ports, plus switch LIDs when include_switches. A route that breaks counts up to
// where it breaks, exactly as trace_path reports its hops: so for a port whose link is down,
// the result is the pairs routed into the dead port.
//
// Cost: O(D * (S + E)) time and O(S) extra memory, for D destination LIDs, S switches and E
// source LIDs; no pair is traced. Per destination, the LFTs form a functional graph over the
// switches (each switch has one next switch), so one memoised walk gives each switch's number
// of hops until the path first uses the link (cycles detected on the walk); each source then
// costs O(1). For 1,024 hosts on 48 switches that is ~1.2M steps.
std::vector<std::pair<uint16_t, uint16_t>> pairs_crossing(const Fabric& fabric,
                                                          const RoutingTables& tables,
                                                          const LidIndex& lids, uint32_t node,
                                                          int port, bool include_switches = false);

// "node0001 mlx5_0/1 -> leaf001/1 leaf001/5 -> spine001/1 ..." for logs and reports; the
// error, if any, follows after "; ".
std::string format_path(const Fabric& fabric, const PathResult& path);

}  // namespace ibw::fabric
