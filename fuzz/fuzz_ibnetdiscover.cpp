// Feeds ibnetdiscover text output (and ibsim net files, same grammar) to
// fabric::parse_ibnetdiscover, then builds display names and the name index as every caller
// does (apply_node_names). Bad input must end in fabric::InputError, nothing else.
#include <cstddef>
#include <cstdint>

#include "fabric/diagnostics.h"
#include "fabric/ibnetdiscover_parser.h"
#include "fabric/node_name_map.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibw::fabric;
  try {
    Fabric f = parse_ibnetdiscover(ibw::fuzz::as_text(data, size), "fuzz.txt");
    apply_node_names(f, nullptr);
  } catch (const InputError&) {
  }
  return 0;
}
