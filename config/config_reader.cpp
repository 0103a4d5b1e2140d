// The config file's field readers and walk() (config_reader.h).
#include "config/config_reader.h"

#include <algorithm>
#include <charconv>
#include <filesystem>

namespace ibw::config::config_detail {

bool Reader::scalar(const YAML::Node& v, const std::string& key, std::string* out) {
  if (!v.IsScalar()) {
    sink.add(line(v), key, "expected a single value");
    return false;
  }
  *out = v.Scalar();
  return true;
}

void Reader::string(const YAML::Node& v, const std::string& key, std::string* out,
                    bool allow_empty) {
  std::string s;
  if (v.IsNull() && allow_empty) return out->clear();
  if (!scalar(v, key, &s)) return;
  if (s.empty() && !allow_empty) return sink.add(line(v), key, "must not be empty");
  *out = s;
}

std::string Reader::resolve(const std::string& p) const {
  if (p.empty() || p.front() == '/' || base_dir.empty()) return p;
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

void Reader::path(const YAML::Node& v, const std::string& key, std::string* out) {
  std::string s;
  string(v, key, &s, false);
  if (!s.empty()) *out = resolve(s);
}

void Reader::optional_path(const YAML::Node& v, const std::string& key,
                           std::optional<std::string>* out) {
  if (v.IsNull()) return out->reset();
  std::string s;
  string(v, key, &s, false);
  if (!s.empty()) *out = resolve(s);
}

bool Reader::whole(const YAML::Node& v, const std::string& key, long long* out, long long lo,
                   long long hi) {
  std::string s;
  if (!scalar(v, key, &s)) return false;
  long long x = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || p != s.data() + s.size() || x < lo || x > hi) {
    sink.add(
        line(v), key,
        "\"" + s + "\" is not a whole number " + std::to_string(lo) + "-" + std::to_string(hi));
    return false;
  }
  *out = x;
  return true;
}

void Reader::boolean(const YAML::Node& v, const std::string& key, bool* out) {
  std::string s;
  if (!scalar(v, key, &s)) return;
  if (s == "true" || s == "yes" || s == "on")
    *out = true;
  else if (s == "false" || s == "no" || s == "off")
    *out = false;
  else
    sink.add(line(v), key, "\"" + s + "\" is not true or false");
}

void Reader::choice(const YAML::Node& v, const std::string& key, std::string* out,
                    const std::vector<std::string_view>& allowed) {
  std::string s, list;
  if (!scalar(v, key, &s)) return;
  for (auto a : allowed) {
    if (s == a) return void(*out = s);
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  sink.add(line(v), key, "\"" + s + "\" is not one of " + list);
}

void Reader::url(const YAML::Node& v, const std::string& key, std::optional<std::string>* out,
                 bool allow_null) {
  if (v.IsNull() && allow_null) return out->reset();
  std::string s;
  if (!scalar(v, key, &s)) return;
  size_t scheme = s.rfind("https://", 0) == 0 ? 8 : s.rfind("http://", 0) == 0 ? 7 : 0;
  size_t host_end = scheme ? s.find_first_of("/?#", scheme) : std::string::npos;
  std::string host = scheme ? s.substr(scheme, host_end - scheme) : "";
  if (!scheme || host.empty() || host.front() == ':' || s.find_first_of(" \t") != std::string::npos)
    return sink.add(line(v), key, "\"" + s + "\" is not an http:// or https:// URL");
  if (host.find('@') != std::string::npos)
    return sink.add(line(v), key,
                    "credentials do not belong in the URL; use user_env/password_env or "
                    "token_file");
  *out = s;
}

void Reader::duration(const YAML::Node& v, const std::string& key, int64_t* out) {
  std::string s;
  if (!scalar(v, key, &s)) return;
  auto d = parse_duration(s);
  if (!d) return sink.add(line(v), key, "\"" + s + "\" is not a duration like 500ms, 1s, 12m, 1h");
  *out = *d;
}

void Reader::millis(const YAML::Node& v, const std::string& key, unsigned* out, int64_t max_us,
                    const char* max_text) {
  int64_t us = 0;
  duration(v, key, &us);
  if (us > max_us) return sink.add(line(v), key, std::string("must be at most ") + max_text);
  if (us) *out = static_cast<unsigned>(std::max<int64_t>(1, us / 1000));
}

void Reader::utc_offset(const YAML::Node& v, const std::string& key, int* out) {
  std::string s;
  if (!scalar(v, key, &s)) return;
  auto off = parse_utc_offset(s);
  if (!off) return sink.add(line(v), key, "\"" + s + "\" is not UTC or an offset like +02:00");
  *out = *off;
}

void walk(Reader& r, const YAML::Node& map, const std::string& prefix, const Keys& keys) {
  if (!map.IsMap()) {
    if (!map.IsNull()) r.sink.add(Reader::line(map), prefix, "expected a map of settings");
    return;
  }
  std::vector<std::string_view> names;
  for (const auto& k : keys) names.push_back(k.name);
  core::check_keys(map, prefix, core::KeyTable(std::move(names)), r.sink,
                   [&](int index, const std::string& path, const YAML::Node& v) {
                     r.lines[path] = Reader::line(v);
                     keys[static_cast<size_t>(index)].set(v, path);
                   });
}

}  // namespace ibw::config::config_detail
