// Internal to config/: the field readers of the config file (each reports its own problem as
// file:line: key.path: message) and the per-section key tables of parse_config. A section is
// a table of keys, each with the function that reads its value into the Config
// (config_sections_*.cpp); walk() checks a map's keys against the table (core/strict_keys.h).
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "config/store_checks.h"
#include "core/strict_keys.h"
#include "fabric/diagnostics.h"

namespace ibw::config::config_detail {

using fabric::DiagnosticSink;
using N = const YAML::Node&;
using S = const std::string&;
// Reads a key's value (the value node, the key's path) into the Config.
using Set = std::function<void(N, S)>;

struct Reader {
  DiagnosticSink& sink;
  std::string base_dir;
  // The line of every key's value read, by path ("store.backend"), for checks across keys.
  std::map<std::string, int> lines;
  bool given(const std::string& path) const { return lines.count(path) > 0; }
  int line_of(const std::string& path) const {
    auto it = lines.find(path);
    return it == lines.end() ? 0 : it->second;
  }

  static int line(const YAML::Node& n) { return core::line_of(n); }
  void bad(const YAML::Node& v, const std::string& key, std::string message) {
    sink.add(line(v), key, std::move(message));
  }

  bool scalar(const YAML::Node& v, const std::string& key, std::string* out);
  void string(const YAML::Node& v, const std::string& key, std::string* out, bool allow_empty);
  std::string resolve(const std::string& p) const;
  void path(const YAML::Node& v, const std::string& key, std::string* out);
  void optional_path(const YAML::Node& v, const std::string& key, std::optional<std::string>* out);
  template <typename T>
  void integer(const YAML::Node& v, const std::string& key, T* out, long long lo, long long hi) {
    long long x = 0;
    if (whole(v, key, &x, lo, hi)) *out = static_cast<T>(x);
  }
  bool whole(const YAML::Node& v, const std::string& key, long long* out, long long lo,
             long long hi);
  void boolean(const YAML::Node& v, const std::string& key, bool* out);
  void choice(const YAML::Node& v, const std::string& key, std::string* out,
              const std::vector<std::string_view>& allowed);
  // An http:// or https:// URL with a host and without user:password@ (secrets come from
  // env or files); null clears *out when allow_null.
  void url(const YAML::Node& v, const std::string& key, std::optional<std::string>* out,
           bool allow_null);
  void duration(const YAML::Node& v, const std::string& key, int64_t* out);
  // A duration of at most max_us, in whole milliseconds (at least 1); unchanged when not given.
  void millis(const YAML::Node& v, const std::string& key, unsigned* out, int64_t max_us,
              const char* max_text);
  // A zone key (opensm.timezone, ufm.timezone): "UTC" or a fixed offset like +02:00.
  void utc_offset(const YAML::Node& v, const std::string& key, int* out);

  // The same readers as the Set of one key.
  Set set_string(std::string* out, bool allow_empty = false) {
    return [this, out, allow_empty](N v, S k) { string(v, k, out, allow_empty); };
  }
  Set set_path(std::string* out) {
    return [this, out](N v, S k) { path(v, k, out); };
  }
  Set set_optional_path(std::optional<std::string>* out) {
    return [this, out](N v, S k) { optional_path(v, k, out); };
  }
  template <typename T>
  Set set_integer(T* out, long long lo, long long hi) {
    return [this, out, lo, hi](N v, S k) { integer(v, k, out, lo, hi); };
  }
  Set set_bool(bool* out) {
    return [this, out](N v, S k) { boolean(v, k, out); };
  }
  Set set_choice(std::string* out, std::vector<std::string_view> allowed) {
    return [this, out, allowed = std::move(allowed)](N v, S k) { choice(v, k, out, allowed); };
  }
  Set set_duration(int64_t* out) {
    return [this, out](N v, S k) { duration(v, k, out); };
  }
  Set set_millis(unsigned* out, int64_t max_us, const char* max_text) {
    return [this, out, max_us, max_text](N v, S k) { millis(v, k, out, max_us, max_text); };
  }
  Set set_utc_offset(int* out) {
    return [this, out](N v, S k) { utc_offset(v, k, out); };
  }
};

// One key of a section and what reads its value.
struct Key {
  std::string_view name;
  Set set;
};
using Keys = std::vector<Key>;

// Checks map's keys against keys (unknown and repeated keys are reported) and reads each,
// noting its line in r.lines. A null map is an empty section; anything else but a map is
// reported.
void walk(Reader& r, const YAML::Node& map, const std::string& prefix, const Keys& keys);

// What the checks across sections need besides the lines, noted while the sections are read.
struct Noted {
  bool ufm_map = false;
  std::optional<std::string> ufm_url, primary, secondary;
};

// The state of one parse_config: the readers, the config being filled, the notes.
struct Parse {
  Reader r;
  Config& c;
  Noted noted;
};

// Notes credentials in URLs, secrets over plain http:// and an exposed web API into
// Config::insecure and Config::warnings (security_checks.cpp).
void note_insecure(Parse& p);

// The key table of each section (config_sections_*.cpp).
Keys fabric_keys(Parse& p);
Keys opensm_keys(Parse& p);
Keys counters_keys(Parse& p);
Keys probes_keys(Parse& p);
Keys sm_watch_keys(Parse& p);
Keys ufm_keys(Parse& p);
Keys store_keys(Parse& p);
Keys ha_keys(Parse& p);
Keys rules_keys(Parse& p);
Keys actions_keys(Parse& p);
Keys workorders_keys(Parse& p);
Keys web_keys(Parse& p);
Keys slurm_keys(Parse& p);
Keys log_keys(Parse& p);

}  // namespace ibw::config::config_detail
