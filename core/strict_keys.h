// Strict YAML keys: the one table every strict reader (the daemon config, the rule files, YAML
// plans) checks a map's keys against. An unknown key is an error that lists the known ones
// and suggests the nearest ("did you mean"); a key given twice is an error; the path of a key
// is its map's path and the key, joined by '.'. Problems go to a sink the caller owns: any
// type with add(int line, std::string path, std::string message), e.g. fabric::DiagnosticSink,
// which names the file.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace ibw::core {

// Levenshtein distance, for "did you mean" hints on unknown keys and names.
size_t edit_distance(std::string_view a, std::string_view b);

// 1-based line of a YAML node.
inline int line_of(const YAML::Node& n) {
  return n.Mark().line + 1;
}

// "prefix.key", or "key" at the top (empty prefix).
inline std::string key_path(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

// The names a map (or a field's value) may take, in order; a name's index is its position.
class KeyTable {
 public:
  KeyTable(std::initializer_list<std::string_view> names) : names_(names) {}
  explicit KeyTable(std::vector<std::string_view> names) : names_(std::move(names)) {}

  // Index of name, -1 when unknown.
  int find(std::string_view name) const {
    for (size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == name) return static_cast<int>(i);
    return -1;
  }
  bool contains(std::string_view name) const { return find(name) >= 0; }
  const std::vector<std::string_view>& names() const { return names_; }
  // "a, b, c"
  std::string known() const;
  // The known name fewer than 3 edits from got (the first of the nearest); empty when none.
  std::string_view nearest(std::string_view got) const;
  // "unknown key (did you mean \"b\"?); known: a, b" (the path names the key).
  std::string unknown_key(std::string_view got) const;
  // "unknown WHAT \"got\" (did you mean \"b\"?); known: a, b", for keys and values alike.
  std::string unknown(std::string_view what, std::string_view got) const;

 private:
  std::vector<std::string_view> names_;
};

// The first YAML document of text. A syntax error is the only problem then: it goes to sink
// as "YAML syntax error: ..." at its line and sink.throw_if_any() ends the reading.
template <typename Sink>
YAML::Node load_document(std::string_view text, Sink& sink) {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    sink.add(e.mark.line + 1, "", "YAML syntax error: " + e.msg);
    sink.throw_if_any();
  }
  return {};
}

// The name of a map's key: a scalar's text, "" for a collection used as a key.
inline std::string key_name(const YAML::Node& key) {
  return key.IsScalar() ? key.Scalar() : "";
}

// Each key of map in order, once: fn(name, path, key line, value) for the first of each name;
// a repeated one is reported "key given twice" at its line. map must be a map.
template <typename Sink, typename Fn>
void each_key(const YAML::Node& map, const std::string& prefix, Sink& sink, Fn fn) {
  std::vector<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    std::string name = key_name(it->first);
    std::string path = key_path(prefix, name);
    int line = line_of(it->first);
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      sink.add(line, path, "key given twice");
      continue;
    }
    seen.push_back(name);
    fn(name, path, line, it->second);
  }
}

// each_key, with every key checked against table: an unknown one is reported
// (table.unknown_key), a known one goes to fn(index in table, path, value).
template <typename Sink, typename Fn>
void check_keys(const YAML::Node& map, const std::string& prefix, const KeyTable& table, Sink& sink,
                Fn fn) {
  each_key(map, prefix, sink,
           [&](const std::string& name, const std::string& path, int line, const YAML::Node& v) {
             int index = table.find(name);
             if (index < 0) return sink.add(line, path, table.unknown_key(name));
             fn(index, path, v);
           });
}

}  // namespace ibw::core
