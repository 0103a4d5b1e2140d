// Field-level parsing shared by the CSV and YAML plan readers: one column/key name maps to
// one PlannedLink member with one validation rule.
#pragma once

#include <iterator>
#include <string>
#include <string_view>

#include "fabric/diagnostics.h"
#include "fabric/plan.h"

namespace ibw::fabric::plan_fields {

inline constexpr std::string_view kRequired[] = {"cable_id", "a_node", "a_port", "b_node",
                                                 "b_port"};
inline constexpr std::string_view kOptional[] = {"kind",     "a_location", "b_location",
                                                 "length_m", "speed",      "width"};
inline constexpr int kNumRequired = std::size(kRequired);
inline constexpr int kNumOptional = std::size(kOptional);

bool is_known(std::string_view column);
// Index of column in kRequired then kOptional (0-10); -1 when unknown.
int index_of(std::string_view column);
inline std::string_view name_of(int index) {
  return index < kNumRequired ? kRequired[index] : kOptional[index - kNumRequired];
}
bool is_required(std::string_view column);
// "cable_id, a_node, ..., width" for error messages.
std::string known_list();

// Stores value into link's member for column; reports a bad value to sink at line.
void set_field(PlannedLink& link, std::string_view column, std::string_view value, int line,
               DiagnosticSink& sink);
// The same for a known column by its index_of (no name lookup per value).
void set_field(PlannedLink& link, int index, std::string_view value, int line,
               DiagnosticSink& sink);

}  // namespace ibw::fabric::plan_fields
