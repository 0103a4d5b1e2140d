// The UFM event source; see ufm_poller.h.
#include "ingest/ufm/event_poller.h"

#include <algorithm>
#include <chrono>

namespace ibw::ingest {
namespace ufm_poller_detail {

int64_t steady_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::optional<UfmEventCursor> parse_cursor(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  return UfmEventCursor::parse(*text);
}

}  // namespace ufm_poller_detail

Event to_event(const UfmEvent& u, const UfmPortIndex& index) {
  Event e = to_event(u);
  UfmEventEnds ends = ufm_event_ends(u.type, u.description, u.object_name, u.object_path);
  if (index.resolve(ends.port)) {
    if (!e.node_guid) e.node_guid = ends.port.guid;
    if (!e.port) e.port = ends.port.port;
  }
  if (!ends.peer.empty() && index.resolve(ends.peer)) {
    if (!e.peer_guid) e.peer_guid = ends.peer.guid;
    if (!e.peer_port) e.peer_port = ends.peer.port;
  }
  return e;
}

UfmEventPoller::UfmEventPoller(UfmClient& client, UfmPollerOptions options,
                               const std::optional<std::string>& cursor)
    : client_(client),
      options_(options),
      tracker_(ufm_poller_detail::parse_cursor(cursor), options.max_keys),
      grouper_(options.storm) {
  skip_next_ = options_.skip_backlog && tracker_.cursor().last_id == 0;
}

std::string UfmEventPoller::cursor() const {
  const auto& held = grouper_.held();
  if (held.empty()) return tracker_.cursor().serialize();
  UfmEventCursor c = tracker_.cursor();
  int64_t lowest = held.front().id;
  for (const UfmEvent& e : held) lowest = std::min(lowest, e.id);
  c.last_id = std::max<int64_t>(0, std::min(c.last_id, lowest - 1));
  c.last_stamp.clear();  // unknown for that id; only "ids went down" detects a reset then
  return c.serialize();
}

UfmPollResult UfmEventPoller::poll() {
  namespace d = ufm_poller_detail;
  int64_t start = d::steady_us();
  UfmParsed<UfmEvent> parsed;
  int64_t parse_us = 0;
  UfmResponse response = client_.get("/app/events", [&](const std::string& body) {
    int64_t t = d::steady_us();
    parsed = parse_ufm_events(body, options_.time);
    parse_us = d::steady_us() - t;
    return parsed.ok ? std::string() : parsed.error;
  });
  if (!response.ok) {
    UfmPollResult r;
    r.error = response.error;
    r.cursor = cursor();
    r.elapsed_us = d::steady_us() - start;
    return r;
  }
  int64_t ingest_start = d::steady_us();
  UfmPollResult r = ingest(std::move(parsed.items));
  r.ingest_us = d::steady_us() - ingest_start;
  r.parse_us = parse_us;
  r.elapsed_us = d::steady_us() - start;
  return r;
}

UfmPollResult UfmEventPoller::ingest(std::vector<UfmEvent> fetched) {
  UfmPollResult r;
  r.ok = true;
  r.fetched = fetched.size();
  if (skip_next_) {
    skip_next_ = false;
    tracker_.skip(fetched);
    r.cursor = cursor();
    return r;
  }
  UfmAccepted accepted = tracker_.accept(std::move(fetched));
  r.reset = accepted.reset;
  r.duplicates = accepted.duplicates;
  r.fresh = std::move(accepted.events);
  UfmStormSplit split = grouper_.feed(r.fresh);
  r.held = grouper_.held().size();
  r.events.reserve(split.calm.size() + split.storms.size());
  for (const UfmEvent& u : split.calm)
    r.events.push_back(index_ ? to_event(u, *index_) : to_event(u));
  for (const UfmStorm& s : split.storms) r.events.push_back(storm_event(s));
  auto by_time = [](const Event& a, const Event& b) { return a.time_us < b.time_us; };
  if (!std::is_sorted(r.events.begin(), r.events.end(), by_time))
    std::stable_sort(r.events.begin(), r.events.end(), by_time);
  r.storms = std::move(split.storms);
  r.cursor = cursor();
  return r;
}

}  // namespace ibw::ingest
