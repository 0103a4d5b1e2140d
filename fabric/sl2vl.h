// SL-to-VL mapping tables (IBA SLtoVLMappingTable, SMP attribute 0x0017): per switch and
// (input port, output port), the virtual lane each service level leaves on. The route check
// (fabric/route_check.h) uses them to build its channel-dependency graph per VL.
//
// Two sources:
//  - OpenSM's opensm-sl2vl.dump in its dump_files_dir. OpenSM writes it (osm_dump.c, function
//    osm_dump_all) beside opensm-lfts.dump when its log flags include ROUTING (-D 0x40 or
//    more) AND either QoS is on (-Q / `qos TRUE`) or the routing engine programs SL2VL itself
//    (an engine with update_sl2vl: dfsssp, lash, torus-2QoS). One block per port GUID:
//      Switch 0x0002c90300000101, base LID 2, "sw1"
//      #in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15
//      #--------------------------------------------------------
//      0   1   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7
//      ...                                      (one row per in port, for each linked out port)
//    CAs and routers get one row "0   0   : ..." (their own port's table); they are parsed and
//    kept apart: a CA's outgoing link never sits in a credit loop (nothing feeds it), so the
//    route check needs the switches' tables only.
//  - live over SMPs (read_sl2vl_live, fabric/routing_live.cpp): attribute modifier
//    (in port << 8) | out port, as `smpquery sl2vl` asks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ibw::fabric {

class Fabric;
struct MadLocks;

// One switch's tables: 16 VLs (4 bits each, SL s at bits 4s..4s+3) per (in, out) port pair.
struct SwitchSl2Vl {
  int max_port = 0;              // pairs are kept for ports 0..max_port
  std::vector<uint64_t> packed;  // index in * (max_port + 1) + out
  std::vector<uint8_t> known;    // 1 where the source gave the pair

  void set(int in, int out, uint64_t vls);
  bool has(int in, int out) const {
    return in <= max_port && out <= max_port && known[index(in, out)];
  }
  // The VL of service level sl entering at `in` and leaving at `out`; 0 for a pair not given.
  uint8_t vl(int in, int out, int sl) const {
    return has(in, out) ? static_cast<uint8_t>((packed[index(in, out)] >> (4 * sl)) & 0xf) : 0;
  }

 private:
  size_t index(int in, int out) const {
    return static_cast<size_t>(in) * static_cast<size_t>(max_port + 1) + static_cast<size_t>(out);
  }
  void grow(int max_port);
};

struct Sl2VlTables {
  std::unordered_map<uint64_t, SwitchSl2Vl> by_switch;  // key: the switch's (port 0) GUID
  std::unordered_map<uint64_t, uint64_t> by_ca_port;    // CA/router port GUID -> 16 VLs
  std::string source;  // "opensm-sl2vl.dump" or "live"; empty when there are none
  bool empty() const { return by_switch.empty(); }
  const SwitchSl2Vl* find(uint64_t switch_guid) const {
    auto it = by_switch.find(switch_guid);
    return it == by_switch.end() ? nullptr : &it->second;
  }
};

// Pure: parses the text of an opensm-sl2vl.dump. Throws InputError (fabric/diagnostics.h)
// with every problem as file:line: field: message.
Sl2VlTables parse_sl2vl_dump(std::string_view text, const std::string& file);
Sl2VlTables load_sl2vl_dump(const std::string& path);

// Reads every switch's tables over SMPs for the pairs of linked ports (1..N, both ends with
// a peer), addressing switches as read_lfts_live does. A switch that does not answer is left
// out (its hops count as VL 0); `failed` (when given) gets how many were left out. Holds
// locks.smp while its port is open; throws std::runtime_error when the port cannot be opened.
Sl2VlTables read_sl2vl_live(MadLocks& locks, const Fabric& fabric, const std::string& ca = "",
                            int ca_port = 0, size_t* failed = nullptr);

}  // namespace ibw::fabric
