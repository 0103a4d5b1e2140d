// The key tables of the sections about what the daemon keeps and does: store, ha, rules,
// actions, workorders, web and log (config_reader.h).
#include "config/config_reader.h"

namespace ibw::config::config_detail {

Keys store_keys(Parse& p) {
  Reader& r = p.r;
  StoreSection& s = p.c.store;
  return {{"backend", r.set_choice(&s.backend, {"sqlite", "postgres"})},
          {"path", r.set_path(&s.path)},
          {"url", r.set_string(&s.url)},
          {"password_file", r.set_optional_path(&s.password_file)},
          {"password_env", r.set_string(&s.password_env)},
          {"raw_window", r.set_duration(&s.raw_window_us)},
          {"aggregate_window", r.set_duration(&s.aggregate_window_us)},
          {"event_window", r.set_duration(&s.event_window_us)}};
}

Keys ha_keys(Parse& p) {
  Reader& r = p.r;
  HaSection& h = p.c.ha;
  return {{"lease", r.set_duration(&h.lease_us)},
          {"renew", r.set_duration(&h.renew_us)},
          {"instance", r.set_string(&h.instance)}};
}

Keys rules_keys(Parse& p) {
  return {{"file", p.r.set_optional_path(&p.c.rules.file)}};
}

Keys actions_keys(Parse& p) {
  Reader& r = p.r;
  ActionsSection& a = p.c.actions;
  return {{"mode", r.set_choice(&a.mode, {"dry-run", "enforce"})},
          {"via", r.set_choice(&a.via, {"smp", "ufm"})},
          {"max_disabled_total", r.set_integer(&a.max_disabled_total, 0, 100000)},
          {"max_disabled_per_switch", r.set_integer(&a.max_disabled_per_switch, 0, 255)},
          {"max_actions_per_hour", r.set_integer(&a.max_actions_per_hour, 0, 100000)},
          {"min_up_links", r.set_integer(&a.min_up_links, 1, 255)},
          {"timeout", r.set_duration(&a.timeout_us)}};
}

Keys workorders_keys(Parse& p) {
  Reader& r = p.r;
  WorkordersSection& w = p.c.workorders;
  Set webhook = [&r, &w](N v, S k) {
    if (v.IsNull()) return w.webhook.reset();
    std::string s;
    r.string(v, k, &s, false);
    if (s.empty()) return;
    if (s.rfind("http://", 0) != 0 && s.rfind("https://", 0) != 0)
      return r.bad(v, k, "\"" + s + "\" is not an http:// or https:// URL");
    w.webhook = s;
  };
  return {{"webhook", webhook},
          {"webhook_secret_env", r.set_string(&w.webhook_secret_env, true)},
          {"webhook_secret_file", r.set_optional_path(&w.webhook_secret_file)},
          {"webhook_timeout", r.set_duration(&w.webhook_timeout_us)},
          {"verify_after", r.set_duration(&w.verify_after_us)},
          {"allow_insecure_url", r.set_bool(&w.allow_insecure_url)}};
}

Keys web_keys(Parse& p) {
  Reader& r = p.r;
  WebSection& w = p.c.web;
  Set listen = [&r, &w](N v, S k) {
    std::string l;
    r.string(v, k, &l, false);
    auto colon = l.rfind(':');
    if (l.empty()) return;
    if (colon == std::string::npos || colon + 1 == l.size() ||
        l.find_first_not_of("0123456789", colon + 1) != std::string::npos)
      return r.bad(v, k, "\"" + l + "\" is not HOST:PORT like 127.0.0.1:8080");
    if (l.size() - colon - 1 > 5 || std::stol(l.substr(colon + 1)) > 65535)
      return r.bad(v, k, "port " + l.substr(colon + 1) + " is not a TCP port (0 to 65535)");
    w.listen = l;
  };
  return {
      {"listen", listen},
      {"tokens_file", r.set_optional_path(&w.tokens_file)},
      {"read_only", r.set_bool(&w.read_only)},
      {"tls_cert", r.set_optional_path(&w.tls_cert)},
      {"tls_key", r.set_optional_path(&w.tls_key)},
      {"max_connections", r.set_integer(&w.max_connections, 1, 100'000)},
      {"max_connections_per_address", r.set_integer(&w.max_connections_per_address, 1, 100'000)},
      {"max_streams", r.set_integer(&w.max_streams, 0, 100'000)},
      {"max_streams_per_token", r.set_integer(&w.max_streams_per_token, 0, 100'000)},
      {"request_timeout", r.set_millis(&w.request_timeout_ms, 3'600'000'000, "1h")},
      {"keepalive_timeout", r.set_millis(&w.keepalive_timeout_ms, 3'600'000'000, "1h")},
      {"access_log", r.set_bool(&w.access_log)}};
}

Keys log_keys(Parse& p) {
  return {{"level", p.r.set_choice(&p.c.log.level, {"debug", "info", "warning", "error"})}};
}

}  // namespace ibw::config::config_detail
