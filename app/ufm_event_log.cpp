// UFM event.log tailing; see run_ufm_event_log in app/ufm_source.h.
#include <chrono>
#include <thread>

#include "app/logger.h"
#include "app/ufm_source.h"
#include "ingest/clock.h"
#include "ingest/file_tailer.h"
#include "ingest/ufm_events.h"

namespace ibw::app {

void run_ufm_event_log(const config::Config& cfg, const UfmSourceHooks& hooks,
                       std::optional<std::string> cursor) {
  const std::string& path = *cfg.ufm->event_log;
  std::optional<ingest::TailCursor> at;
  if (cursor) at = ingest::TailCursor::parse(*cursor);
  ingest::FileTailer tailer(path, at, /*start_at_end=*/!at);
  if (!at)
    if (auto pos = tailer.position()) {  // resume here after a restart, not at the new end
      store::WriteBatch start;
      start.cursors.emplace_back("ufm_event_log", pos->serialize());
      if (!hooks.push(std::move(start))) return;
    }
  ingest::UfmTimeContext tc{cfg.ufm->utc_offset_s};
  std::string last_error;
  while (hooks.running->load()) {
    auto lines = tailer.poll();
    if (tailer.error() != last_error) {
      last_error = tailer.error();
      if (!last_error.empty())
        log(LogLevel::warning, "ufm event.log unavailable",
            {{"path", path}, {"error", last_error}});
    }
    if (!lines.empty()) {
      store::WriteBatch batch;
      for (const auto& line : lines)
        if (auto ev = ingest::parse_ufm_event_log_line(line.text, tc))
          batch.events.push_back(ingest::to_event(*ev));
      auto topo = hooks.topology();
      name_ufm_events(topo.get(), batch.events);
      std::vector<ingest::Event> for_rules =
          ufm_rule_events(hooks, batch.events, ingest::SystemClock().now_us());
      batch.cursors.emplace_back("ufm_event_log", lines.back().after.serialize());
      if (!hooks.push(std::move(batch))) return;
      if (hooks.rules && !for_rules.empty() && hooks.rules->add_events(for_rules) && topo)
        hooks.evaluate(topo);
    }
    for (int i = 0; i < 5 && hooks.running->load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace ibw::app
