// Cross-field checks of the store: and ha: sections (config/config.cpp calls them once the
// whole file is read), and the defaults that depend on where the file is. Internal to config/.
#pragma once

#include "config/config.h"
#include "fabric/diagnostics.h"

namespace ibw::config {

// Lines of the store keys as given (0 = not given), for the diagnostics.
struct StoreKeyLines {
  int backend = 0;
  int path = 0;
  int url = 0;
  int password = 0;  // password_file or password_env
};

// postgres needs store.url and takes no store.path; sqlite takes no url or password; at most
// one of password_file and password_env; no password in the URL; ha: only with postgres and
// renew shorter than lease. Fills ha.instance when not given (host name and config path).
void check_store_and_ha(Config& c, fabric::DiagnosticSink& sink, const StoreKeyLines& lines);

// The default lease holder name of a daemon started with `config_file` on this host:
// "<hostname>:<absolute config path>", unique per daemon and the same for `ibwarden status`.
std::string default_instance(const std::string& config_file);

}  // namespace ibw::config
