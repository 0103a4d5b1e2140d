// Internal to the YAML plan reader (fabric/plan_yaml*.cpp, their tests and the plan fuzzer).
// A YAML plan is read as a stream of parser events that PlanYamlBuilder turns into PlannedLinks,
// one cable at a time, with the plan's diagnostics. Two front ends feed it the same events:
//  - scan_plan_yaml_block (plan_yaml_block.cpp): a scanner for the plain block-style YAML that
//    plans are written in (and ibw-labgen writes), >20x faster than yaml-cpp; it gives up
//    (returns false) on anything else: flow style, anchors, tags, multi-line scalars, escapes;
//  - yaml-cpp's event parser (plan_yaml.cpp), which reads all of YAML.
// parse_plan_yaml tries the first and falls back to the second from scratch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fabric/diagnostics.h"
#include "fabric/plan.h"

namespace ibw::fabric::plan_yaml {

// A node's start (scalar, null, sequence, map) or the end of the innermost open collection.
enum class Ev : uint8_t { scalar, null, seq, map, end };

// Builds a Plan from the events of the first YAML document. The rules are those of the former
// tree-based reader (YAML::Load):
//  - a top-level `cables:` (or `links:`) sequence of maps, or a top-level sequence of maps;
//  - with repeated `cables:`/`links:` keys the last one counts, and top-level key errors come
//    before the cables' errors wherever the keys are;
//  - a null value (`kind:`, `~`) is an empty field (an error for required ones); a null key
//    is called "null", a map or list used as a key "".
class Builder {
 public:
  Builder(Plan& plan, const std::string& file) : plan_(plan), items_(file) {}

  // line: 1-based line of the node's start (unused for Ev::end); value: a scalar's text.
  void event(Ev kind, int line, std::string_view value);
  // After the last event: throws InputError with all diagnostics (the tree reader's order),
  // else leaves the plan finished (finish_plan).
  void finish();

 private:
  // Collections open around the current event; only one item is ever open.
  enum class Frame : uint8_t { top_map, list, item, skip };

  void close();
  void node_done();
  Frame start_list();

  Plan& plan_;
  DiagnosticSink items_;  // diagnostics of the current cables list
  std::vector<std::pair<int, std::string>> top_errors_;
  int root_line_ = 0;  // 0 when there is no document at all
  bool list_ok_ = false;
  std::vector<Frame> stack_;
  bool top_at_value_ = false, top_key_is_list_ = false;
  bool item_at_value_ = false;
  int key_field_ = -1;  // plan_fields index of the current item key; -1 when unknown
  int key_line_ = 0;
  unsigned seen_ = 0;  // bit i: kRequired[i] has a value
  PlannedLink link_;
};

// Feeds the events of text to out when text is plain block-style YAML (see the top of
// plan_yaml_block.cpp); false, with some events already fed, as soon as it is not.
bool scan_plan_yaml_block(std::string_view text, Builder& out);

// The two readers apart, for tests and the fuzzer (parse_plan_yaml is the first, else the
// second). Both throw InputError as parse_plan_yaml does; the fast one returns nullopt when
// the text is not in its subset.
std::optional<Plan> parse_fast(std::string_view text, const std::string& file);
Plan parse_full(std::string_view text, const std::string& file);

}  // namespace ibw::fabric::plan_yaml
