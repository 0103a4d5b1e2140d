// Decoding of Performance Management attribute data for the counter poller: ClassPortInfo
// capability bits, PortCounters (0x12) and PortCountersExtended (0x1D), with libibmad's field
// tables (IB_PC_*, IB_PC_EXT_*, IB_CPI_*). Pure functions: no I/O.
#include <infiniband/mad.h>

#include "ingest/counter_poller.h"

namespace ibw::ingest {
namespace poller_detail {

enum class ExtGroup : uint8_t { data, errors };

struct FieldMap {
  Counter counter;
  MAD_FIELDS classic;  // PortCounters field (4 to 32 bits, saturating)
  MAD_FIELDS ext;      // PortCountersExtended field (64 bits)
  ExtGroup group;      // data: needs extended(); errors: needs extended_errors()
};

constexpr FieldMap kPollerFields[] = {
    {Counter::SymbolErrorCounter, IB_PC_ERR_SYM_F, IB_PC_EXT_ERR_SYM_F, ExtGroup::errors},
    {Counter::LinkErrorRecoveryCounter, IB_PC_LINK_RECOVERS_F, IB_PC_EXT_LINK_RECOVERS_F,
     ExtGroup::errors},
    {Counter::LinkDownedCounter, IB_PC_LINK_DOWNED_F, IB_PC_EXT_LINK_DOWNED_F, ExtGroup::errors},
    {Counter::PortRcvErrors, IB_PC_ERR_RCV_F, IB_PC_EXT_ERR_RCV_F, ExtGroup::errors},
    {Counter::PortRcvRemotePhysicalErrors, IB_PC_ERR_PHYSRCV_F, IB_PC_EXT_ERR_PHYSRCV_F,
     ExtGroup::errors},
    {Counter::PortRcvSwitchRelayErrors, IB_PC_ERR_SWITCH_REL_F, IB_PC_EXT_ERR_SWITCH_REL_F,
     ExtGroup::errors},
    {Counter::PortXmitDiscards, IB_PC_XMT_DISCARDS_F, IB_PC_EXT_XMT_DISCARDS_F, ExtGroup::errors},
    {Counter::PortXmitConstraintErrors, IB_PC_ERR_XMTCONSTR_F, IB_PC_EXT_ERR_XMTCONSTR_F,
     ExtGroup::errors},
    {Counter::PortRcvConstraintErrors, IB_PC_ERR_RCVCONSTR_F, IB_PC_EXT_ERR_RCVCONSTR_F,
     ExtGroup::errors},
    {Counter::LocalLinkIntegrityErrors, IB_PC_ERR_LOCALINTEG_F, IB_PC_EXT_ERR_LOCALINTEG_F,
     ExtGroup::errors},
    {Counter::ExcessiveBufferOverrunErrors, IB_PC_ERR_EXCESS_OVR_F, IB_PC_EXT_ERR_EXCESS_OVR_F,
     ExtGroup::errors},
    {Counter::VL15Dropped, IB_PC_VL15_DROPPED_F, IB_PC_EXT_VL15_DROPPED_F, ExtGroup::errors},
    {Counter::PortXmitData, IB_PC_XMT_BYTES_F, IB_PC_EXT_XMT_BYTES_F, ExtGroup::data},
    {Counter::PortRcvData, IB_PC_RCV_BYTES_F, IB_PC_EXT_RCV_BYTES_F, ExtGroup::data},
    {Counter::PortXmitPkts, IB_PC_XMT_PKTS_F, IB_PC_EXT_XMT_PKTS_F, ExtGroup::data},
    {Counter::PortRcvPkts, IB_PC_RCV_PKTS_F, IB_PC_EXT_RCV_PKTS_F, ExtGroup::data},
    {Counter::PortXmitWait, IB_PC_XMT_WAIT_F, IB_PC_EXT_XMT_WAIT_F, ExtGroup::errors},
};
static_assert(sizeof(kPollerFields) / sizeof(kPollerFields[0]) == kCounterCount);

// libibmad takes non-const buffers even to read them.
uint32_t decode32(const uint8_t* data, MAD_FIELDS field) {
  uint32_t v = 0;
  mad_decode_field(const_cast<uint8_t*>(data), field, &v);
  return v;
}

uint64_t decode64(const uint8_t* data, MAD_FIELDS field) {
  uint64_t v = 0;
  mad_decode_field(const_cast<uint8_t*>(data), field, &v);
  return v;
}

}  // namespace poller_detail

PmaCapabilities decode_class_port_info(const uint8_t* data) {
  PmaCapabilities caps;
  caps.mask = static_cast<uint16_t>(poller_detail::decode32(data, IB_CPI_CAPMASK_F));
  caps.mask2 = poller_detail::decode32(data, IB_CPI_CAPMASK2_F);
  return caps;
}

CounterSample decode_port_counters(const uint8_t* pc, const uint8_t* pce,
                                   const PmaCapabilities& caps) {
  using poller_detail::ExtGroup;
  CounterSample s;
  s.extended = pce != nullptr;
  for (const auto& f : poller_detail::kPollerFields) {
    auto i = static_cast<unsigned>(f.counter);
    bool wide = pce && (f.group == ExtGroup::data ? caps.extended() : caps.extended_errors());
    if (wide) {
      s.value[i] = poller_detail::decode64(pce, f.ext);
    } else {
      if (f.counter == Counter::PortXmitWait && !caps.xmit_wait()) continue;
      uint64_t v = poller_detail::decode32(pc, f.classic);
      int bits = classic_width_bits(f.counter);
      uint64_t max = bits >= 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
      s.value[i] = v;
      if (v >= max) s.saturated |= 1u << i;
    }
    s.valid |= 1u << i;
  }
  return s;
}

}  // namespace ibw::ingest
