// What a valid configuration may still do wrong with secrets and exposure (issue 31), noted
// into Config::insecure and Config::warnings (config.h) by parse_config: check-config refuses
// the first, the daemon logs both.
#include <string>
#include <string_view>

#include "config/config_reader.h"

namespace ibw::config::config_detail {
namespace {

// The host of "scheme://[user@]host[:port]/..." (brackets of an IPv6 address kept).
std::string_view url_host(std::string_view url, bool* userinfo) {
  size_t scheme = url.find("://");
  size_t at = scheme == std::string_view::npos ? 0 : scheme + 3;
  std::string_view auth = url.substr(at, url.find_first_of("/?#", at) - at);
  size_t u = auth.rfind('@');
  *userinfo = u != std::string_view::npos;
  if (*userinfo) auth.remove_prefix(u + 1);
  if (!auth.empty() && auth.front() == '[') return auth.substr(0, auth.find(']') + 1);
  return auth.substr(0, auth.find(':'));
}

bool loopback(std::string_view host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1" || host == "[::1]";
}

bool plain_http(std::string_view url) {
  return url.rfind("http://", 0) == 0;
}

}  // namespace

void note_insecure(Parse& p) {
  Config& c = p.c;
  auto insecure = [&](const char* key, std::string message) {
    c.insecure.push_back({c.file, p.r.line_of(key), key, std::move(message)});
  };
  bool userinfo = false;
  if (const auto& url = c.workorders.webhook; url && !c.workorders.allow_insecure_url) {
    std::string_view host = url_host(*url, &userinfo);
    bool secret = userinfo || !c.workorders.webhook_secret_env.empty() ||
                  c.workorders.webhook_secret_file || url->find('?') != std::string::npos;
    if (userinfo)
      insecure("workorders.webhook",
               "user:password@ in the URL: credentials in a URL end up in logs; use "
               "webhook_secret_env or webhook_secret_file (or allow_insecure_url: true)");
    else if (secret && plain_http(*url) && !loopback(host))
      insecure("workorders.webhook",
               "a secret would cross the network unencrypted (plain http:// to " +
                   std::string(host) + "); use https:// (or allow_insecure_url: true)");
  }
  if (c.ufm && !c.ufm->allow_insecure_url && plain_http(c.ufm->url) &&
      !loopback(url_host(c.ufm->url, &userinfo)))
    insecure("ufm.url",
             "UFM credentials would cross the network unencrypted (plain http://); use https:// "
             "(or allow_insecure_url: true)");
  const WebSection& w = c.web;
  if (!w.enabled) return;
  std::string host = w.listen.substr(0, w.listen.rfind(':'));
  if (loopback(host)) return;
  std::string where = "web.listen " + w.listen + " is reachable from other hosts";
  if (!w.tokens_file)
    c.warnings.push_back({c.file, p.r.line_of("web.listen"), "web.listen",
                          where + " and has no tokens_file: anyone who reaches it reads the "
                                  "fabric's state (and no Host check stops DNS rebinding)"});
  else if (!w.tls_cert)
    c.warnings.push_back({c.file, p.r.line_of("web.listen"), "web.listen",
                          where + " without TLS: tokens cross the network in clear text "
                                  "(set tls_cert and tls_key, or listen on 127.0.0.1 behind a "
                                  "proxy)"});
}

}  // namespace ibw::config::config_detail
