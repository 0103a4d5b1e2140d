// `ibwarden run` (daemon/daemon.h): signals, the first configuration, and the loop over
// configuration generations (a reload or an HA step-down starts the next one). A generation
// is built by prepare() (prepare.cpp) and run by run_generation() (generation.cpp).
#include "daemon/daemon.h"

#include <csignal>

#include "daemon/logger.h"
#include "daemon/runtime.h"

namespace ibw::daemon {
namespace daemon_detail {

std::atomic<bool> g_stop{false};
std::atomic<bool> g_reload{false};

extern "C" void on_signal(int sig) {
  if (sig == SIGHUP)
    g_reload = true;
  else
    g_stop = true;
}

void log_started(const Runtime& rt, const std::string& config_path) {
  const config::Config& c = rt.cfg;
  log(LogLevel::info, "ibwarden started",
      {{"config", config_path},
       {"fabric", c.fabric.name},
       {"store", c.store.path},
       {"discovery", c.fabric.discovery},
       {"opensm_log", c.opensm.log},
       {"rules", c.rules.file.value_or("")},
       {"rules_loaded", rt.rules.loaded},
       {"actions_mode", c.actions.mode},
       {"webhook", c.workorders.webhook.has_value()},
       // Parts whose documented default is off say so here: an omitted section is never
       // "off" in silence.
       {"plan", c.fabric.plan.value_or("none (no cable IDs)")},
       {"counters", c.counters.enabled ? "on" : "off"},
       {"probes", c.probes.interval_us ? "on" : "off (probes.interval null)"},
       {"ufm", c.ufm ? c.ufm->url : std::string("none")},
       {"web", c.web.enabled ? c.web.listen : std::string("off (no web: section)")}});
  if (c.actions.mode == "enforce" && rt.rules.loaded <= 0)
    log(LogLevel::error,
        "actions.mode is enforce but no rules are loaded: nothing is acted on automatically",
        {{"rules", c.rules.file.value_or("(no rules.file)")}, {"rules_loaded", rt.rules.loaded}});
}

}  // namespace daemon_detail

int run_daemon(const std::string& config_path, ServiceNotifier& notifier) {
  using namespace daemon_detail;
  config::Config cfg;
  try {
    cfg = config::load_config(config_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ibwarden run: invalid configuration:\n%s\n", e.what());
    notifier.status(std::string("invalid configuration: ") + e.what());
    return 2;
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  DaemonProcess process{config_path, notifier};
  std::unique_ptr<Runtime> rt;
  try {
    rt = prepare(cfg, process.mad);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ibwarden run: cannot start:\n%s\n", e.what());
    notifier.status(std::string("cannot start: ") + e.what());
    return 2;
  }
  bool store_failed = false;
  while (rt && !g_stop) {
    set_log_level(rt->cfg.log.level);
    log_started(*rt, config_path);
    auto next = run_generation(*rt, process);
    store_failed = rt->store.failed;
    rt = std::move(next);
  }
  notifier.stopping();  // when a reload was accepted just as a stop came
  log(LogLevel::info, "ibwarden stopped");
  return store_failed ? 1 : 0;
}

}  // namespace ibw::daemon
