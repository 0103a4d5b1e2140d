// Commands of the event watcher: run, check-config, events, ports.
#include <chrono>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "config/config.h"
#include "config/store_spec.h"
#include "daemon/daemon.h"
#include "daemon/remedy_setup.h"
#include "fabric/diagnostics.h"
#include "fabric/model.h"
#include "fabric/node_name_map.h"
#include "fabric/plan.h"
#include "rules/rules.h"
#include "store/record_json.h"
#include "store/store.h"
#include "web/auth.h"
#include "web/tls.h"

namespace ibw::cli {

using daemon::run_daemon;
using daemon::webhook_secret;

using store::event_json;
using store::iso_time;
using store::port_json;

namespace cmd_watch_detail {

std::unique_ptr<store::Store> open_store(const config::Config& cfg) {
  return store::Store::open(config::store_spec(cfg), /*read_only=*/true);
}

}  // namespace cmd_watch_detail

using namespace cmd_watch_detail;

int cmd_run(const CmdArgs& args) {
  if (!args.has("config")) return args.usage_error("--config is required");
  daemon::ServiceNotifier notifier;  // systemd (Type=notify); a no-op without NOTIFY_SOCKET
  return run_daemon(*args.get("config"), notifier);
}

int cmd_check_config(const CmdArgs& args) {
  try {
    if (!args.has("config")) return args.usage_error("--config is required");
    config::Config cfg = config::load_config(*args.get("config"));
    // Credentials in URLs and secrets over plain http:// (unless allow_insecure_url) fail here;
    // the daemon only warns of them.
    std::vector<fabric::Diagnostic> problems = cfg.insecure;
    auto check = [&](auto&& fn) {
      try {
        fn();
      } catch (const fabric::InputError& e) {
        problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
      }
    };
    if (cfg.fabric.plan) check([&] { fabric::load_plan(*cfg.fabric.plan); });
    if (cfg.fabric.node_name_map)
      check([&] { fabric::load_node_name_map(*cfg.fabric.node_name_map); });
    if (cfg.slurm.enabled) check([&] { config::load_slurm_node_map(cfg); });
    if (cfg.rules.file)
      check([&] {
        config::require_default_rules(cfg);
        rules::load_rules(*cfg.rules.file);
      });
    if (cfg.web.enabled && cfg.web.tls_cert && cfg.web.tls_key)  // readable, 0600, matching
      check([&] {
        web::TlsConfig::load({*cfg.web.tls_cert, *cfg.web.tls_key, cfg.file, cfg.web.tls_cert_line,
                              cfg.web.tls_key_line});
      });
    std::vector<std::string> warnings;
    if (cfg.web.enabled && cfg.web.tokens_file)
      check([&] { warnings = web::TokenSet::load(*cfg.web.tokens_file).warnings(); });
    if (!problems.empty()) throw fabric::InputError(std::move(problems));
    if (cfg.workorders.webhook) webhook_secret(cfg);  // throws when set but unusable
    for (const auto& w : cfg.warnings) warnings.push_back(fabric::format_diagnostic(w));
    for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
    std::cout << cfg.file << ": ok\n";
    return 0;
  } catch (const UsageError& e) {
    return args.usage_error(e.what());
  } catch (const std::exception& e) {  // InputError lists every problem as file:line: key
    std::cerr << e.what() << "\n";
    return 2;
  }
}

int cmd_events(const CmdArgs& args) {
  return run_command(args, "events", [&] {
    if (!args.has("config")) return args.usage_error("--config is required");
    std::string format = args.choice("format", "text");
    store::EventQuery q;
    if (auto s = args.get("since")) q.since_us = parse_since_arg(*s);
    q.limit = static_cast<size_t>(args.get_int("limit", 1, 10'000'000).value_or(100'000));
    std::optional<fabric::PortSpec> spec;
    if (auto p = args.get("port")) {
      std::string err;
      spec = fabric::parse_port_spec(*p, &err);
      if (!spec) throw UsageError("--port: " + err);
    }
    config::Config cfg = config::load_config(*args.get("config"));
    auto db = open_store(cfg);
    uint64_t guid = 0;
    if (spec) {
      guid = spec->guid.value_or(0);
      if (!guid)
        for (const auto& r : db->ports(spec->node)) guid = r.node_guid;
      if (!guid) {
        std::cerr << "ibwarden events: unknown node \"" << spec->node << "\"\n";
        return 2;
      }
    }
    size_t limit = q.limit;
    if (spec) q.limit = 0;  // the port filter (either end) runs here: limit what it keeps
    auto events = db->events(q);
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    size_t shown = 0;
    for (const auto& e : events) {
      if (spec && !((e.event.node_guid == guid && e.event.port == spec->port) ||
                    (e.event.peer_guid == guid && e.event.peer_port == spec->port)))
        continue;
      if (shown++ == limit) {
        std::cerr << "ibwarden events: stopped at --limit " << limit << "; use --since to page\n";
        break;
      }
      if (format == "json") {
        out.push_back(event_json(e));
      } else {
        std::cout << iso_time(e.event.time_us) << "  " << ingest::source_name(e.event.source)
                  << "  " << e.event.kind << "  " << e.event.message;
        if (!e.event.cable_id.empty()) std::cout << "  [cable " << e.event.cable_id << "]";
        std::cout << "\n";
      }
    }
    if (format == "json") std::cout << out.dump(2) << "\n";
    if (!spec && limit && events.size() == limit)
      std::cerr << "ibwarden events: stopped at --limit " << limit << "; use --since to page\n";
    return 0;
  });
}

int cmd_ports(const CmdArgs& args) {
  return run_command(args, "ports", [&] {
    if (!args.has("config")) return args.usage_error("--config is required");
    std::string format = args.choice("format", "text");
    config::Config cfg = config::load_config(*args.get("config"));
    auto db = open_store(cfg);
    auto ports = db->ports(args.get("node").value_or(""));
    if (format == "json") {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const auto& p : ports) out.push_back(port_json(p));
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    for (const auto& p : ports) {
      std::cout << p.node << "/" << p.port << "  "
                << (p.state ? fabric::port_state_name(p.state) : "?") << "/"
                << (p.phys_state ? fabric::phys_state_name(p.phys_state) : "?");
      if (!p.peer_node.empty()) std::cout << "  -> " << p.peer_node << "/" << p.peer_port;
      if (!p.cable_id.empty()) std::cout << "  [" << p.cable_id << "]";
      if (p.counters.has(ingest::Counter::SymbolErrorCounter))
        std::cout << "  SymbolErrorCounter=" << p.counters.get(ingest::Counter::SymbolErrorCounter);
      if (p.ufm) {  // UFM's view, when UFM reports the port
        std::cout << "  ufm:" << (p.ufm->logical_state.empty() ? "?" : p.ufm->logical_state);
        if (!p.ufm->high_ber_severity.empty())
          std::cout << " high_ber=" << p.ufm->high_ber_severity;
      }
      std::cout << "\n";
    }
    return 0;
  });
}

}  // namespace ibw::cli
