// PortInfo decoding shared by every loader that reads raw SMP answers (libibnetdisc's
// discovery and cache in ibnd_loader.cpp, the re-asked ports of link_recovery.cpp): state,
// physical state, and the active/enabled/supported width and speed of one port.
#pragma once

#include <cstdint>

#include "fabric/model.h"

namespace ibw::fabric {

inline constexpr uint8_t kPortActive = 4;  // PortInfo.PortState Active
inline constexpr uint8_t kPhysLinkUp = 5;  // PortInfo.PortPhysicalState LinkUp

// PortInfo.CapabilityMask.IsExtendedSpeedsSupported: set on a switch's port 0 (for all its
// ports) or on a CA's own port.
inline constexpr uint32_t kCapHasExtSpeeds = 0x4000;

// Fills `out` (present, state, phys_state, widths, speeds) from a PortInfo attribute.
// `mlnx_ext` is the Mellanox ExtendedPortInfo (FDR10 bits) or null when not read;
// `ext_speeds` tells whether the LinkSpeedExt fields are valid (see kCapHasExtSpeeds).
void decode_port_info(Port& out, const uint8_t* info, const uint8_t* mlnx_ext, bool ext_speeds);

}  // namespace ibw::fabric
