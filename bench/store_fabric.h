// The synthetic fabric of the store benchmarks (bench/store_write.cpp, bench/store_day.cpp):
// switches of kPortsPerNode ports with consecutive GUIDs from kGuidBase, port p of switch n
// cabled to port p of switch n ^ 1; and the seconds since a steady-clock time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "store/store.h"

namespace ibw::bench {

constexpr int kPortsPerNode = 32;
constexpr uint64_t kGuidBase = 0x0002'c903'0040'0000ULL;

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Port record i (port i % kPortsPerNode + 1 of switch i / kPortsPerNode), Active/LinkUp, 4x
// NDR, cable "C<i>"; `name` names a switch by its number.
inline store::PortRecord port_record(size_t i, std::string (*name)(size_t node)) {
  store::PortRecord r;
  const size_t node = i / kPortsPerNode;
  r.node_guid = kGuidBase + node;
  r.port = static_cast<int>(i % kPortsPerNode) + 1;
  r.node = name(node);
  r.lid = static_cast<uint16_t>(node + 1);
  r.peer_guid = kGuidBase + (node ^ 1);
  r.peer_node = name(node ^ 1);
  r.peer_port = r.port;
  r.cable_id = "C" + std::to_string(i);
  r.state = 4;
  r.phys_state = 5;
  r.width = 4;
  r.speed = "NDR";
  return r;
}

}  // namespace ibw::bench
