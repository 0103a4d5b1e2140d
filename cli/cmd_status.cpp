// `ibwarden status --config FILE [--format json]`: this instance's role on its fabric, read
// from the store the configuration names. With ha: (PostgreSQL) the role is "leader" when the
// fabric's lease is held by this instance (ha.instance, by default "<host>:<config path>")
// and not expired, "standby" otherwise; without ha: a daemon watches its fabric alone and is
// its leader. "subnet_manager" is the SM state the daemon's SM watcher last stored (cursor
// "subnet_manager": master, standbys, last sweep; null when never stored).
// Exit 0 on an answer, 2 when the configuration or the store cannot be read.
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "config/config.h"
#include "config/store_spec.h"
#include "store/record_json.h"

namespace ibw::cli {

int cmd_status(const CmdArgs& args) {
  return run_command(args, "status", [&] {
    if (!args.has("config")) return args.usage_error("--config is required");
    std::string format = args.choice("format", "text");
    config::Config cfg = config::load_config(*args.get("config"));
    auto db = store::Store::open(config::store_spec(cfg), /*read_only=*/true);
    std::optional<store::Lease> lease;
    if (cfg.ha.enabled) lease = db->lease();
    bool live = lease && !lease->holder.empty() && lease->expires_us > lease->now_us;
    bool leader = !cfg.ha.enabled || (live && lease->holder == cfg.ha.instance);
    nlohmann::ordered_json out;
    out["fabric"] = cfg.fabric.name;
    out["role"] = leader ? "leader" : "standby";
    out["instance"] = cfg.ha.enabled ? nlohmann::ordered_json(cfg.ha.instance) : nullptr;
    out["backend"] = cfg.store.backend;
    out["ha"] = cfg.ha.enabled;
    out["holder"] = live ? nlohmann::ordered_json(lease->holder) : nullptr;
    out["epoch"] = lease ? nlohmann::ordered_json(lease->epoch) : nullptr;
    out["lease_expires"] = lease && lease->expires_us
                               ? nlohmann::ordered_json(store::iso_time(lease->expires_us))
                               : nullptr;
    out["lease_expires_in_s"] =
        lease ? nlohmann::ordered_json((lease->expires_us - lease->now_us) / 1e6) : nullptr;
    // The subnet manager as the daemon's SM watcher last stored it (null: never stored).
    nlohmann::ordered_json sm = nullptr;
    if (auto text = db->cursor("subnet_manager"))
      sm = nlohmann::ordered_json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (sm.is_discarded()) sm = nullptr;
    out["subnet_manager"] = sm;
    if (format == "json") {
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::cout << "fabric:   " << cfg.fabric.name << "\n"
              << "role:     " << out["role"].get<std::string>() << "\n";
    if (sm.is_object() && sm.value("watch", "") == "off")
      std::cout << "sm:       not watched (" << sm.value("detail", std::string()) << ")\n";
    else if (!sm.is_object())
      std::cout << "sm:       unknown (no SM state stored: the daemon's SM watcher has not run)\n";
    else if (sm["master"].is_object())
      std::cout << "sm:       master " << sm["master"]["guid"].get<std::string>() << " (LID "
                << sm["master"]["lid"] << ", priority " << sm["master"]["priority"] << ") since "
                << sm["master"]["since"].get<std::string>() << ", " << sm["standby"].size()
                << " standby\n";
    else
      std::cout << "sm:       NO MASTER (" << sm.value("detail", std::string()) << "); automatic "
                << "port actions are held\n";
    if (!cfg.ha.enabled) {
      std::cout << "ha:       off (store " << cfg.store.backend
                << "; this daemon watches the fabric alone)\n";
      return 0;
    }
    std::cout << "instance: " << cfg.ha.instance << "\n";
    if (!lease || lease->holder.empty()) {
      std::cout << "lease:    never taken\n";
      return 0;
    }
    std::cout << "holder:   " << lease->holder << (live ? "" : " (expired)") << ", epoch "
              << lease->epoch << "\n"
              << "expires:  " << store::iso_time(lease->expires_us) << " (in "
              << (lease->expires_us - lease->now_us) / 1e6 << " s)\n";
    return 0;
  });
}

}  // namespace ibw::cli
