// SMInfo: what a subnet manager says of itself (GUID, priority, state, ActCount), read over
// SMPs by the SM watcher (daemon/sources/sm_watch.cpp), and the PortInfo fields that find the
// SMs: MasterSMLID of the local port and the IsSM capability bit of a CA port.
// decode_sm_info() is pure (tested on raw attributes); SmQuerier sends the SMPs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fabric/smp_port.h"

namespace ibw::fabric {

// SMInfo.SMState (IBA 14.2.5.13).
enum class SmState : uint8_t { not_active = 0, discovering = 1, standby = 2, master = 3 };
std::string_view sm_state_name(SmState s);  // "not_active", "discovering", "standby", "master"

// PortInfo.CapabilityMask.IsSM: the port runs a subnet manager (OpenSM clears it on exit).
inline constexpr uint32_t kCapIsSm = 0x2;

struct SmInfo {
  uint64_t guid = 0;  // the SM's port GUID, host order
  uint16_t lid = 0;   // the LID it was asked at
  uint8_t priority = 0;
  SmState state = SmState::not_active;
  uint32_t act_count = 0;  // ActCount: moves while the SM is alive
};

// Decodes a raw SMInfo attribute (64 bytes, as received); `lid` is the LID it was read from.
SmInfo decode_sm_info(const uint8_t* raw, uint16_t lid);

// The SM-related PortInfo fields of one port.
struct PortSmFields {
  uint16_t master_sm_lid = 0;
  bool is_sm = false;  // CapabilityMask.IsSM
};

// Decodes MasterSMLID and the IsSM bit from a raw PortInfo attribute.
PortSmFields decode_port_sm_fields(const uint8_t* raw);

// Sends SMInfo and PortInfo queries from the local port. Holds locks.smp for its life (one
// SMP agent registration per port and process): make one per poll and drop it after.
class SmQuerier {
 public:
  // timeout_ms per MAD; retries: extra tries of an unanswered MAD. Throws std::runtime_error
  // when the local port cannot be opened.
  SmQuerier(MadLocks& locks, const std::string& ca, int ca_port, unsigned timeout_ms,
            unsigned retries);
  // SMInfo of the SM at `lid`; nullopt when it does not answer.
  std::optional<SmInfo> sm_info(uint16_t lid);
  // PortInfo SM fields of port `port` of the node at `lid` (lid 0: the local port, by an empty
  // directed route); nullopt when it does not answer.
  std::optional<PortSmFields> port_fields(uint16_t lid, int port);

 private:
  std::lock_guard<std::mutex> hold_;
  SmpPort port_;
  unsigned timeout_ms_;
};

// One look for a master SM from the local port (the manual `ibwarden disable`): MasterSMLID
// of the local port, then its SMInfo, up to `tries` times. nullopt when a master answers; else
// why not ("MasterSMLID 1 does not answer SMInfo", ...). Throws when the port cannot be opened.
std::optional<std::string> no_master_reason(MadLocks& locks, const std::string& ca, int ca_port,
                                            unsigned timeout_ms, int tries);

}  // namespace ibw::fabric
