// Feeds cabling plans to every plan parser: fabric::parse_plan_csv, parse_plan_yaml and
// parse_plan_ndt directly (so each grammar sees every input), and parse_plan (format
// detection by content). Bad input must end in fabric::InputError, nothing else.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fabric/diagnostics.h"
#include "fabric/plan.h"
#include "fuzz/fuzz_util.h"

namespace {

template <typename Parse>
void feed(Parse parse, std::string_view text) {
  try {
    ibw::fabric::Plan p = parse(text, "fuzz-plan");
    // finish_plan's invariant: every end names an interned node.
    for (const auto& l : p.links)
      if (l.a.node_id >= p.nodes.size() || l.b.node_id >= p.nodes.size()) __builtin_trap();
  } catch (const ibw::fabric::InputError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibw::fabric;
  std::string_view text = ibw::fuzz::as_text(data, size);
  (void)detect_plan_format(text);
  feed(parse_plan_csv, text);
  feed(parse_plan_yaml, text);
  feed(parse_plan_ndt, text);
  feed(parse_plan, text);
  return 0;
}
