#include "fabric/port_info.h"

#include <infiniband/mad.h>

#include "fabric/speed.h"

namespace ibw::fabric {

void decode_port_info(Port& out, const uint8_t* info, const uint8_t* mlnx_ext, bool ext_speeds) {
  auto* in = const_cast<uint8_t*>(info);  // libibmad's getters take non-const buffers
  auto* ext = const_cast<uint8_t*>(mlnx_ext);
  out.present = true;
  out.state = static_cast<uint8_t>(mad_get_field(in, 0, IB_PORT_STATE_F));
  out.phys_state = static_cast<uint8_t>(mad_get_field(in, 0, IB_PORT_PHYS_STATE_F));
  out.width_active = static_cast<uint8_t>(
      width_from_portinfo_bit(mad_get_field(in, 0, IB_PORT_LINK_WIDTH_ACTIVE_F)));
  out.width_enabled =
      static_cast<uint8_t>(max_width_in_mask(mad_get_field(in, 0, IB_PORT_LINK_WIDTH_ENABLED_F)));
  out.width_supported =
      static_cast<uint8_t>(max_width_in_mask(mad_get_field(in, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F)));
  uint32_t ext_active = 0, ext_enabled = 0, ext_supported = 0;
  if (ext_speeds) {
    ext_active = mad_get_field(in, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
    ext_enabled = mad_get_field(in, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
    ext_supported = mad_get_field(in, 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F);
  }
  bool fdr10_active = ext && (mad_get_field(ext, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F) & 1);
  bool fdr10_enabled = ext && (mad_get_field(ext, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F) & 1);
  bool fdr10_supported =
      ext && (mad_get_field(ext, 0, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F) & 1);
  out.speed_active = speed_from_portinfo(mad_get_field(in, 0, IB_PORT_LINK_SPEED_ACTIVE_F),
                                         ext_active, fdr10_active);
  out.speed_enabled = max_speed_in_masks(mad_get_field(in, 0, IB_PORT_LINK_SPEED_ENABLED_F),
                                         ext_enabled, fdr10_enabled);
  out.speed_supported = max_speed_in_masks(mad_get_field(in, 0, IB_PORT_LINK_SPEED_SUPPORTED_F),
                                           ext_supported, fdr10_supported);
}

}  // namespace ibw::fabric
