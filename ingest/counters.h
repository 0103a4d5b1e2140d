// Port counter vocabulary shared by the MAD poller, the store, the query commands and later
// the rules: which counters exist, how wide the classic PortCounters field is (it saturates
// at its maximum instead of wrapping), and what one sample of one port holds.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ibw::ingest {

enum class Counter : uint8_t {
  SymbolErrorCounter,
  LinkErrorRecoveryCounter,
  LinkDownedCounter,
  PortRcvErrors,
  PortRcvRemotePhysicalErrors,
  PortRcvSwitchRelayErrors,
  PortXmitDiscards,
  PortXmitConstraintErrors,
  PortRcvConstraintErrors,
  LocalLinkIntegrityErrors,
  ExcessiveBufferOverrunErrors,
  VL15Dropped,
  PortXmitData,  // units of 4 octets
  PortRcvData,
  PortXmitPkts,
  PortRcvPkts,
  PortXmitWait,
};
inline constexpr size_t kCounterCount = 17;

// "SymbolErrorCounter" etc. (the IBA / perfquery names; JSON keys use them too).
std::string_view counter_name(Counter c);
std::optional<Counter> parse_counter(std::string_view name);
// Width in bits of the classic PortCounters (0x12) field: 4, 8, 16 or 32.
int classic_width_bits(Counter c);
// True for error counters (everything but data, packets and XmitWait).
bool is_error_counter(Counter c);

// One reading of one port.
struct CounterSample {
  int64_t time_us = 0;
  uint64_t node_guid = 0;
  int port = 0;
  std::array<uint64_t, kCounterCount> value{};
  uint32_t valid = 0;      // bit i set when counter i was read
  uint32_t saturated = 0;  // bit i set when counter i sat at its classic maximum ("at least")
  bool extended = false;   // 64-bit PortCountersExtended values were used where available

  bool has(Counter c) const { return valid & (1u << static_cast<unsigned>(c)); }
  uint64_t get(Counter c) const { return value[static_cast<size_t>(c)]; }
};

}  // namespace ibw::ingest
