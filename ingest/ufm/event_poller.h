// UfmEventPoller: the UFM event source. Each poll() fetches GET /app/events (UFM has no paging
// or "since" filter for it, ufm-api.md §2, so it is one GET of the retained list), keeps the
// events that are new (UfmEventTracker: de-duplication on id, id resets after a UFM restart,
// ufm_cursor.h), groups storms (UfmStormGrouper, ufm_storm.h) and maps the rest to internal
// events (to_event, ufm_events.h; port labels resolved with a UfmPortIndex when one is set).
//
// Lifecycle for the daemon:
//  1. construct with the cursor stored by the previous run (nullopt on first start);
//  2. every poll interval call poll(); store result.events and result.cursor in ONE store
//     batch (the store de-duplicates events on dedup_key);
//  3. on a failed fetch (result.ok false) nothing changes; the client's health() tells why.
// Without a cursor the first poll delivers the whole retained list (a backlog), unless
// skip_backlog is set: then it only records where the list ends.
// The cursor never passes events still held back by the storm grouper: after a restart they
// are fetched and decided again (their already delivered neighbours are dropped by the
// store's de-duplication).
// Not thread-safe: one thread polls.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ingest/event.h"
#include "ingest/ufm/client.h"
#include "ingest/ufm/cursor.h"
#include "ingest/ufm/events.h"
#include "ingest/ufm/resources.h"
#include "ingest/ufm/storm.h"

namespace ibw::ingest {

struct UfmPollerOptions {
  UfmTimeContext time;
  UfmStormOptions storm;
  bool skip_backlog = false;  // first start without a cursor: deliver nothing old
  size_t max_keys = 200'000;  // dedup keys remembered in memory (UfmEventTracker)
};

struct UfmPollResult {
  bool ok = false;
  std::string error;            // why the fetch failed (also in the client's health)
  std::vector<Event> events;    // to store and act on: mapped events and storm summaries
  std::vector<UfmEvent> fresh;  // the UFM events new in this poll, before storm grouping
  std::vector<UfmStorm> storms;
  size_t fetched = 0;      // events in UFM's answer
  size_t duplicates = 0;   // dropped as already seen
  size_t held = 0;         // new events held back for the next poll (storm grouper)
  bool reset = false;      // UFM's event ids were reset
  std::string cursor;      // store it with `events`
  int64_t elapsed_us = 0;  // the whole poll (wall time): fetch, parse, de-duplication, mapping
  int64_t parse_us = 0;    // of which parsing UFM's answer
  int64_t ingest_us = 0;   // and de-duplication, storm grouping and mapping
};

// The mapping of to_event with port references completed from UFM's port list (a label such
// as "1/17/1" becomes a port number, a name without GUID gets one).
Event to_event(const UfmEvent& e, const UfmPortIndex& index);

class UfmEventPoller {
 public:
  // client must outlive the poller. A cursor that does not parse is treated as none.
  UfmEventPoller(UfmClient& client, UfmPollerOptions options,
                 const std::optional<std::string>& cursor);

  UfmPollResult poll();
  // The part after the fetch, for events obtained elsewhere (a recorded answer, tests).
  UfmPollResult ingest(std::vector<UfmEvent> fetched);

  // Port list used to complete event ports (refresh it with GET /resources/ports now and
  // then); null = none.
  void set_port_index(std::shared_ptr<const UfmPortIndex> index) { index_ = std::move(index); }
  // Where a restart should resume (see the lifecycle above).
  std::string cursor() const;

 private:
  UfmClient& client_;
  UfmPollerOptions options_;
  UfmEventTracker tracker_;
  UfmStormGrouper grouper_;
  std::shared_ptr<const UfmPortIndex> index_;
  bool skip_next_ = false;
};

}  // namespace ibw::ingest
