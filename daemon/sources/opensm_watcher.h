// OpenSmWatcher: tails the OpenSM log (cursor "opensm", stored with the events it produced)
// and turns lines into events; after a link-state trap it runs the link check
// (daemon/sources/link_check.h) on the trapping switches, after a trap or SUBNET UP it
// requests a re-discovery (opensm.rediscover_delay), and it reloads OpenSM's LFT dump
// (opensm-lfts.dump) when it changes. Health "opensm": down while the log cannot be read.
#pragma once

#include <optional>
#include <string>

#include "daemon/source.h"

namespace ibw::daemon {

class OpenSmWatcher : public Source {
 public:
  std::string name() const override { return "opensm"; }
  void start(SourceContext& ctx) override { cursor_ = ctx.store().cursor("opensm"); }
  void run(SourceContext& ctx) override;

 private:
  std::optional<std::string> cursor_;  // the stored position
};

}  // namespace ibw::daemon
