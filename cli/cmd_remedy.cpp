// Commands of remediation: decisions, workorders, disable, enable.
#include <chrono>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "config/config.h"
#include "config/store_spec.h"
#include "daemon/remedy_setup.h"
#include "daemon/topology.h"
#include "fabric/diagnostics.h"
#include "fabric/node_name_map.h"
#include "fabric/sm_info.h"
#include "store/record_json.h"
#include "store/remedy_json.h"

namespace ibw::cli {

using daemon::discover_topology;
using daemon::local_lids;
using daemon::port_executor;
using daemon::remedy_config;
using daemon::remedy_context;

using store::event_json;
using store::iso_time;
using store::port_json;

namespace cmd_remedy_detail {

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void print_decision(const core::DecisionRecord& d) {
  std::cout << iso_time(d.time_us) << "  #" << d.id << "  " << d.rule << "  " << d.node << "/"
            << d.port << "  " << d.action << "  " << d.status;
  if (!d.cable_id.empty()) std::cout << "  [cable " << d.cable_id << "]";
  std::cout << "\n    " << d.reason << "\n";
}

void print_order(const core::WorkOrder& o, const nlohmann::json& slurm) {
  auto j = store::workorder_json(o);
  std::cout << "#" << o.id << "  " << o.status << (o.needs_human ? " (needs a human)" : "") << "  "
            << (o.cable_id.empty() ? "(no cable id)" : o.cable_id) << "  "
            << j["a"].get<std::string>() << " <-> " << j["b"].get<std::string>() << "  offences "
            << o.offences << "\n    " << o.summary << "\n    advice: " << o.advice << "\n";
  for (const auto& e : slurm)  // drains and resumes of the host's Slurm node
    std::cout << "    slurm: " << e["at"].get<std::string>() << " "
              << e["action"].get<std::string>() << " " << e["node"].get<std::string>() << " "
              << e["status"].get<std::string>() << ": " << e["reason"].get<std::string>() << "\n";
  if (j["affected_jobs"].is_array()) {  // null (not printed) without Slurm
    std::cout << "    affected jobs: " << j["affected_jobs"].size() << " (hosts "
              << j["affected_hosts"].dump() << ")";
    for (const auto& job : j["affected_jobs"])
      std::cout << "  " << job["id"].get<std::string>() << " " << job["user"].get<std::string>()
                << " " << job["nodes"].dump() << "n";
    std::cout << "\n";
  }
}

}  // namespace cmd_remedy_detail

using namespace cmd_remedy_detail;

int cmd_decisions(const CmdArgs& args) {
  return run_command(args, "decisions", [&] {
    if (!args.has("config")) return args.usage_error("--config is required");
    std::string format = args.choice("format", "text");
    store::DecisionQuery q;
    if (auto s = args.get("since")) q.since_us = parse_since_arg(*s);
    q.limit = static_cast<size_t>(args.get_int("limit", 1, 10'000'000).value_or(100'000));
    config::Config cfg = config::load_config(*args.get("config"));
    auto db = store::Store::open(config::store_spec(cfg), /*read_only=*/true);
    auto list = db->decisions(q);
    if (format == "json") {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& d : list) out.push_back(store::decision_json(d));
      std::cout << out.dump(2) << "\n";
    } else {
      for (const auto& d : list) print_decision(d);
    }
    return 0;
  });
}

int cmd_workorders(const CmdArgs& args) {
  return run_command(args, "workorders", [&] {
    if (!args.has("config")) return args.usage_error("--config is required");
    std::string format = args.choice("format", "text");
    config::Config cfg = config::load_config(*args.get("config"));
    if (!args.has("update")) {
      if (args.has("assignee") || args.has("note"))
        throw UsageError("--assignee and --note need --update ID");
      auto db = store::Store::open(config::store_spec(cfg), /*read_only=*/true);
      store::WorkOrderQuery q;
      q.status = args.get("status").value_or("");
      q.limit = 0;
      auto list = db->workorders(q);
      if (format == "json") {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& o : list) {
          auto j = store::workorder_json(o);
          j["slurm"] = store::order_slurm_json(*db, o);
          out.push_back(std::move(j));
        }
        std::cout << out.dump(2) << "\n";
      } else {
        for (const auto& o : list) print_order(o, store::order_slurm_json(*db, o));
      }
      return 0;
    }
    int id = args.get_int("update", 1, INT32_MAX).value_or(0);
    auto db = store::Store::open(config::store_spec(cfg));
    core::WorkOrder o;
    for (int attempt = 1;; ++attempt) {  // read-modify-write, retried on a concurrent change
      try {
        auto order = db->workorder(id);
        if (!order) {
          std::cerr << "ibwarden workorders: no work order " << id << "\n";
          return 2;
        }
        o = *order;
        if (auto s = args.get("status")) {
          if (*s != "in_progress" && *s != "resolved" && *s != "open")
            throw UsageError("--status with --update must be in_progress, resolved or open");
          if (*s == "resolved" && o.port_disabled) {
            std::cerr << "ibwarden workorders: order " << id
                      << " has its link disabled; re-enable it with `ibwarden enable --port "
                      << store::workorder_json(o)["a"].get<std::string>()
                      << " --reason ...`, which resolves the order\n";
            return 2;
          }
          if (*s == "resolved") o.resolved_us = now_us();
          o.status = *s;
        }
        if (auto a = args.get("assignee")) o.assignee = *a;
        if (auto n = args.get("note")) o.note = *n;
        o.updated_us = now_us();
        store::WriteBatch batch;
        batch.outbox = cfg.workorders.webhook.has_value();
        batch.workorders_if_version = true;
        batch.workorders.push_back(o);
        db->write(batch);
        break;
      } catch (const store::StoreConflict&) {
        if (attempt == 5) throw;
      }
    }
    o = *db->workorder(id);
    if (format == "json")
      std::cout << store::workorder_json(o).dump(2) << "\n";
    else
      print_order(o, store::order_slurm_json(*db, o));
    return 0;
  });
}

int cmd_port_action(const CmdArgs& args, actions::PortAction action) {
  const char* cmd = action == actions::PortAction::disable ? "disable" : "enable";
  return run_command(args, cmd, [&] {
    for (const char* required : {"config", "port", "reason"})
      if (!args.has(required))
        return args.usage_error(std::string("--") + required + " is required");
    std::string format = args.choice("format", "text");
    std::string reason = *args.get("reason");
    if (reason.find_first_not_of(" \t") == std::string::npos)
      throw UsageError("--reason must say why");
    std::string err;
    auto spec = fabric::parse_port_spec(*args.get("port"), &err);
    if (!spec) throw UsageError("--port: " + err);
    config::Config cfg = config::load_config(*args.get("config"));
    std::unique_ptr<fabric::Plan> plan;
    if (cfg.fabric.plan) plan = std::make_unique<fabric::Plan>(fabric::load_plan(*cfg.fabric.plan));
    fabric::NodeNameMap names;
    if (cfg.fabric.node_name_map) names = fabric::load_node_name_map(*cfg.fabric.node_name_map);
    fabric::MadLocks mad;  // this process's: discovery, local LIDs and the port action share it
    auto topo = discover_topology(mad, cfg, plan.get(), &names, now_us());
    uint64_t guid = spec->guid.value_or(0);
    if (!guid) {
      bool ambiguous = false;
      uint32_t node = topo->fabric.resolve(spec->node, &ambiguous);
      if (node == fabric::kNoNode) {
        std::cerr << "ibwarden " << cmd << ": " << (ambiguous ? "ambiguous node \"" : "no node \"")
                  << spec->node << "\" in the fabric\n";
        return 2;
      }
      guid = topo->fabric.node(node).guid;
    }
    std::string forced_why;  // a disable without a master SM needs --force
    if (action == actions::PortAction::disable && cfg.sm_watch.on(cfg.fabric.discovery))
      if (auto why = fabric::no_master_reason(mad, cfg.fabric.ca, cfg.fabric.ca_port,
                                              cfg.sm_watch.timeout_ms, cfg.sm_watch.fail_polls)) {
        if (!args.has("force")) {
          std::cerr << "ibwarden disable: no master subnet manager (" << *why
                    << "): with no SM nothing re-routes around a disabled port, and the "
                       "traffic of every path through it is lost until an SM runs. Start the "
                       "SM first, or add --force to disable anyway.\n";
          return 2;
        }
        forced_why = " (forced without a master SM: " + *why + ")";
      }
    auto db = store::Store::open(config::store_spec(cfg));
    actions::PlanIndex index(plan.get());
    actions::RemedyContext ctx = remedy_context(*topo, &index, local_lids(mad, cfg));
    auto exec = port_executor(mad, cfg);  // actions.via: SMPs or UFM
    actions::Remediator remedy(remedy_config(cfg), *db, exec.get());
    auto d = remedy.manual(action, guid, spec->port, reason + forced_why, args.has("force"), ctx,
                           now_us());
    if (format == "json")
      std::cout << store::decision_json(d).dump(2) << "\n";
    else
      print_decision(d);
    return d.status == "executed" || d.status == "dry_run" ? 0 : 1;
  });
}

int cmd_disable(const CmdArgs& args) {
  return cmd_port_action(args, actions::PortAction::disable);
}
int cmd_enable(const CmdArgs& args) {
  return cmd_port_action(args, actions::PortAction::enable);
}

}  // namespace ibw::cli
