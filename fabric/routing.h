// Routing tables: the unicast linear forwarding tables (LFTs) of every switch, from
// OpenSM's `opensm-lfts.dump`, from `ibroute` / `dump_fts` output (one parser reads both, as
// OpenSM's file routing engine does) or read live over SMPs. With the fabric model they
// answer "trace the path from LID a to LID b" and "which (source, destination) LID pairs
// cross port X". Static routing only: adaptive-routing groups come later.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fabric/model.h"

namespace ibw::fabric {

// One switch's LFT: out_port[lid] (0xff = no entry).
struct Lft {
  uint64_t switch_guid = 0;
  uint16_t switch_lid = 0;
  std::vector<uint8_t> out_port;
};

struct RoutingTables {
  std::unordered_map<uint64_t, Lft> by_switch;  // key: switch node GUID
};

// Pure parser for opensm-lfts.dump and ibroute/dump_fts text; throws InputError with
// file:line on malformed lines.
RoutingTables parse_lft_dump(std::string_view text, const std::string& file);
RoutingTables load_lft_dump(const std::string& path);

// Reads every switch's LFT over SMPs (LinearForwardingTable, 64 LIDs per block) from the
// local port. Throws std::runtime_error on failure.
RoutingTables read_lfts_live(const Fabric& fabric, const std::string& ca = "", int ca_port = 0);

struct Hop {
  uint32_t node = kNoNode;  // index in the fabric
  int in_port = 0;          // 0 at the source
  int out_port = 0;         // 0 at the destination
};

struct PathResult {
  std::vector<Hop> hops;  // source CA/switch ... destination
  std::string error;      // non-empty when the route is broken (no entry, loop, down link)
};

// Index from LID to (node, port) built from the fabric model.
class LidIndex {
 public:
  explicit LidIndex(const Fabric& fabric);
  std::optional<std::pair<uint32_t, int>> find(uint16_t lid) const;
  const std::vector<uint16_t>& lids() const { return lids_; }  // every assigned LID, sorted

 private:
  std::unordered_map<uint16_t, std::pair<uint32_t, int>> by_lid_;
  std::vector<uint16_t> lids_;
};

PathResult trace_path(const Fabric& fabric, const RoutingTables& tables, const LidIndex& lids,
                      uint16_t src_lid, uint16_t dst_lid);

// Every (source LID, destination LID) pair whose path uses the link at port (node, port), in
// either direction (out of that port, or in through it), for sources and destinations among
// CA LIDs (and switch LIDs when include_switches).
std::vector<std::pair<uint16_t, uint16_t>> pairs_crossing(const Fabric& fabric,
                                                          const RoutingTables& tables,
                                                          const LidIndex& lids, uint32_t node,
                                                          int port,
                                                          bool include_switches = false);

}  // namespace ibw::fabric
