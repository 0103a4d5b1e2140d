#include "config/store_checks.h"

#include <unistd.h>

#include <filesystem>

namespace ibw::config {

namespace store_checks_detail {

// "postgresql://user:secret@host/db" or "... password=secret ...": a password in the text.
bool url_has_password(const std::string& url) {
  if (url.find("password=") != std::string::npos) return true;
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return false;
  auto at = url.find('@', scheme + 3);
  auto slash = url.find('/', scheme + 3);
  if (at == std::string::npos || (slash != std::string::npos && slash < at)) return false;
  return url.substr(scheme + 3, at - scheme - 3).find(':') != std::string::npos;
}

}  // namespace store_checks_detail

std::string default_instance(const std::string& config_file) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::error_code ec;
  auto abs = std::filesystem::weakly_canonical(std::filesystem::absolute(config_file, ec), ec);
  return std::string(host[0] ? host : "localhost") + ":" + (ec ? config_file : abs.string());
}

void check_store_and_ha(Config& c, fabric::DiagnosticSink& sink, const StoreKeyLines& l) {
  StoreSection& s = c.store;
  if (s.backend == "postgres") {
    if (s.url.empty())
      sink.add(l.backend, "store.url",
               "required with backend postgres: the server, e.g. "
               "postgresql://ibwarden@db.example.com/ibwarden");
    if (l.path)
      sink.add(l.path, "store.path",
               "is the SQLite file; backend postgres uses store.url (remove one of them)");
    if (s.password_file && !s.password_env.empty())
      sink.add(l.password, "store.password_file", "give password_file or password_env, not both");
    if (store_checks_detail::url_has_password(s.url))
      sink.add(l.url, "store.url",
               "the password does not belong in the URL; use password_file or password_env");
  } else {
    if (l.url)
      sink.add(l.url, "store.url", "is for backend postgres; this store is sqlite (store.path)");
    if (l.password)
      sink.add(l.password, "store.password_file",
               "password_file and password_env are for backend postgres");
  }
  if (!c.ha.enabled) return;
  if (s.backend != "postgres")
    sink.add(c.ha.line, "ha",
             "leader leases need store.backend postgres: the lease lives in the database the "
             "daemons share (remove ha: for a single SQLite host)");
  if (c.ha.renew_us >= c.ha.lease_us)
    sink.add(c.ha.line, "ha.renew",
             "must be shorter than ha.lease, or the lease lapses between renewals (e.g. lease "
             "15s, renew 5s)");
  if (c.ha.instance.empty()) c.ha.instance = default_instance(c.file);
}

}  // namespace ibw::config
