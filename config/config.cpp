#include "config/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <functional>
#include <vector>

#include "config/store_checks.h"
#include "fabric/diagnostics.h"
#include "fabric/text_util.h"

namespace ibw::config {
namespace config_detail {

using fabric::DiagnosticSink;

struct Reader {
  DiagnosticSink& sink;
  std::string base_dir;

  static int line(const YAML::Node& n) { return n.Mark().line + 1; }

  bool scalar(const YAML::Node& v, const std::string& key, std::string* out) {
    if (!v.IsScalar()) {
      sink.add(line(v), key, "expected a single value");
      return false;
    }
    *out = v.Scalar();
    return true;
  }
  void string(const YAML::Node& v, const std::string& key, std::string* out, bool allow_empty) {
    std::string s;
    if (v.IsNull() && allow_empty) return out->clear();
    if (!scalar(v, key, &s)) return;
    if (s.empty() && !allow_empty) return sink.add(line(v), key, "must not be empty");
    *out = s;
  }
  std::string resolve(const std::string& p) const {
    if (p.empty() || p.front() == '/' || base_dir.empty()) return p;
    return (std::filesystem::path(base_dir) / p).lexically_normal().string();
  }
  void path(const YAML::Node& v, const std::string& key, std::string* out) {
    std::string s;
    string(v, key, &s, false);
    if (!s.empty()) *out = resolve(s);
  }
  void optional_path(const YAML::Node& v, const std::string& key, std::optional<std::string>* out) {
    if (v.IsNull()) return out->reset();
    std::string s;
    string(v, key, &s, false);
    if (!s.empty()) *out = resolve(s);
  }
  template <typename T>
  void integer(const YAML::Node& v, const std::string& key, T* out, long long lo, long long hi) {
    std::string s;
    if (!scalar(v, key, &s)) return;
    long long x = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (ec != std::errc() || p != s.data() + s.size() || x < lo || x > hi)
      return sink.add(
          line(v), key,
          "\"" + s + "\" is not a whole number " + std::to_string(lo) + "-" + std::to_string(hi));
    *out = static_cast<T>(x);
  }
  void boolean(const YAML::Node& v, const std::string& key, bool* out) {
    std::string s;
    if (!scalar(v, key, &s)) return;
    if (s == "true" || s == "yes" || s == "on")
      *out = true;
    else if (s == "false" || s == "no" || s == "off")
      *out = false;
    else
      sink.add(line(v), key, "\"" + s + "\" is not true or false");
  }
  void choice(const YAML::Node& v, const std::string& key, std::string* out,
              std::initializer_list<std::string_view> allowed) {
    std::string s, list;
    if (!scalar(v, key, &s)) return;
    for (auto a : allowed) {
      if (s == a) return void(*out = s);
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    sink.add(line(v), key, "\"" + s + "\" is not one of " + list);
  }
  // An http:// or https:// URL with a host and without user:password@ (secrets come from
  // env or files); null clears *out when allow_null.
  void url(const YAML::Node& v, const std::string& key, std::optional<std::string>* out,
           bool allow_null) {
    if (v.IsNull() && allow_null) return out->reset();
    std::string s;
    if (!scalar(v, key, &s)) return;
    size_t scheme = s.rfind("https://", 0) == 0 ? 8 : s.rfind("http://", 0) == 0 ? 7 : 0;
    size_t host_end = scheme ? s.find_first_of("/?#", scheme) : std::string::npos;
    std::string host = scheme ? s.substr(scheme, host_end - scheme) : "";
    if (!scheme || host.empty() || host.front() == ':' ||
        s.find_first_of(" \t") != std::string::npos)
      return sink.add(line(v), key, "\"" + s + "\" is not an http:// or https:// URL");
    if (host.find('@') != std::string::npos)
      return sink.add(line(v), key,
                      "credentials do not belong in the URL; use user_env/password_env or "
                      "token_file");
    *out = s;
  }
  void duration(const YAML::Node& v, const std::string& key, int64_t* out) {
    std::string s;
    if (!scalar(v, key, &s)) return;
    auto d = parse_duration(s);
    if (!d)
      return sink.add(line(v), key, "\"" + s + "\" is not a duration like 500ms, 1s, 12m, 1h");
    *out = *d;
  }
};

struct Key {
  std::string_view name;
  std::function<void(const YAML::Node&, const std::string&)> set;
};

void walk(Reader& r, const YAML::Node& map, const std::string& prefix,
          const std::vector<Key>& keys) {
  if (!map.IsMap()) {
    if (!map.IsNull()) r.sink.add(Reader::line(map), prefix, "expected a map of settings");
    return;
  }
  std::vector<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    std::string name = it->first.IsScalar() ? it->first.Scalar() : "";
    std::string path = prefix.empty() ? name : prefix + "." + name;
    int line = Reader::line(it->first);
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      r.sink.add(line, path, "key given twice");
      continue;
    }
    seen.push_back(name);
    auto key = std::find_if(keys.begin(), keys.end(), [&](const Key& k) { return k.name == name; });
    if (key == keys.end()) {
      std::string known, hint;
      size_t best = 3;
      for (const auto& k : keys) {
        known += (known.empty() ? "" : ", ") + std::string(k.name);
        if (size_t d = fabric::text::edit_distance(name, k.name); d < best)
          best = d, hint = std::string(k.name);
      }
      r.sink.add(line, path,
                 "unknown key" + (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)") +
                     "; known: " + known);
      continue;
    }
    key->set(it->second, path);
  }
}

}  // namespace config_detail

std::optional<int64_t> parse_duration(std::string_view text) {
  return fabric::text::parse_duration(text);
}

std::optional<int> parse_utc_offset(std::string_view s) {
  if (s == "UTC" || s == "Z" || s == "utc") return 0;
  if (s.size() < 3 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  std::string digits;
  for (char c : s.substr(1))
    if (c != ':') digits += c;
  if (digits.size() != 4 && digits.size() != 2) return std::nullopt;
  int h = 0, m = 0;
  if (std::from_chars(digits.data(), digits.data() + 2, h).ec != std::errc()) return std::nullopt;
  if (digits.size() == 4 &&
      std::from_chars(digits.data() + 2, digits.data() + 4, m).ec != std::errc())
    return std::nullopt;
  if (h > 14 || m > 59) return std::nullopt;
  int sign = s[0] == '-' ? -1 : 1;
  return sign * (h * 3600 + m * 60);
}

Config parse_config(std::string_view text, const std::string& file) {
  using config_detail::Key;
  using config_detail::Reader;
  Config c;
  c.file = file;
  fabric::DiagnosticSink sink(file);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    sink.add(e.mark.line + 1, "", "YAML syntax error: " + e.msg);
    sink.throw_if_any();
  }
  std::string dir = std::filesystem::path(file).parent_path().string();
  Reader r{sink, dir};
  using N = const YAML::Node&;
  using S = const std::string&;
  auto section = [&](std::vector<Key> keys) {
    return [&r, keys = std::move(keys)](N v, S path) { config_detail::walk(r, v, path, keys); };
  };
  int secret_file_line = 0, via_line = 0, ufm_line = 0, token_line = 0;
  int store_line = 0, path_line = 0, url_line = 0, pw_line = 0;
  bool ufm_map = false, url_given = false;
  // A zone key (opensm.timezone, ufm.timezone): "UTC" or a fixed offset like +02:00.
  auto utc_offset = [&](N v, S k, int* out) {
    std::string s;
    if (!r.scalar(v, k, &s)) return;
    auto off = parse_utc_offset(s);
    if (!off)
      return sink.add(Reader::line(v), k, "\"" + s + "\" is not UTC or an offset like +02:00");
    *out = *off;
  };
  auto ufm_url = [&](std::optional<std::string>* out, bool allow_null) {
    return [&r, out, allow_null](N v, S k) { r.url(v, k, out, allow_null); };
  };
  std::optional<std::string> url_value, primary, secondary;
  std::vector<Key> ufm_keys = {
      {"url",
       [&](N v, S k) {
         url_given = true;
         r.url(v, k, &url_value, false);
       }},
      {"api",
       [&](N v, S k) {
         r.choice(v, k, &c.ufm->api, {"v1", "v2", "v3"});
       }},
      {"user_env", [&](N v, S k) { r.string(v, k, &c.ufm->user_env, false); }},
      {"password_env", [&](N v, S k) { r.string(v, k, &c.ufm->password_env, false); }},
      {"token_file",
       [&](N v, S k) {
         r.optional_path(v, k, &c.ufm->token_file);
         token_line = Reader::line(v);
       }},
      {"ca_file", [&](N v, S k) { r.optional_path(v, k, &c.ufm->ca_file); }},
      {"verify_tls", [&](N v, S k) { r.boolean(v, k, &c.ufm->verify_tls); }},
      {"poll_interval", [&](N v, S k) { r.duration(v, k, &c.ufm->poll_interval_us); }},
      {"event_log", [&](N v, S k) { r.optional_path(v, k, &c.ufm->event_log); }},
      {"timezone", [&](N v, S k) { utc_offset(v, k, &c.ufm->utc_offset_s); }},
      {"telemetry", [&](N v, S k) {
         config_detail::walk(
             r, v, k,
             {{"primary", ufm_url(&primary, true)}, {"secondary", ufm_url(&secondary, true)}});
       }}};
  std::vector<Key> top = {
      {"fabric", section({
                     {"name", [&](N v, S k) { r.string(v, k, &c.fabric.name, false); }},
                     {"plan", [&](N v, S k) { r.optional_path(v, k, &c.fabric.plan); }},
                     {"node_name_map",
                      [&](N v, S k) { r.optional_path(v, k, &c.fabric.node_name_map); }},
                     {"discovery",
                      [&](N v, S k) {
                        std::string s;
                        r.string(v, k, &s, false);
                        if (!s.empty()) c.fabric.discovery = s == "live" ? s : r.resolve(s);
                      }},
                     {"ca", [&](N v, S k) { r.string(v, k, &c.fabric.ca, true); }},
                     {"ca_port", [&](N v, S k) { r.integer(v, k, &c.fabric.ca_port, 0, 255); }},
                     {"rediscover_interval",
                      [&](N v, S k) { r.duration(v, k, &c.fabric.rediscover_interval_us); }},
                 })},
      {"opensm", section({
                     {"log", [&](N v, S k) { r.path(v, k, &c.opensm.log); }},
                     {"dump_dir", [&](N v, S k) { r.path(v, k, &c.opensm.dump_dir); }},
                     {"timezone",
                      [&](N v, S k) { utc_offset(v, k, &c.opensm.utc_offset_s); }},
                     {"poll", [&](N v, S k) { r.duration(v, k, &c.opensm.poll_us); }},
                     {"rediscover_delay",
                      [&](N v, S k) { r.duration(v, k, &c.opensm.rediscover_delay_us); }},
                     {"read_existing",
                      [&](N v, S k) { r.boolean(v, k, &c.opensm.read_existing); }},
                 })},
      {"counters", section({
                       {"enabled", [&](N v, S k) { r.boolean(v, k, &c.counters.enabled); }},
                       {"interval", [&](N v, S k) { r.duration(v, k, &c.counters.interval_us); }},
                       {"window", [&](N v, S k) { r.integer(v, k, &c.counters.window, 1, 4096); }},
                       {"timeout",
                        [&](N v, S k) {
                          int64_t us = 0;
                          r.duration(v, k, &us);
                          if (us > 60'000'000)
                            return sink.add(Reader::line(v), k, "must be at most 60s");
                          if (us) c.counters.timeout_ms = static_cast<unsigned>(std::max<int64_t>(1, us / 1000));
                        }},
                       {"retries", [&](N v, S k) { r.integer(v, k, &c.counters.retries, 0, 10); }},
                       {"jump_threshold",
                        [&](N v, S k) { r.integer(v, k, &c.counters.jump_threshold, 1, 1LL << 40); }},
                   })},
      {"probes",
       section({
           {"interval",
            [&](N v, S k) {
              if (v.IsNull()) return c.probes.interval_us.reset();
              int64_t us = 0;
              r.duration(v, k, &us);
              if (us) c.probes.interval_us = us;
            }},
           {"count", [&](N v, S k) { r.integer(v, k, &c.probes.count, 1, 10000); }},
           {"timeout",
            [&](N v, S k) {
              int64_t us = 0;
              r.duration(v, k, &us);
              if (us > 10'000'000) return sink.add(Reader::line(v), k, "must be at most 10s");
              if (us) c.probes.timeout_ms = static_cast<unsigned>(std::max<int64_t>(1, us / 1000));
            }},
           {"max_in_flight", [&](N v, S k) { r.integer(v, k, &c.probes.max_in_flight, 1, 1024); }},
           {"max_rate", [&](N v, S k) { r.integer(v, k, &c.probes.max_rate, 1, 1'000'000); }},
           {"window", [&](N v, S k) { r.integer(v, k, &c.probes.window, 1, 10000); }},
           {"spool_dir", [&](N v, S k) { r.optional_path(v, k, &c.probes.spool_dir); }},
           {"routes",
            [&](N v, S k) { r.choice(v, k, &c.probes.routes, {"static", "adaptive"}); }},
       })},
      {"store", section({
                    {"backend",
                     [&](N v, S k) {
                       r.choice(v, k, &c.store.backend, {"sqlite", "postgres"});
                       store_line = Reader::line(v);
                     }},
                    {"path",
                     [&](N v, S k) {
                       r.path(v, k, &c.store.path);
                       path_line = Reader::line(v);
                     }},
                    {"url",
                     [&](N v, S k) {
                       r.string(v, k, &c.store.url, false);
                       url_line = Reader::line(v);
                     }},
                    {"password_file",
                     [&](N v, S k) {
                       r.optional_path(v, k, &c.store.password_file);
                       pw_line = Reader::line(v);
                     }},
                    {"password_env",
                     [&](N v, S k) {
                       r.string(v, k, &c.store.password_env, false);
                       pw_line = Reader::line(v);
                     }},
                    {"raw_window", [&](N v, S k) { r.duration(v, k, &c.store.raw_window_us); }},
                    {"aggregate_window",
                     [&](N v, S k) { r.duration(v, k, &c.store.aggregate_window_us); }},
                    {"event_window", [&](N v, S k) { r.duration(v, k, &c.store.event_window_us); }},
                })},
      {"ha", [&](N v, S k) {
         c.ha.enabled = true;
         c.ha.line = Reader::line(v);
         config_detail::walk(
             r, v, k,
             {{"lease", [&](N v2, S k2) { r.duration(v2, k2, &c.ha.lease_us); }},
              {"renew", [&](N v2, S k2) { r.duration(v2, k2, &c.ha.renew_us); }},
              {"instance", [&](N v2, S k2) { r.string(v2, k2, &c.ha.instance, false); }}});
       }},
      {"rules", section({
                    {"file", [&](N v, S k) { r.optional_path(v, k, &c.rules.file); }},
                })},
      {"actions",
       section({
           {"mode",
            [&](N v, S k) { r.choice(v, k, &c.actions.mode, {"dry-run", "enforce"}); }},
           {"via",
            [&](N v, S k) {
              r.choice(v, k, &c.actions.via, {"smp", "ufm"});
              via_line = Reader::line(v);
            }},
           {"max_disabled_total",
            [&](N v, S k) { r.integer(v, k, &c.actions.max_disabled_total, 0, 100000); }},
           {"max_disabled_per_switch",
            [&](N v, S k) { r.integer(v, k, &c.actions.max_disabled_per_switch, 0, 255); }},
           {"max_actions_per_hour",
            [&](N v, S k) { r.integer(v, k, &c.actions.max_actions_per_hour, 0, 100000); }},
           {"min_up_links", [&](N v, S k) { r.integer(v, k, &c.actions.min_up_links, 1, 255); }},
           {"timeout", [&](N v, S k) { r.duration(v, k, &c.actions.timeout_us); }},
       })},
      {"workorders",
       section({
           {"webhook",
            [&](N v, S k) {
              if (v.IsNull()) return c.workorders.webhook.reset();
              std::string s;
              r.string(v, k, &s, false);
              if (s.empty()) return;
              if (s.rfind("http://", 0) != 0 && s.rfind("https://", 0) != 0)
                return sink.add(Reader::line(v), k, "\"" + s + "\" is not an http:// or https:// URL");
              c.workorders.webhook = s;
            }},
           {"webhook_secret_env",
            [&](N v, S k) { r.string(v, k, &c.workorders.webhook_secret_env, true); }},
           {"webhook_secret_file",
            [&](N v, S k) {
              r.optional_path(v, k, &c.workorders.webhook_secret_file);
              secret_file_line = Reader::line(v);
            }},
           {"webhook_timeout",
            [&](N v, S k) { r.duration(v, k, &c.workorders.webhook_timeout_us); }},
           {"verify_after", [&](N v, S k) { r.duration(v, k, &c.workorders.verify_after_us); }},
       })},
      {"ufm",
       [&](N v, S k) {
         if (v.IsNull()) return c.ufm.reset();
         ufm_line = Reader::line(v);
         ufm_map = v.IsMap();
         c.ufm.emplace();
         config_detail::walk(r, v, k, ufm_keys);
       }},
      {"web",
       [&](N v, S k) {
         c.web.enabled = true;
         config_detail::walk(
             r, v, k,
             {
                 {"listen",
                  [&](N x, S kk) {
                    std::string l;
                    r.string(x, kk, &l, false);
                    auto colon = l.rfind(':');
                    if (l.empty()) return;
                    if (colon == std::string::npos || colon + 1 == l.size() ||
                        l.find_first_not_of("0123456789", colon + 1) != std::string::npos)
                      return sink.add(Reader::line(x), kk,
                                      "\"" + l + "\" is not HOST:PORT like 127.0.0.1:8080");
                    c.web.listen = l;
                  }},
                 {"tokens_file", [&](N x, S kk) { r.optional_path(x, kk, &c.web.tokens_file); }},
                 {"read_only", [&](N x, S kk) { r.boolean(x, kk, &c.web.read_only); }},
                 {"tls_cert",
                  [&](N x, S kk) {
                    r.optional_path(x, kk, &c.web.tls_cert);
                    c.web.tls_cert_line = Reader::line(x);
                  }},
                 {"tls_key",
                  [&](N x, S kk) {
                    r.optional_path(x, kk, &c.web.tls_key);
                    c.web.tls_key_line = Reader::line(x);
                  }},
             });
       }},
      {"log", section({
                  {"level",
                   [&](N v, S k) {
                     std::string s;
                     if (!r.scalar(v, k, &s)) return;
                     if (s != "debug" && s != "info" && s != "warning" && s != "error")
                       return sink.add(Reader::line(v), k,
                                       "\"" + s + "\" is not one of debug, info, warning, error");
                     c.log.level = s;
                   }},
              })},
  };
  if (!root.IsMap())
    sink.add(root ? Reader::line(root) : 0, "", "expected a map of sections");
  else
    config_detail::walk(r, root, "", top);
  if (root.IsMap() && !root["rules"]) {  // omitted: the documented default, never "off"
    c.rules.file = r.resolve("rules.yaml");
    c.rules.defaulted = true;
  }
  if (c.ufm && !ufm_map) c.ufm.reset();  // already reported: not a map
  if (c.ufm) {
    UfmSection& u = *c.ufm;
    if (url_value)
      u.url = *url_value;
    else if (!url_given)
      sink.add(ufm_line, "ufm.url", "required: the UFM server, e.g. https://ufm.example.com");
    u.telemetry.primary = primary;
    u.telemetry.secondary = secondary;
    if (secondary && !primary)
      sink.add(ufm_line, "ufm.telemetry.secondary", "a secondary needs a primary");
    if (u.api != "v3" && u.token_file)
      sink.add(token_line, "ufm.token_file",
               "only api v3 uses a token; v1 and v2 use user_env and password_env");
  }
  if (c.actions.via == "ufm" && !c.ufm)
    sink.add(via_line, "actions.via",
             "\"ufm\" acts through UFM and needs a ufm: section naming the server; use smp "
             "without one");
  if (c.web.tls_cert && !c.web.tls_key)
    sink.add(c.web.tls_cert_line, "web.tls_key",
             "HTTPS needs the private key of web.tls_cert too (give both, or neither for HTTP)");
  if (c.web.tls_key && !c.web.tls_cert)
    sink.add(c.web.tls_key_line, "web.tls_cert",
             "HTTPS needs the certificate of web.tls_key too (give both, or neither for HTTP)");
  if (c.workorders.webhook_secret_file && !c.workorders.webhook_secret_env.empty())
    sink.add(secret_file_line, "workorders.webhook_secret_file",
             "give webhook_secret_env or webhook_secret_file, not both");
  check_store_and_ha(c, sink, StoreKeyLines{store_line, path_line, url_line, pw_line});
  sink.throw_if_any();
  return c;
}

void require_default_rules(const Config& c) {
  const RulesSection& rules = c.rules;
  if (rules.file && rules.defaulted && !std::filesystem::exists(*rules.file))
    throw fabric::InputError(
        {{c.file, 0, "rules.file",
          *rules.file + " does not exist: it is the default when the config has no "
                        "rules: section (write `rules: null` to run without rules)"}});
}

Config load_config(const std::string& path) {
  return parse_config(fabric::read_file(path), path);
}

}  // namespace ibw::config
