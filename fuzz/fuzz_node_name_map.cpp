// Feeds node-name-map files (infiniband-diags format: `0xGUID "name"` per line) to
// fabric::parse_node_name_map. Bad input must end in fabric::InputError, nothing else.
#include <cstddef>
#include <cstdint>

#include "fabric/diagnostics.h"
#include "fabric/node_name_map.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibw::fabric;
  try {
    NodeNameMap map = parse_node_name_map(ibw::fuzz::as_text(data, size), "fuzz-node-name-map");
    (void)map;
  } catch (const InputError&) {
  }
  return 0;
}
