// The OpenSM log source as the daemon runs it (daemon/threads.cpp, watcher_loop), from file
// bytes to events: the lines a FileTailer delivers (without copying them), the cheap
// opensm_line_of_interest prefilter, parse_opensm_line_view on the lines it keeps, and to_event,
// each event keyed by the position of its line. bench/opensm_ingest.cpp measures exactly this.
// Results are those of parse_opensm_line + to_event on every line: the prefilter drops only
// lines that give no event and no rediscovery (tests/unit/ingest/test_opensm_ingest.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <vector>

#include "ingest/event.h"
#include "ingest/file_tailer.h"
#include "ingest/opensm_log.h"

namespace ibw::ingest {

// What one poll of the OpenSM log gave.
struct OsmBatch {
  size_t lines = 0;           // lines read, also those that gave nothing
  std::vector<Event> events;  // dedup_key "opensm:" + the cursor after the event's line
  bool rediscover = false;    // a trap 128, a "Link state change" notice or SUBNET UP was seen:
                              // the topology may have changed
  std::optional<TailCursor> cursor;     // after the last line read; nullopt when none was
  std::set<uint16_t> link_change_lids;  // switches whose trap 128 / notice was seen (link check)
};

// Reads up to max_lines new lines from tailer (FileTailer::poll_runs) into a batch.
OsmBatch read_opensm_log(FileTailer& tailer, const OsmLogContext& ctx, size_t max_lines = 100000,
                         OsmTrapRule rule = OsmTrapRule::notice_line);

// The same for one line already read (the cursor after it); what read_opensm_log does per
// line, for callers that hold the lines.
void add_opensm_line(std::string_view line, const TailCursor& after, const OsmLogContext& ctx,
                     OsmTrapRule rule, OsmBatch& batch);

}  // namespace ibw::ingest
