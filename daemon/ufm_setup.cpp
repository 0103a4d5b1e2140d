// UFM wiring from the configuration; see ufm_setup.h.
#include "daemon/ufm_setup.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "fabric/diagnostics.h"

namespace ibw::daemon {
namespace ufm_setup_detail {

std::string from_env(const std::string& key, const std::string& variable) {
  const char* v = std::getenv(variable.c_str());
  if (!v || !*v)
    throw std::runtime_error("ufm." + key + ": environment variable " + variable +
                             " is not set (or empty)");
  return v;
}

int64_t clamp_us(int64_t v, int64_t lo, int64_t hi) {
  return std::clamp(v, lo, hi);
}

// Timeouts, backoff and breaker for a source polled every period_us.
void scale(ingest::UfmClientOptions& o, int64_t period_us) {
  o.timeout_ms = static_cast<long>(clamp_us(3 * period_us, 5'000'000, 30'000'000) / 1000);
  o.connect_timeout_ms = std::min<long>(5000, o.timeout_ms);
  o.max_attempts = 3;
  o.backoff_initial_us = clamp_us(period_us / 10, 20'000, 500'000);
  o.backoff_max_us = clamp_us(period_us, 100'000, 8'000'000);
  o.breaker.failures_to_open = 5;
  o.breaker.cooldown_us = clamp_us(3 * period_us, 1'000'000, 300'000'000);
}

}  // namespace ufm_setup_detail

ingest::UfmCredentials ufm_credentials(const config::UfmSection& ufm) {
  namespace d = ufm_setup_detail;
  ingest::UfmCredentials c;
  if (ufm.ca_file && !std::ifstream(*ufm.ca_file))
    throw std::runtime_error("ufm.ca_file: cannot read " + *ufm.ca_file);
  if (ufm.api == "v3" && ufm.token_file) {
    std::string t;
    try {
      t = fabric::read_secret_file(*ufm.token_file);
    } catch (const std::exception& e) {  // names the file: missing, writable by others, too big
      throw std::runtime_error(std::string("ufm.token_file: ") + e.what());
    }
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    if (t.empty()) throw std::runtime_error("ufm.token_file: " + *ufm.token_file + " is empty");
    c.token = std::move(t);
    return c;
  }
  c.user = d::from_env("user_env", ufm.user_env);
  c.password = d::from_env("password_env", ufm.password_env);
  return c;
}

ingest::UfmClientOptions ufm_client_options(const config::UfmSection& ufm,
                                            ingest::UfmCredentials credentials) {
  ingest::UfmClientOptions o;
  o.url = ufm.url;
  o.api = ingest::parse_ufm_api(ufm.api).value_or(ingest::UfmApi::v3);
  o.credentials = std::move(credentials);
  o.verify_tls = ufm.verify_tls;
  o.ca_file = ufm.ca_file.value_or("");
  ufm_setup_detail::scale(o, ufm.poll_interval_us);
  return o;
}

ingest::UfmClientOptions ufm_telemetry_options(const config::UfmSection& ufm,
                                               const std::string& url, int64_t interval_us) {
  ingest::UfmClientOptions o;
  o.url = url;
  o.api = ingest::UfmApi::plain;
  o.verify_tls = ufm.verify_tls;
  o.ca_file = ufm.ca_file.value_or("");
  ufm_setup_detail::scale(o, interval_us);
  o.max_attempts = 2;  // a secondary may answer instead
  return o;
}

size_t drop_ufm_port_view(store::Store& store) {
  store::WriteBatch batch;
  for (const auto& u : store.ufm_ports()) batch.ufm_ports_removed.emplace_back(u.node_guid, u.port);
  if (!batch.ufm_ports_removed.empty()) store.write(batch);
  return batch.ufm_ports_removed.size();
}

}  // namespace ibw::daemon
