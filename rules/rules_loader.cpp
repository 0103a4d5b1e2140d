// Rule-file pass 1 (YAML -> raw rules with line numbers, structural problems, repeated keys)
// and the rule vocabulary names.
// Passes 2 and 3 are in rules_compile.cpp.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "rules/loader_detail.h"

namespace ibw::rules {
namespace loader_detail {

// Pass 1: the YAML tree into raw rules; structural problems and repeated keys.
std::vector<RawRule> read(const YAML::Node& root, DiagnosticSink& sink) {
  std::vector<RawRule> out;
  if (!root.IsMap()) {
    sink.add(root ? line_of(root) : 0, "", "expected a map with a `rules:` list");
    return out;
  }
  YAML::Node list;
  for (auto it = root.begin(); it != root.end(); ++it) {
    std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    if (key == "rules")
      list = it->second;
    else
      sink.add(line_of(it->first), key, core::KeyTable{"rules"}.unknown("key", key));
  }
  if (!list) {
    sink.add(0, "rules", "missing `rules:` list");
    return out;
  }
  if (!list.IsSequence()) {
    sink.add(line_of(list), "rules", "expected a list of rules");
    return out;
  }
  for (const auto& item : list) {
    if (!item.IsMap()) {
      sink.add(line_of(item), "rules", "each rule must be a map of settings");
      continue;
    }
    RawRule r;
    r.line = line_of(item);
    core::each_key(item, "", sink,
                   [&](const std::string& key, const std::string&, int line, const YAML::Node& v) {
                     r.fields.push_back({key, line, v});
                   });
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<ingest::Severity> parse_severity(std::string_view s) {
  for (auto sev : {ingest::Severity::info, ingest::Severity::warning, ingest::Severity::error,
                   ingest::Severity::critical})
    if (ingest::severity_name(sev) == s) return sev;
  return std::nullopt;
}
std::optional<ingest::Severity> parse_ber_severity(std::string_view s) {
  auto sev = parse_severity(s);
  if (sev == ingest::Severity::info) return std::nullopt;
  return sev;
}
std::optional<DegradedBelow> parse_below(std::string_view s) {
  if (s == "plan") return DegradedBelow::plan;
  if (s == "enabled") return DegradedBelow::enabled;
  if (s == "both") return DegradedBelow::both;
  return std::nullopt;
}

std::vector<std::string_view> rule_counter_names() {
  std::vector<std::string_view> out;
  for (auto c : kRuleCounters) out.push_back(ingest::counter_name(c));
  return out;
}

}  // namespace loader_detail

std::string_view rule_type_name(RuleType t) {
  switch (t) {
    case RuleType::symbol_errors:
      return "symbol_errors";
    case RuleType::link_flap:
      return "link_flap";
    case RuleType::link_degraded:
      return "link_degraded";
    case RuleType::error_counters:
      return "error_counters";
    case RuleType::ufm_high_ber:
      return "ufm_high_ber";
    case RuleType::cursed_path:
      return "cursed_path";
    case RuleType::congestion:
      return "congestion";
  }
  return "?";
}
std::optional<RuleType> parse_rule_type(std::string_view s) {
  for (auto t : {RuleType::symbol_errors, RuleType::link_flap, RuleType::link_degraded,
                 RuleType::error_counters, RuleType::ufm_high_ber, RuleType::cursed_path,
                 RuleType::congestion})
    if (rule_type_name(t) == s) return t;
  return std::nullopt;
}
std::string_view action_name(Action a) {
  switch (a) {
    case Action::disable:
      return "disable";
    case Action::isolate:
      return "isolate";
    case Action::work_order:
      return "work_order";
    case Action::none:
      return "none";
  }
  return "?";
}
std::optional<Action> parse_action(std::string_view s) {
  for (auto a : {Action::disable, Action::isolate, Action::work_order, Action::none})
    if (action_name(a) == s) return a;
  return std::nullopt;
}
std::string_view confirm_name(Confirm c) {
  switch (c) {
    case Confirm::none:
      return "none";
    case Confirm::both_ends:
      return "both_ends";
    case Confirm::errors_and_flap:
      return "errors_and_flap";
    case Confirm::dr_probe:
      return "dr_probe";
    case Confirm::counters:
      return "counters";
    case Confirm::both:
      return "both";
  }
  return "?";
}
std::optional<Confirm> parse_confirm(std::string_view s) {
  for (auto c : {Confirm::none, Confirm::both_ends, Confirm::errors_and_flap, Confirm::dr_probe,
                 Confirm::counters, Confirm::both})
    if (confirm_name(c) == s) return c;
  return std::nullopt;
}

const Rule* RuleSet::find(std::string_view name) const {
  for (const auto& r : rules)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace ibw::rules
