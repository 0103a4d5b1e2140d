#include "fabric/sm_info.h"

#include <infiniband/mad.h>

namespace ibw::fabric {

std::string_view sm_state_name(SmState s) {
  switch (s) {
    case SmState::discovering:
      return "discovering";
    case SmState::standby:
      return "standby";
    case SmState::master:
      return "master";
    case SmState::not_active:
      break;
  }
  return "not_active";
}

SmInfo decode_sm_info(const uint8_t* raw, uint16_t lid) {
  auto* p = const_cast<uint8_t*>(raw);  // libibmad's decoders take a non-const buffer
  SmInfo s;
  s.lid = lid;
  mad_decode_field(p, IB_SMINFO_GUID_F, &s.guid);
  uint32_t v = 0;
  mad_decode_field(p, IB_SMINFO_ACT_F, &s.act_count);
  mad_decode_field(p, IB_SMINFO_PRIO_F, &v);
  s.priority = static_cast<uint8_t>(v);
  v = 0;
  mad_decode_field(p, IB_SMINFO_STATE_F, &v);
  s.state = static_cast<SmState>(v & 0xF);
  return s;
}

PortSmFields decode_port_sm_fields(const uint8_t* raw) {
  auto* p = const_cast<uint8_t*>(raw);
  PortSmFields f;
  uint32_t v = 0;
  mad_decode_field(p, IB_PORT_SMLID_F, &v);
  f.master_sm_lid = static_cast<uint16_t>(v);
  v = 0;
  mad_decode_field(p, IB_PORT_CAPMASK_F, &v);
  f.is_sm = (v & kCapIsSm) != 0;
  return f;
}

SmQuerier::SmQuerier(MadLocks& locks, const std::string& ca, int ca_port, unsigned timeout_ms,
                     unsigned retries)
    : hold_(locks.smp),
      port_(open_smp_port(locks, ca, ca_port, timeout_ms)),
      timeout_ms_(timeout_ms) {
  mad_rpc_set_retries(port_.get(), static_cast<int>(retries) + 1);
}

std::optional<SmInfo> SmQuerier::sm_info(uint16_t lid) {
  uint8_t buf[IB_SMP_DATA_SIZE] = {};
  ib_portid_t id{};
  id.lid = lid;
  if (!smp_query_via(buf, &id, IB_ATTR_SMINFO, 0, timeout_ms_, port_.get())) return std::nullopt;
  return decode_sm_info(buf, lid);
}

std::optional<PortSmFields> SmQuerier::port_fields(uint16_t lid, int port) {
  uint8_t buf[IB_SMP_DATA_SIZE] = {};
  ib_portid_t id{};
  id.lid = lid;  // 0: directed route with no hops, the local port
  if (!smp_query_via(buf, &id, IB_ATTR_PORT_INFO, static_cast<unsigned>(port), timeout_ms_,
                     port_.get()))
    return std::nullopt;
  return decode_port_sm_fields(buf);
}

std::optional<std::string> no_master_reason(MadLocks& locks, const std::string& ca, int ca_port,
                                            unsigned timeout_ms, int tries) {
  int port = local_port(locks, ca, ca_port).port;
  std::string why = "the local port cannot be read";
  for (int i = 0; i < tries; ++i) {
    SmQuerier q(locks, ca, ca_port, timeout_ms, 1);
    auto f = q.port_fields(0, port);
    if (!f) continue;
    if (!f->master_sm_lid) {
      why = "the local port knows no SM (MasterSMLID 0)";
      continue;
    }
    auto info = q.sm_info(f->master_sm_lid);
    if (info && info->state == SmState::master) return std::nullopt;
    why = "the SM at MasterSMLID " + std::to_string(f->master_sm_lid) +
          (info ? " is " + std::string(sm_state_name(info->state)) + ", not master"
                : " does not answer SMInfo");
  }
  return why;
}

}  // namespace ibw::fabric
