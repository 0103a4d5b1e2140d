// UFM's event.log as a source: tails UFM's event.log (ufm.event_log) with the same tailer as the
// OpenSM log, from the stored "ufm_event_log" position (none: the end of the file, which is then
// stored so a restart resumes there). Lines become the same events as GET /app/events gives,
// with the same dedup_key ("ufm:<id>:<time>"), so an event seen both ways is stored once;
// storms become one summary each; link events feed the rules like the REST poller's.
#include "daemon/sources/sources.h"

#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "daemon/logger.h"
#include "daemon/sources/ufm.h"
#include "ingest/file_tailer.h"
#include "ingest/ufm/events.h"
#include "ingest/ufm/storm.h"

namespace ibw::daemon {

namespace {

void run_ufm_event_log(SourceContext& ctx, const std::optional<std::string>& stored) {
  const config::Config& cfg = ctx.cfg();
  const std::string& path = *cfg.ufm->event_log;
  std::optional<ingest::TailCursor> at;
  if (stored) at = ingest::TailCursor::parse(*stored);
  ingest::FileTailer tailer(path, at, /*start_at_end=*/!at);
  if (!at)
    if (auto pos = tailer.position()) {  // resume here after a restart, not at the new end
      store::WriteBatch start;
      start.cursors.emplace_back("ufm_event_log", pos->serialize());
      if (!ctx.push(std::move(start))) return;
    }
  ingest::UfmTimeContext tc{cfg.ufm->utc_offset_s};
  std::string last_error;
  while (ctx.running()) {
    auto lines = tailer.poll();
    if (tailer.error() != last_error) {
      last_error = tailer.error();
      if (!last_error.empty())
        log(LogLevel::warning, "ufm event.log unavailable",
            {{"path", path}, {"error", last_error}});
    }
    if (!lines.empty()) {
      store::WriteBatch batch;
      std::vector<ingest::UfmEvent> parsed;
      for (const auto& line : lines)
        if (auto ev = ingest::parse_ufm_event_log_line(line.text, tc)) parsed.push_back(*ev);
      // Storms (a UFM restart writes hundreds of lines within a second) become one summary,
      // as on the REST path; nothing is held back, so the cursor can move past every line.
      ingest::UfmStormSplit split = ingest::split_storms(std::move(parsed));
      for (const auto& u : split.calm) batch.events.push_back(ingest::to_event(u));
      for (const auto& storm : split.storms) batch.events.push_back(ingest::storm_event(storm));
      if (!split.storms.empty())
        log(LogLevel::info, "ufm event.log storm",
            {{"path", path}, {"storms", split.storms.size()}, {"calm", split.calm.size()}});
      auto topo = ctx.topology();
      name_ufm_events(topo.get(), batch.events);
      std::vector<ingest::Event> for_rules =
          ufm_rule_events(ctx.rules(), batch.events, ctx.clock().now_us());
      batch.cursors.emplace_back("ufm_event_log", lines.back().after.serialize());
      if (!ctx.publish(topo, std::move(batch), nullptr, Evaluate::with_rule_events, &for_rules)
               .queued)
        return;
    }
    for (int i = 0; i < 5 && ctx.running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

std::unique_ptr<Source> make_ufm_event_log() {
  return std::make_unique<FunctionSource>("ufm_event_log", run_ufm_event_log, /*resumes=*/true);
}

}  // namespace ibw::daemon
