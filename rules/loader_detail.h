// Private to rules/: the raw rule (pass 1 output) and the field readers the validation pass
// uses. Every reader reports its own problem to the sink and returns nullopt. Keys and names
// are checked against core::KeyTable (core/strict_keys.h), as in the config and plans.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/strict_keys.h"
#include "fabric/diagnostics.h"
#include "fabric/text_util.h"
#include "rules/rules.h"

namespace ibw::rules::loader_detail {

using fabric::DiagnosticSink;

struct RawField {
  std::string key;
  int line = 0;
  YAML::Node value;
};
struct RawRule {
  int line = 0;
  std::vector<RawField> fields;
  const RawField* get(std::string_view key) const {
    for (const auto& f : fields)
      if (f.key == key) return &f;
    return nullptr;
  }
};

using core::line_of;
// "unknown type \"x\" (did you mean \"y\"?); known: a, b"
inline std::string unknown(std::string_view what, std::string_view got,
                           const std::vector<std::string_view>& known) {
  return core::KeyTable(known).unknown(what, got);
}
// Pass 1: the YAML tree into raw rules; structural problems and repeated keys.
std::vector<RawRule> read(const YAML::Node& root, DiagnosticSink& sink);
std::optional<ingest::Severity> parse_severity(std::string_view s);
// warning | error | critical (UFM's high_ber events are never info).
std::optional<ingest::Severity> parse_ber_severity(std::string_view s);
std::optional<DegradedBelow> parse_below(std::string_view s);
std::vector<std::string_view> rule_counter_names();

// Scalar readers for pass 2; each reports its own problem and returns nullopt.
struct Fields {
  DiagnosticSink& sink;

  std::optional<std::string> scalar(const YAML::Node& v, int line, const std::string& key) {
    if (!v.IsScalar() || v.Scalar().empty()) {
      sink.add(line, key, "expected a single value");
      return std::nullopt;
    }
    return v.Scalar();
  }
  std::optional<double> number(const YAML::Node& v, int line, const std::string& key, double lo,
                               double hi) {
    auto s = scalar(v, line, key);
    if (!s) return std::nullopt;
    double x = 0;
    auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), x);
    if (ec != std::errc() || p != s->data() + s->size() || !std::isfinite(x) || x <= lo || x > hi) {
      std::ostringstream range;
      range << "\"" << *s << "\" is not a number > " << lo << " and <= " << hi;
      sink.add(line, key, range.str());
      return std::nullopt;
    }
    return x;
  }
  std::optional<uint64_t> count(const YAML::Node& v, int line, const std::string& key, uint64_t lo,
                                uint64_t hi) {
    auto s = scalar(v, line, key);
    if (!s) return std::nullopt;
    uint64_t x = 0;
    auto [p, ec] = std::from_chars(s->data(), s->data() + s->size(), x);
    if (ec != std::errc() || p != s->data() + s->size() || x < lo || x > hi) {
      sink.add(
          line, key,
          "\"" + *s + "\" is not a whole number " + std::to_string(lo) + "-" + std::to_string(hi));
      return std::nullopt;
    }
    return x;
  }
  std::optional<int64_t> duration(const YAML::Node& v, int line, const std::string& key) {
    auto s = scalar(v, line, key);
    if (!s) return std::nullopt;
    auto d = fabric::text::parse_duration(*s);
    if (!d) sink.add(line, key, "\"" + *s + "\" is not a duration like 30s, 12m, 1h");
    return d;
  }
  template <typename T>
  std::optional<T> choice(const YAML::Node& v, int line, const std::string& key,
                          std::optional<T> (*parse)(std::string_view),
                          const std::vector<std::string_view>& known) {
    auto s = scalar(v, line, key);
    if (!s) return std::nullopt;
    auto x = parse(*s);
    if (!x) sink.add(line, key, unknown(key, *s, known));
    return x;
  }
};

// Iterates a nested map, reporting non-maps and repeated keys.
template <typename F>
void each_entry(const RawField& f, DiagnosticSink& sink, F fn) {
  if (!f.value.IsMap()) return sink.add(f.line, f.key, "expected a map");
  core::each_key(f.value, f.key, sink,
                 [&](const std::string& k, const std::string&, int line, const YAML::Node& v) {
                   fn(k, line, v);
                 });
}

}  // namespace ibw::rules::loader_detail
