// Rule-file passes 2 and 3: validate each raw rule field by field (all problems collected),
// then compile: per-type defaults, the per-speed BER table, unique names. Also the public
// load/parse/validate entry points.
#include <map>

#include "rules/loader_detail.h"

namespace ibw::rules {
namespace loader_detail {

constexpr std::string_view kCommonKeys[] = {"name",   "type",     "enabled",
                                            "action", "severity", "confirm"};

std::vector<std::string_view> type_keys(std::optional<RuleType> t) {
  switch (t.value_or(RuleType::symbol_errors)) {
    case RuleType::symbol_errors:
      if (t) return {"ber_threshold", "window", "jump"};
      break;
    case RuleType::link_flap:
      return {"cycles", "window"};
    case RuleType::link_degraded:
      return {"below"};
    case RuleType::error_counters:
      return {"window", "counters"};
    case RuleType::ufm_high_ber:
      return {"min_severity", "window"};
    case RuleType::cursed_path:
      return {"min_loss", "min_observations"};
    case RuleType::congestion:
      return {"window", "wait_ratio", "discards_per_s", "wait_tick_bits"};
  }
  // Type unknown: accept any type's key so only the type itself is reported.
  return {"ber_threshold",  "window",        "jump",     "cycles",           "below",
          "min_severity",   "counters",      "min_loss", "min_observations", "wait_ratio",
          "discards_per_s", "wait_tick_bits"};
}

// Pass 2 output: the rule plus what compile needs to know about what was given.
struct Parsed {
  Rule rule;
  bool ok = true;  // name and type are usable
  int name_line = 0;
  int action_line = 0;
  std::optional<double> ber_default;
  std::array<bool, kSpeedCount> ber_given{};
};

// Congestion is a signal, not a fault: a rule that would act (work_order, disable, isolate)
// on PortXmitWait or PortXmitDiscards is rejected at the counter's line, and a congestion
// rule only reports (action none). Called once the whole rule was read (action may follow).
void check_congestion_action(const RawRule& raw, const Parsed& p, DiagnosticSink& sink) {
  const Rule& r = p.rule;
  if (r.action == Action::none) return;
  std::string action(action_name(r.action));
  if (r.type == RuleType::congestion)
    return sink.add(p.action_line, "action",
                    "congestion rules only report: action must be none (got " + action + ")");
  const RawField* f = raw.get("counters");
  if (r.type != RuleType::error_counters || !f || !f->value.IsMap()) return;
  for (auto it = f->value.begin(); it != f->value.end(); ++it) {
    std::string name = it->first.IsScalar() ? it->first.Scalar() : "";
    auto c = ingest::parse_counter(name);
    if (c && is_congestion_counter(*c))
      sink.add(line_of(it->first), f->key + "." + name,
               name + " is congestion, not a fault: action " + action +
                   " may not use it (report it with a congestion rule, action none)");
  }
}

void read_counters(const RawField& f, Fields& rd, Rule& rule) {
  each_entry(f, rd.sink, [&](const std::string& name, int line, const YAML::Node& v) {
    std::string path = f.key + "." + name;
    auto c = ingest::parse_counter(name);
    if (!c || std::find(kRuleCounters.begin(), kRuleCounters.end(), *c) == kRuleCounters.end())
      return rd.sink.add(line, path, unknown("counter", name, rule_counter_names()));
    CounterLimit limit{*c};
    RawField inner{path, line, v};
    int given = 0;
    each_entry(inner, rd.sink, [&](const std::string& k, int kline, const YAML::Node& kv) {
      if (k == "delta") {
        ++given;
        if (auto n = rd.count(kv, kline, path + ".delta", 1, 1ULL << 48)) limit.delta = *n;
      } else if (k == "rate_per_s") {
        ++given;
        if (auto x = rd.number(kv, kline, path + ".rate_per_s", 0, 1e12)) limit.rate_per_s = *x;
      } else {
        rd.sink.add(kline, path + "." + k, core::KeyTable{"delta", "rate_per_s"}.unknown("key", k));
      }
    });
    if (v.IsMap() && given != 1)
      return rd.sink.add(line, path, "give exactly one of delta or rate_per_s");
    if (limit.delta || limit.rate_per_s) rule.counters.push_back(limit);
  });
  if (f.value.IsMap() && f.value.size() == 0) rd.sink.add(f.line, f.key, "must not be empty");
}

Parsed validate(const RawRule& raw, DiagnosticSink& sink) {
  Fields rd{sink};
  Parsed p;
  Rule& r = p.rule;
  r.line = raw.line;
  std::optional<RuleType> type;
  if (const RawField* f = raw.get("type"))
    type = rd.choice<RuleType>(f->value, f->line, "type", parse_rule_type,
                               {"symbol_errors", "link_flap", "link_degraded", "error_counters",
                                "ufm_high_ber", "cursed_path", "congestion"});
  for (std::string_view req : {"name", "type", "action", "severity"})
    if (!raw.get(req) && !(req == "action" && type == RuleType::congestion))
      sink.add(raw.line, std::string(req), "missing (every rule needs it)");
  p.ok = type.has_value() && raw.get("name");
  if (type) r.type = *type;
  std::vector<std::string_view> names(std::begin(kCommonKeys), std::end(kCommonKeys));
  for (auto k : type_keys(type)) names.push_back(k);
  const core::KeyTable known(std::move(names));

  for (const RawField& f : raw.fields) {
    const YAML::Node& v = f.value;
    if (!known.contains(f.key)) {
      sink.add(f.line, f.key, known.unknown("key", f.key));
    } else if (f.key == "name") {
      p.name_line = f.line;
      if (auto s = rd.scalar(v, f.line, f.key))
        r.name = *s;
      else
        p.ok = false;
    } else if (f.key == "enabled") {
      auto s = rd.scalar(v, f.line, f.key);
      if (s && (*s == "true" || *s == "false"))
        r.enabled = *s == "true";
      else if (s)
        sink.add(f.line, f.key, "\"" + *s + "\" is not true or false");
    } else if (f.key == "action") {
      p.action_line = f.line;
      if (auto a = rd.choice<Action>(v, f.line, f.key, parse_action,
                                     {"disable", "isolate", "work_order", "none"}))
        r.action = *a;
    } else if (f.key == "severity") {
      if (auto s = rd.choice<ingest::Severity>(v, f.line, f.key, parse_severity,
                                               {"info", "warning", "error", "critical"}))
        r.severity = *s;
    } else if (f.key == "confirm") {
      bool path = type == RuleType::cursed_path;
      auto choices = path ? std::vector<std::string_view>{"none", "dr_probe", "counters", "both"}
                          : std::vector<std::string_view>{"none", "both_ends", "errors_and_flap"};
      auto c = rd.choice<Confirm>(v, f.line, f.key, parse_confirm, choices);
      if (c && std::find(choices.begin(), choices.end(), confirm_name(*c)) == choices.end())
        sink.add(f.line, f.key, unknown("confirm", std::string(confirm_name(*c)), choices));
      else if (c)
        r.confirm = *c;
      if (c && *c == Confirm::errors_and_flap && type &&
          (*type == RuleType::link_flap || *type == RuleType::link_degraded))
        sink.add(f.line, f.key, "errors_and_flap only applies to error rules");
    } else if (f.key == "wait_ratio") {
      if (auto x = rd.number(v, f.line, f.key, 0, 1)) r.wait_ratio = *x;
    } else if (f.key == "discards_per_s") {
      if (auto x = rd.number(v, f.line, f.key, 0, 1e12)) r.discards_per_s = *x;
    } else if (f.key == "wait_tick_bits") {
      if (auto x = rd.number(v, f.line, f.key, 0, 1e6)) r.wait_tick_bits = *x;
    } else if (f.key == "min_loss") {
      if (auto x = rd.number(v, f.line, f.key, 0, 1)) r.min_loss = *x;
    } else if (f.key == "min_observations") {
      if (auto n = rd.count(v, f.line, f.key, 1, 1ULL << 40)) r.min_observations = *n;
    } else if (f.key == "min_severity") {
      if (auto s = rd.choice<ingest::Severity>(v, f.line, f.key, parse_ber_severity,
                                               {"warning", "error", "critical"}))
        r.min_severity = *s;
    } else if (f.key == "window") {
      if (auto d = rd.duration(v, f.line, f.key)) r.window_us = *d;
    } else if (f.key == "jump") {
      if (auto n = rd.count(v, f.line, f.key, 1, 1ULL << 48)) r.jump = *n;
    } else if (f.key == "cycles") {
      if (auto n = rd.count(v, f.line, f.key, 1, 10000)) r.cycles = static_cast<int>(*n);
    } else if (f.key == "below") {
      if (auto b =
              rd.choice<DegradedBelow>(v, f.line, f.key, parse_below, {"plan", "enabled", "both"}))
        r.below = *b;
    } else if (f.key == "counters") {
      read_counters(f, rd, r);
    } else if (f.key == "ber_threshold") {
      each_entry(f, sink, [&](const std::string& k, int line, const YAML::Node& kv) {
        std::string path = f.key + "." + k;
        auto speed = fabric::parse_speed(k);
        if (k != "default" && (!speed || *speed == fabric::Speed::unknown))
          return sink.add(line, path,
                          unknown("speed", k,
                                  {"default", "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR",
                                   "NDR", "XDR"}));
        auto x = rd.number(kv, line, path, 0, 1e-3);
        if (!x) return;
        if (k == "default")
          p.ber_default = *x;
        else
          r.ber_threshold[static_cast<size_t>(*speed)] = *x,
          p.ber_given[static_cast<size_t>(*speed)] = true;
      });
    }
  }
  if (type == RuleType::symbol_errors && !raw.get("ber_threshold") && !raw.get("jump"))
    sink.add(raw.line, "ber_threshold", "symbol_errors needs ber_threshold or jump");
  if (type == RuleType::error_counters && !raw.get("counters"))
    sink.add(raw.line, "counters", "missing (error_counters needs at least one counter)");
  check_congestion_action(raw, p, sink);
  return p;
}

// Pass 3: defaults per type, the BER table, unique names.
RuleSet compile(std::vector<Parsed> parsed, const std::string& file, DiagnosticSink& sink) {
  RuleSet set;
  set.file = file;
  std::map<std::string, int> names;  // name -> line of its first rule
  for (auto& p : parsed) {
    Rule& r = p.rule;
    if (p.ok) {
      auto [it, fresh] = names.emplace(r.name, r.line);
      if (!fresh)
        sink.add(
            p.name_line, "name",
            "\"" + r.name + "\" is already used by the rule at line " + std::to_string(it->second));
    }
    if (!r.window_us)
      r.window_us = r.type == RuleType::symbol_errors  ? 12 * 60'000'000LL
                    : r.type == RuleType::ufm_high_ber ? 10 * 60'000'000LL
                                                       : 60'000'000LL;
    for (size_t s = 1; s < kSpeedCount; ++s)
      if (!p.ber_given[s]) r.ber_threshold[s] = p.ber_default.value_or(0);
    set.rules.push_back(std::move(r));
  }
  return set;
}

}  // namespace loader_detail

RuleSet parse_rules(std::string_view text, const std::string& file) {
  fabric::DiagnosticSink sink(file);
  YAML::Node root = core::load_document(text, sink);
  std::vector<loader_detail::Parsed> parsed;
  for (const auto& raw : loader_detail::read(root, sink))
    parsed.push_back(loader_detail::validate(raw, sink));
  RuleSet set = loader_detail::compile(std::move(parsed), file, sink);
  sink.throw_if_any();
  return set;
}

RuleSet load_rules(const std::string& path) {
  return parse_rules(fabric::read_file(path, fabric::kMaxConfigBytes, "a rules file"), path);
}

std::vector<fabric::Diagnostic> validate_rules_file(const std::string& path) {
  try {
    load_rules(path);
  } catch (const fabric::InputError& e) {
    return e.diagnostics();
  }
  return {};
}

}  // namespace ibw::rules
