// The key tables of the sections about what the daemon watches: fabric, opensm, counters,
// probes, sm_watch and ufm (config_reader.h).
#include "config/config_reader.h"

namespace ibw::config::config_detail {

Keys fabric_keys(Parse& p) {
  Reader& r = p.r;
  FabricSection& f = p.c.fabric;
  Set discovery = [&r, &f](N v, S k) {
    std::string s;
    r.string(v, k, &s, false);
    if (!s.empty()) f.discovery = s == "live" ? s : r.resolve(s);
  };
  return {{"name", r.set_string(&f.name)},
          {"plan", r.set_optional_path(&f.plan)},
          {"node_name_map", r.set_optional_path(&f.node_name_map)},
          {"discovery", discovery},
          {"ca", r.set_string(&f.ca, true)},
          {"ca_port", r.set_integer(&f.ca_port, 0, 255)},
          {"rediscover_interval", r.set_duration(&f.rediscover_interval_us)}};
}

Keys opensm_keys(Parse& p) {
  Reader& r = p.r;
  OpensmSection& o = p.c.opensm;
  return {{"log", r.set_path(&o.log)},
          {"dump_dir", r.set_path(&o.dump_dir)},
          {"timezone", r.set_utc_offset(&o.utc_offset_s)},
          {"poll", r.set_duration(&o.poll_us)},
          {"rediscover_delay", r.set_duration(&o.rediscover_delay_us)},
          {"read_existing", r.set_bool(&o.read_existing)}};
}

Keys counters_keys(Parse& p) {
  Reader& r = p.r;
  CountersSection& c = p.c.counters;
  return {{"enabled", r.set_bool(&c.enabled)},
          {"interval", r.set_duration(&c.interval_us)},
          {"window", r.set_integer(&c.window, 1, 4096)},
          {"timeout", r.set_millis(&c.timeout_ms, 60'000'000, "60s")},
          {"retries", r.set_integer(&c.retries, 0, 10)},
          {"jump_threshold", r.set_integer(&c.jump_threshold, 1, 1LL << 40)},
          {"data_interval", r.set_duration(&c.data_interval_us)}};
}

Keys probes_keys(Parse& p) {
  Reader& r = p.r;
  ProbesSection& s = p.c.probes;
  Set interval = [&r, &s](N v, S k) {
    if (v.IsNull()) return s.interval_us.reset();
    int64_t us = 0;
    r.duration(v, k, &us);
    if (us) s.interval_us = us;
  };
  return {{"interval", interval},
          {"count", r.set_integer(&s.count, 1, 10000)},
          {"timeout", r.set_millis(&s.timeout_ms, 10'000'000, "10s")},
          {"max_in_flight", r.set_integer(&s.max_in_flight, 1, 1024)},
          {"max_rate", r.set_integer(&s.max_rate, 1, 1'000'000)},
          {"window", r.set_integer(&s.window, 1, 10000)},
          {"spool_dir", r.set_optional_path(&s.spool_dir)},
          {"spool_max_bytes", r.set_integer(&s.spool_max_bytes, 1024, 1LL << 34)},
          {"post_records_per_minute", r.set_integer(&s.post_records_per_minute, 1, 1LL << 32)},
          {"post_bytes_per_minute", r.set_integer(&s.post_bytes_per_minute, 1024, 1LL << 40)},
          {"max_posted", r.set_integer(&s.max_posted, 1, 1LL << 32)},
          {"routes", r.set_choice(&s.routes, {"static", "adaptive"})}};
}

Keys sm_watch_keys(Parse& p) {
  Reader& r = p.r;
  SmWatchSection& s = p.c.sm_watch;
  return {{"enabled", r.set_choice(&s.enabled, {"auto", "true", "false"})},
          {"interval", r.set_duration(&s.interval_us)},
          {"timeout", r.set_millis(&s.timeout_ms, 5'000'000, "5s")},
          {"retries", r.set_integer(&s.retries, 0, 5)},
          {"fail_polls", r.set_integer(&s.fail_polls, 1, 100)},
          {"freeze", r.set_duration(&s.freeze_us)},
          {"rescan", r.set_duration(&s.rescan_us)}};
}

// The ufm: section's keys (the section itself is made present by the caller). url and the
// telemetry URLs are noted and checked once the whole file is read (check_ufm).
Keys ufm_keys(Parse& p) {
  Reader& r = p.r;
  Noted& n = p.noted;
  UfmSection& u = *p.c.ufm;
  auto url = [&r](std::optional<std::string>* out, bool allow_null) -> Set {
    return [&r, out, allow_null](N v, S k) { r.url(v, k, out, allow_null); };
  };
  Set telemetry = [&r, &n, url](N v, S k) {
    walk(r, v, k, {{"primary", url(&n.primary, true)}, {"secondary", url(&n.secondary, true)}});
  };
  return {{"url", url(&n.ufm_url, false)},
          {"api", r.set_choice(&u.api, {"v1", "v2", "v3"})},
          {"user_env", r.set_string(&u.user_env)},
          {"password_env", r.set_string(&u.password_env)},
          {"token_file", r.set_optional_path(&u.token_file)},
          {"ca_file", r.set_optional_path(&u.ca_file)},
          {"verify_tls", r.set_bool(&u.verify_tls)},
          {"allow_insecure_url", r.set_bool(&u.allow_insecure_url)},
          {"poll_interval", r.set_duration(&u.poll_interval_us)},
          {"event_log", r.set_optional_path(&u.event_log)},
          {"timezone", r.set_utc_offset(&u.utc_offset_s)},
          {"telemetry", telemetry}};
}

}  // namespace ibw::config::config_detail
