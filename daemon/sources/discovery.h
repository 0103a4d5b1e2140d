// DiscoverySource: (re-)discovers the fabric when one is due (FabricState::request_discovery:
// a link-state trap, SUBNET UP, a failed discovery) and every fabric.rediscover_interval, on
// its own thread so a slow discovery never holds up the OpenSM log. Nodes a discovery loses
// are confirmed by a second one. While acting, the new topology's link changes are published
// (port table, link events, rules); an HA standby only keeps the topology warm.
#pragma once

#include "daemon/source.h"

namespace ibw::daemon {

class DiscoverySource : public Source {
 public:
  std::string name() const override { return "discovery"; }
  void run(SourceContext& ctx) override;

 private:
  // False when discovery failed (the caller retries).
  bool discover(SourceContext& ctx);
};

}  // namespace ibw::daemon
