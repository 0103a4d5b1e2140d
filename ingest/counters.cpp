#include "ingest/counters.h"

namespace ibw::ingest {
namespace {
struct Info {
  std::string_view name;
  int bits;
  bool error;
};
constexpr std::array<Info, kCounterCount> kInfo{{
    {"SymbolErrorCounter", 16, true},
    {"LinkErrorRecoveryCounter", 8, true},
    {"LinkDownedCounter", 8, true},
    {"PortRcvErrors", 16, true},
    {"PortRcvRemotePhysicalErrors", 16, true},
    {"PortRcvSwitchRelayErrors", 16, true},
    {"PortXmitDiscards", 16, true},
    {"PortXmitConstraintErrors", 8, true},
    {"PortRcvConstraintErrors", 8, true},
    {"LocalLinkIntegrityErrors", 4, true},
    {"ExcessiveBufferOverrunErrors", 4, true},
    {"VL15Dropped", 16, true},
    {"PortXmitData", 32, false},
    {"PortRcvData", 32, false},
    {"PortXmitPkts", 32, false},
    {"PortRcvPkts", 32, false},
    {"PortXmitWait", 32, false},
}};
}  // namespace

std::string_view counter_name(Counter c) {
  return kInfo[static_cast<size_t>(c)].name;
}
int classic_width_bits(Counter c) {
  return kInfo[static_cast<size_t>(c)].bits;
}
bool is_error_counter(Counter c) {
  return kInfo[static_cast<size_t>(c)].error;
}

std::optional<Counter> parse_counter(std::string_view name) {
  for (size_t i = 0; i < kCounterCount; ++i)
    if (kInfo[i].name == name) return static_cast<Counter>(i);
  return std::nullopt;
}

}  // namespace ibw::ingest
