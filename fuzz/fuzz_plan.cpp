// Feeds cabling plans to every plan parser: fabric::parse_plan_csv, parse_plan_yaml and
// parse_plan_ndt directly (so each grammar sees every input), and parse_plan (format
// detection by content). Bad input must end in fabric::InputError, nothing else.
// Differential: wherever the fast block-style YAML scanner reads a text itself, its plan or
// its diagnostics must be exactly yaml-cpp's (plan_yaml::parse_fast vs parse_full).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fabric/diagnostics.h"
#include "fabric/plan.h"
#include "fabric/plan_yaml_builder.h"
#include "fuzz/fuzz_util.h"

namespace {

void check(const ibw::fabric::Plan& p) {
  // finish_plan's invariant: every end names an interned node.
  for (const auto& l : p.links)
    if (l.a.node_id >= p.nodes.size() || l.b.node_id >= p.nodes.size()) __builtin_trap();
}

template <typename Parse>
void feed(Parse parse, std::string_view text) {
  try {
    check(parse(text, "fuzz-plan"));
  } catch (const ibw::fabric::InputError&) {
  }
}

// Every field of every link and node, or every diagnostic.
std::string describe(const ibw::fabric::Plan& p) {
  std::string out;
  for (const auto& l : p.links) {
    for (const std::string* s :
         {&l.cable_id, &l.a.node, &l.a.location, &l.b.node, &l.b.location, &l.kind})
      out += *s + "|";
    for (double v :
         {double(l.a.port), double(l.b.port), l.length_m, double(static_cast<int>(l.speed)),
          double(l.width), double(l.line), double(l.a.node_id), double(l.b.node_id)})
      out += std::to_string(v) + "|";
    out += "\n";
  }
  for (const auto& n : p.nodes) out += n + "\n";
  return out;
}

std::string describe(const ibw::fabric::InputError& e) {
  std::string out = "error\n";
  for (const auto& d : e.diagnostics()) out += ibw::fabric::format_diagnostic(d) + "\n";
  return out;
}

void differential(std::string_view text) {
  namespace py = ibw::fabric::plan_yaml;
  std::string fast;
  try {
    auto p = py::parse_fast(text, "fuzz-plan");
    if (!p) return;  // left to yaml-cpp
    check(*p);
    fast = describe(*p);
  } catch (const ibw::fabric::InputError& e) {
    fast = describe(e);
  }
  std::string full;
  try {
    full = describe(py::parse_full(text, "fuzz-plan"));
  } catch (const ibw::fabric::InputError& e) {
    full = describe(e);
  }
  if (fast != full) __builtin_trap();
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
  differential(text);
  return 0;
}
