// parse_config: the top-level table of sections (each section's keys are in
// config_sections_*.cpp) and the checks across sections once the whole file is read.
#include "config/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "config/config_reader.h"
#include "config/store_checks.h"
#include "fabric/diagnostics.h"
#include "fabric/text_util.h"

namespace ibw::config {
namespace config_detail {

// The top level: one entry a section, reading it with its key table.
Keys sections(Parse& p) {
  Reader& r = p.r;
  Config& c = p.c;
  auto section = [&p](Keys (*keys)(Parse&)) -> Set {
    return [&p, keys](N v, S k) { walk(p.r, v, k, keys(p)); };
  };
  Set ha = [&](N v, S k) {
    c.ha.enabled = true;
    c.ha.line = Reader::line(v);
    walk(r, v, k, ha_keys(p));
  };
  Set ufm = [&](N v, S k) {
    if (v.IsNull()) return c.ufm.reset();
    p.noted.ufm_map = v.IsMap();
    c.ufm.emplace();
    walk(r, v, k, ufm_keys(p));
  };
  Set web = [&](N v, S k) {
    c.web.enabled = true;
    walk(r, v, k, web_keys(p));
  };
  return {{"fabric", section(fabric_keys)},
          {"opensm", section(opensm_keys)},
          {"counters", section(counters_keys)},
          {"probes", section(probes_keys)},
          {"sm_watch", section(sm_watch_keys)},
          {"store", section(store_keys)},
          {"ha", ha},
          {"rules", section(rules_keys)},
          {"actions", section(actions_keys)},
          {"workorders", section(workorders_keys)},
          {"ufm", ufm},
          {"web", web},
          {"slurm", section(slurm_keys)},
          {"log", section(log_keys)}};
}

// The ufm: section as a whole: url required, secondary only with a primary, token only on v3.
void check_ufm(Parse& p, DiagnosticSink& sink) {
  const Noted& n = p.noted;
  std::optional<UfmSection>& ufm = p.c.ufm;
  if (ufm && !n.ufm_map) ufm.reset();  // already reported: not a map
  if (!ufm) return;
  int line = p.r.line_of("ufm");
  if (n.ufm_url)
    ufm->url = *n.ufm_url;
  else if (!p.r.given("ufm.url"))
    sink.add(line, "ufm.url", "required: the UFM server, e.g. https://ufm.example.com");
  ufm->telemetry.primary = n.primary;
  ufm->telemetry.secondary = n.secondary;
  if (n.secondary && !n.primary)
    sink.add(line, "ufm.telemetry.secondary", "a secondary needs a primary");
  if (ufm->api != "v3" && ufm->token_file)
    sink.add(p.r.line_of("ufm.token_file"), "ufm.token_file",
             "only api v3 uses a token; v1 and v2 use user_env and password_env");
}

// Keys that need another key or section: actions.via ufm, the TLS pair, one webhook secret.
void check_pairs(Parse& p, DiagnosticSink& sink) {
  Config& c = p.c;
  c.web.tls_cert_line = p.r.line_of("web.tls_cert");
  c.web.tls_key_line = p.r.line_of("web.tls_key");
  if (c.actions.via == "ufm" && !c.ufm)
    sink.add(p.r.line_of("actions.via"), "actions.via",
             "\"ufm\" acts through UFM and needs a ufm: section naming the server; use smp "
             "without one");
  if (c.web.tls_cert && !c.web.tls_key)
    sink.add(c.web.tls_cert_line, "web.tls_key",
             "HTTPS needs the private key of web.tls_cert too (give both, or neither for HTTP)");
  if (c.web.tls_key && !c.web.tls_cert)
    sink.add(c.web.tls_key_line, "web.tls_cert",
             "HTTPS needs the certificate of web.tls_key too (give both, or neither for HTTP)");
  if (c.sm_watch.freeze_us < 2 * c.sm_watch.interval_us && p.r.given("sm_watch.freeze"))
    sink.add(p.r.line_of("sm_watch.freeze"), "sm_watch.freeze",
             "must be at least twice sm_watch.interval: the ActCount is read once a poll");
  c.slurm.node_map_line = p.r.line_of("slurm.node_map");
  if (c.workorders.webhook_secret_file && !c.workorders.webhook_secret_env.empty())
    sink.add(p.r.line_of("workorders.webhook_secret_file"), "workorders.webhook_secret_file",
             "give webhook_secret_env or webhook_secret_file, not both");
}

// Where the store keys were given, for check_store_and_ha.
StoreKeyLines store_lines(const Reader& r) {
  return {r.line_of("store.backend"), r.line_of("store.path"), r.line_of("store.url"),
          std::max(r.line_of("store.password_file"), r.line_of("store.password_env"))};
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
  using config_detail::Reader;
  Config c;
  c.file = file;
  fabric::DiagnosticSink sink(file);
  YAML::Node root = core::load_document(text, sink);
  std::string dir = std::filesystem::path(file).parent_path().string();
  config_detail::Parse p{Reader{sink, dir}, c, {}};
  if (!root.IsMap())
    sink.add(root ? Reader::line(root) : 0, "", "expected a map of sections");
  else
    config_detail::walk(p.r, root, "", config_detail::sections(p));
  if (root.IsMap() && !root["rules"]) {  // omitted: the documented default, never "off"
    c.rules.file = p.r.resolve("rules.yaml");
    c.rules.defaulted = true;
  }
  config_detail::check_ufm(p, sink);
  config_detail::check_pairs(p, sink);
  check_store_and_ha(c, sink, config_detail::store_lines(p.r));
  sink.throw_if_any();
  config_detail::note_insecure(p);
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
  return parse_config(fabric::read_file(path, fabric::kMaxConfigBytes, "a config file"), path);
}

}  // namespace ibw::config
