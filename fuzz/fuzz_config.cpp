// Feeds daemon configuration YAML (ibwarden.yaml) to config::parse_config. The file name sits
// in a directory that does not exist, so relative paths in the text resolve to nothing.
// Bad input must end in fabric::InputError, nothing else.
#include <cstddef>
#include <cstdint>

#include "config/config.h"
#include "fabric/diagnostics.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    ibw::config::Config c =
        ibw::config::parse_config(ibw::fuzz::as_text(data, size), "/nonexistent/ibwarden.yaml");
    (void)c;
  } catch (const ibw::fabric::InputError&) {
  }
  return 0;
}
