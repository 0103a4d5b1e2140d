// Feeds health-rule files (rules.yaml) to rules::parse_rules (load, validate, compile).
// Bad input must end in fabric::InputError, nothing else.
#include <cstddef>
#include <cstdint>

#include "fabric/diagnostics.h"
#include "fuzz/fuzz_util.h"
#include "rules/rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    ibw::rules::RuleSet r = ibw::rules::parse_rules(ibw::fuzz::as_text(data, size), "rules.yaml");
    for (const auto& rule : r.rules)
      if (r.find(rule.name) == nullptr) __builtin_trap();
  } catch (const ibw::fabric::InputError&) {
  }
  return 0;
}
