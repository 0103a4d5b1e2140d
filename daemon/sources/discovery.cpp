// Discovery: (re-)discovers the fabric when one is due (FabricState::request_discovery:
// a link-state trap, SUBNET UP, a failed discovery) and every fabric.rediscover_interval, on
// its own thread so a slow discovery never holds up the OpenSM log. Nodes a discovery loses
// are confirmed by a second one. While acting, the new topology's link changes are published
// (port table, link events, rules); an HA standby only keeps the topology warm.
#include "daemon/sources/sources.h"

#include "daemon/logger.h"

namespace ibw::daemon {

namespace {

// Nodes of `before` that `after` does not have.
size_t lost_nodes(const fabric::Fabric& before, const fabric::Fabric& after) {
  size_t lost = 0;
  for (const fabric::Node& n : before.nodes())
    if (n.guid && after.find_guid(n.guid) == fabric::kNoNode) ++lost;
  return lost;
}

// False when discovery failed (the caller retries).
bool discover(SourceContext& ctx) {
  FabricState& fab = ctx.fabric();
  int64_t now = ctx.clock().now_us();
  std::shared_ptr<const Topology> topo, before = fab.topology();
  std::vector<std::string> kept;
  fabric::RecoveryReport recovery;
  try {
    topo =
        discover_topology(ctx.mad(), ctx.cfg(), fab.plan.get(), &fab.names, now, /*isolated=*/true,
                          before ? &before->fabric : nullptr, &kept, &recovery);
    // A link that flaps while discovery crosses it hides every node discovery reached through
    // it (a leaf's hosts, say): nodes that vanish are confirmed by a second discovery before
    // they count as gone, so a flapping uplink cannot make a leaf's hosts look cut off.
    if (size_t lost = before ? lost_nodes(before->fabric, topo->fabric) : 0) {
      log(LogLevel::info, "discovery lost nodes; confirming with a second discovery",
          {{"nodes", lost}});
      now = ctx.clock().now_us();
      kept.clear();
      recovery = {};
      topo = discover_topology(ctx.mad(), ctx.cfg(), fab.plan.get(), &fab.names, now,
                               /*isolated=*/true, &before->fabric, &kept, &recovery);
    }
  } catch (const std::exception& e) {
    log(LogLevel::error, "discovery failed", {{"error", e.what()}});
    return false;
  }
  // A link the discovery had to ask for again is evidence of loss in itself (link_recovery.h).
  for (const auto& l : recovery.links)
    log(LogLevel::warning, "discovery lost a link and found it again (evidence of loss)",
        {{"link", l.label},
         {"how", l.how},
         {"smps_sent", l.smps_sent},
         {"smps_lost", l.smps_lost}});
  for (const auto& p : recovery.unresolved)
    log(LogLevel::warning, "port is Active but no peer answered through it", {{"port", p}});
  for (const auto& w : recovery.warnings) log(LogLevel::warning, w);
  for (const std::string& link : kept)
    log(LogLevel::warning,
        "discovery lost its SMP across a link both ports still report up; kept the link "
        "(a lossy link drops discovery too)",
        {{"link", link}});
  fab.set_topology(topo);
  if (!ctx.acting()) {  // a standby keeps the model warm; the holder records and acts
    log(LogLevel::debug, "fabric discovered (standby)", {{"nodes", topo->fabric.size()}});
    return true;
  }
  ctx.publish(topo, {}, [&](store::WriteBatch& batch) {
    batch.ports = fab.ports.apply_topology(*topo, now, &batch.events);
    enrich_all(topo.get(), batch.events);
    log(LogLevel::info, "fabric discovered",
        {{"nodes", topo->fabric.size()},
         {"links", topo->fabric.link_count()},
         {"ports_polled", topo->targets.size()},
         {"link_changes", batch.events.size()}});
  });
  return true;
}

void run_discovery(SourceContext& ctx, const std::optional<std::string>&) {
  FabricState& fab = ctx.fabric();
  int64_t last_full = steady_us();
  while (ctx.running()) {
    int64_t due = fab.discovery_due(), now = steady_us();
    if (!due && now - last_full > ctx.cfg().fabric.rediscover_interval_us) due = now;
    if (!due || now < due) {
      ctx.nap(std::chrono::milliseconds(20));
      continue;
    }
    fab.discovery_started();  // a trap during this discovery schedules the next one
    last_full = now;
    if (!discover(ctx))  // retry soon: a link change must not wait for the next trap
      fab.request_discovery(1'000'000);
  }
}

}  // namespace

std::unique_ptr<Source> make_discovery_source() {
  return std::make_unique<FunctionSource>("discovery", run_discovery);
}

}  // namespace ibw::daemon
