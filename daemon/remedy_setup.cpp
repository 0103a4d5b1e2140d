#include "daemon/remedy_setup.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "actions/smp_executor.h"
#include "actions/ufm_executor.h"
#include "daemon/ufm_setup.h"
#include "fabric/diagnostics.h"
#include "fabric/smp_port.h"

namespace ibw::daemon {

actions::RemedyConfig remedy_config(const config::Config& cfg) {
  actions::RemedyConfig rc;
  rc.guard.mode =
      cfg.actions.mode == "enforce" ? actions::GuardMode::enforce : actions::GuardMode::dry_run;
  rc.guard.max_disabled_total = cfg.actions.max_disabled_total;
  rc.guard.max_disabled_per_switch = cfg.actions.max_disabled_per_switch;
  rc.guard.max_actions_per_hour = cfg.actions.max_actions_per_hour;
  rc.guard.min_up_links = cfg.actions.min_up_links;
  rc.verify_after_us = cfg.workorders.verify_after_us;
  rc.outbox = cfg.workorders.webhook.has_value();
  return rc;
}

LocalLids local_lids(fabric::MadLocks& mad, const config::Config& cfg) {
  try {
    auto p = fabric::local_port(mad, cfg.fabric.ca, cfg.fabric.ca_port);
    return {p.lid, p.sm_lid};
  } catch (const std::exception&) {
    return {};
  }
}

void set_local_ports(actions::RemedyContext& ctx, const LocalLids& lids) {
  if (!ctx.fabric) return;
  ctx.sm_port = find_lid_port(*ctx.fabric, lids.sm_lid);
  ctx.local_port = find_lid_port(*ctx.fabric, lids.lid);
}

actions::RemedyContext remedy_context(const Topology& topo, const actions::PlanIndex* plan,
                                      const LocalLids& lids) {
  actions::RemedyContext ctx;
  ctx.fabric = &topo.fabric;
  ctx.correlator = topo.correlator.get();
  ctx.plan = plan;
  set_local_ports(ctx, lids);
  return ctx;
}

actions::PortKey find_lid_port(const fabric::Fabric& f, uint16_t sm_lid) {
  if (!sm_lid) return {};
  for (uint32_t i = 0; i < f.size(); ++i) {
    const fabric::Node& n = f.node(i);
    if (n.type == fabric::NodeType::sw) {
      const fabric::Port* p0 = n.port(0);
      if (p0 && p0->lid == sm_lid) return {n.guid, 0};  // an SM on a switch: its port 0
      continue;
    }
    for (const auto& p : n.ports)
      if (p.number > 0 && p.lid == sm_lid) return {n.guid, p.number};
  }
  return {};
}

std::unique_ptr<actions::PortExecutor> port_executor(fabric::MadLocks& mad,
                                                     const config::Config& cfg) {
  if (cfg.actions.via == "ufm" && cfg.ufm) {
    actions::UfmExecutorOptions o;
    o.client = ufm_client_options(*cfg.ufm, ufm_credentials(*cfg.ufm));
    o.client.timeout_ms =
        static_cast<long>(std::clamp<int64_t>(cfg.actions.timeout_us / 2000, 1000, 30'000));
    // UFM runs the port job itself: allow it a minute even when actions.timeout is short
    // (giving up early would record a failure for a port UFM then disables anyway).
    o.job.timeout_us = std::max<int64_t>(cfg.actions.timeout_us, 60'000'000);
    o.job.poll_interval_us = std::clamp<int64_t>(cfg.actions.timeout_us / 20, 100'000, 1'000'000);
    return std::make_unique<actions::UfmExecutor>(std::move(o));
  }
  return std::make_unique<actions::SmpExecutor>(
      mad, cfg.fabric.ca, cfg.fabric.ca_port,
      static_cast<unsigned>(std::max<int64_t>(50, cfg.actions.timeout_us / 4000)));
}

namespace remedy_setup_detail {

// See fenced_executor().
class FencedExecutor : public actions::PortExecutor {
 public:
  FencedExecutor(std::unique_ptr<actions::PortExecutor> inner, std::function<bool()> may_act)
      : inner_(std::move(inner)), may_act_(std::move(may_act)) {}
  actions::PortChange disable(const actions::PortAddress& node, int port) override {
    check();
    return inner_->disable(node, port);
  }
  actions::PortChange enable(const actions::PortAddress& node, int port) override {
    check();
    return inner_->enable(node, port);
  }
  void set_context(const actions::ActionContext& context) override { inner_->set_context(context); }
  actions::PortReading read(const actions::PortAddress& node, int port) override {
    return inner_->read(node, port);
  }
  bool needs_address() const override { return inner_->needs_address(); }

 private:
  void check() const {
    if (!may_act_())
      throw std::runtime_error(
          "this instance no longer holds the fabric's lease: port action not sent");
  }
  std::unique_ptr<actions::PortExecutor> inner_;
  std::function<bool()> may_act_;
};

}  // namespace remedy_setup_detail

std::unique_ptr<actions::PortExecutor> fenced_executor(std::unique_ptr<actions::PortExecutor> inner,
                                                       std::function<bool()> may_act) {
  return std::make_unique<remedy_setup_detail::FencedExecutor>(std::move(inner),
                                                               std::move(may_act));
}

std::string webhook_secret(const config::Config& cfg) {
  const auto& w = cfg.workorders;
  if (!w.webhook_secret_env.empty()) {
    const char* v = std::getenv(w.webhook_secret_env.c_str());
    if (!v || !*v)
      throw std::runtime_error("workorders.webhook_secret_env: environment variable " +
                               w.webhook_secret_env + " is not set");
    return v;
  }
  if (w.webhook_secret_file) {
    std::string s = fabric::read_secret_file(*w.webhook_secret_file);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    if (s.empty())
      throw std::runtime_error("workorders.webhook_secret_file: " + *w.webhook_secret_file +
                               " is empty");
    return s;
  }
  return "";
}

}  // namespace ibw::daemon
