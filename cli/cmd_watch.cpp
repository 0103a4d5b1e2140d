// Commands of the event watcher: run, check-config, events, ports.
#include <chrono>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "config/config.h"
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

constexpr const char* kRunHelp = R"(usage: ibwarden run --config FILE

Runs the event watcher: tails the OpenSM log, re-discovers the fabric on link-state traps,
polls port counters, and stores events, samples and port state in SQLite.
SIGTERM/SIGINT stop it cleanly; SIGHUP reloads the configuration (a new file that does not
validate is rejected and the running one kept). Logs are JSON lines on stderr.
)";

constexpr const char* kCheckHelp = R"(usage: ibwarden check-config --config FILE

Validates the configuration (unknown keys included) and the plan, node-name-map and rules
file it names, and that the webhook secret is readable when one is configured. Prints every problem as file:line: key: message. Exit 0 valid, 2 invalid.
)";

constexpr const char* kEventsHelp =
    R"(usage: ibwarden events --config FILE [--since DURATION|TIME] [--port NODE/PORT]
                       [--limit N] [--format text|json]

Prints stored events, oldest first. --since takes a duration back from now (10m, 2h, 1d)
or an ISO time (2026-11-22T01:00:00Z). --port NODE/PORT (or 0xGUID/PORT) keeps the events
of that port, at either end of its link. JSON: an array of
{id, time, source, kind, severity, node, node_guid, port, peer_node, peer_port, cable_id, message}.
)";

constexpr const char* kPortsHelp =
    R"(usage: ibwarden ports --config FILE [--node NODE] [--format text|json]

Prints the last known state and counters of every port (or of one node's ports). JSON: an
array of {node, node_guid, port, lid, peer_node, peer_port, cable_id, state, phys_state,
width, speed, counters: {...}, rates: {...}, last_change} (+ ufm: UFM's view of the port, when
UFM reports it; the text format then ends with ufm:STATE [high_ber=SEVERITY]).
)";

std::unique_ptr<store::Store> open_store(const config::Config& cfg) {
  return store::Store::open(cfg.store.path, /*read_only=*/true);
}

}  // namespace cmd_watch_detail

using namespace cmd_watch_detail;

int cmd_run(int argc, char** argv, int first) {
  try {
    Args args({{"config"}, {"help", false}}, argc, argv, first);
    if (args.has("help")) return std::cout << kRunHelp, 0;
    if (!args.has("config")) return usage_error("run", "--config is required", kRunHelp);
    return run_daemon(*args.get("config"));
  } catch (const UsageError& e) {
    return usage_error("run", e.what(), kRunHelp);
  }
}

int cmd_check_config(int argc, char** argv, int first) {
  try {
    Args args({{"config"}, {"help", false}}, argc, argv, first);
    if (args.has("help")) return std::cout << kCheckHelp, 0;
    if (!args.has("config")) return usage_error("check-config", "--config is required", kCheckHelp);
    config::Config cfg = config::load_config(*args.get("config"));
    std::vector<fabric::Diagnostic> problems;
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
    for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
    std::cout << cfg.file << ": ok\n";
    return 0;
  } catch (const UsageError& e) {
    return usage_error("check-config", e.what(), kCheckHelp);
  } catch (const std::exception& e) {  // InputError lists every problem as file:line: key
    std::cerr << e.what() << "\n";
    return 2;
  }
}

int cmd_events(int argc, char** argv, int first) {
  try {
    Args args({{"config"}, {"since"}, {"port"}, {"limit"}, {"format"}, {"help", false}}, argc, argv,
              first);
    if (args.has("help")) return std::cout << kEventsHelp, 0;
    if (!args.has("config")) return usage_error("events", "--config is required", kEventsHelp);
    std::string format = format_arg(args);
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
  } catch (const UsageError& e) {
    return usage_error("events", e.what(), kEventsHelp);
  } catch (const std::exception& e) {
    std::cerr << "ibwarden events: " << e.what() << "\n";
    return 2;
  }
}

int cmd_ports(int argc, char** argv, int first) {
  try {
    Args args({{"config"}, {"node"}, {"format"}, {"help", false}}, argc, argv, first);
    if (args.has("help")) return std::cout << kPortsHelp, 0;
    if (!args.has("config")) return usage_error("ports", "--config is required", kPortsHelp);
    std::string format = format_arg(args);
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
  } catch (const UsageError& e) {
    return usage_error("ports", e.what(), kPortsHelp);
  } catch (const std::exception& e) {
    std::cerr << "ibwarden ports: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace ibw::cli
