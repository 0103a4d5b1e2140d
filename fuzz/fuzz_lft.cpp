// Feeds LFT dumps (OpenSM's opensm-lfts.dump, `ibroute` and `dump_fts` output, with or
// without -a / -n) to fabric::parse_lft_dump, then checks every table it returns: keyed by
// its own GUID, at most 65,536 LIDs, equal to itself. Bad input must end in
// fabric::InputError, nothing else.
#include <cstddef>
#include <cstdint>

#include "fabric/diagnostics.h"
#include "fabric/routing.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibw::fabric;
  try {
    RoutingTables t = parse_lft_dump(ibw::fuzz::as_text(data, size), "fuzz-lfts.dump");
    for (const auto& [guid, lft] : t.by_switch) {
      if (lft.switch_guid != guid || !same_routes(lft, lft)) __builtin_trap();
      if (lft.out_port.size() > 0x10000) __builtin_trap();  // LIDs are 16 bits
      if (lft.port_for(0xffff) != kNoLftEntry && lft.out_port.size() <= 0xffff) __builtin_trap();
    }
  } catch (const InputError&) {
  }
  return 0;
}
