#include "config/store_spec.h"

#include <cstdlib>

#include "fabric/diagnostics.h"

namespace ibw::config {

core::StoreSpec store_spec(const Config& cfg) {
  core::StoreSpec s;
  s.backend = cfg.store.backend;
  s.path = cfg.store.path;
  s.url = cfg.store.url;
  s.fabric = cfg.fabric.name;
  if (cfg.store.password_file) {
    std::string text;
    try {
      text = fabric::read_secret_file(*cfg.store.password_file);
    } catch (const std::exception& e) {
      throw fabric::InputError({{cfg.file, 0, "store.password_file", e.what()}});
    }
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    s.password = text;
  } else if (!cfg.store.password_env.empty()) {
    const char* v = std::getenv(cfg.store.password_env.c_str());
    if (!v)
      throw fabric::InputError({{cfg.file, 0, "store.password_env",
                                 cfg.store.password_env + " is not set in the environment"}});
    s.password = v;
  }
  return s;
}

}  // namespace ibw::config
