// UfmEventLogSource: tails UFM's event.log (ufm.event_log) with the same tailer as the OpenSM
// log, from the stored "ufm_event_log" position (none: the end of the file, which is then
// stored so a restart resumes there). Lines become the same events as GET /app/events gives,
// with the same dedup_key ("ufm:<id>:<time>"), so an event seen both ways is stored once;
// storms become one summary each; link events feed the rules like the REST poller's.
#pragma once

#include <optional>
#include <string>

#include "daemon/source.h"

namespace ibw::daemon {

class UfmEventLogSource : public Source {
 public:
  std::string name() const override { return "ufm_event_log"; }
  void start(SourceContext& ctx) override { cursor_ = ctx.store().cursor("ufm_event_log"); }
  void run(SourceContext& ctx) override;

 private:
  std::optional<std::string> cursor_;
};

}  // namespace ibw::daemon
