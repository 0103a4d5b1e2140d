// Field-level parsing shared by the CSV and YAML plan readers: one column/key name maps to
// one PlannedLink member with one validation rule.
#pragma once

#include <string>
#include <string_view>

#include "fabric/diagnostics.h"
#include "fabric/plan.h"

namespace ibw::fabric::plan_fields {

inline constexpr std::string_view kRequired[] = {"cable_id", "a_node", "a_port", "b_node",
                                                 "b_port"};
inline constexpr std::string_view kOptional[] = {"kind",     "a_location", "b_location",
                                                 "length_m", "speed",      "width"};

bool is_known(std::string_view column);
bool is_required(std::string_view column);
// "cable_id, a_node, ..., width" for error messages.
std::string known_list();

// Stores value into link's member for column; reports a bad value to sink at line.
void set_field(PlannedLink& link, std::string_view column, std::string_view value, int line,
               DiagnosticSink& sink);

}  // namespace ibw::fabric::plan_fields
