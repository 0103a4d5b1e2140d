// GET /events, /incidents and /stream (web/api.h, web/stream.h).
#include "store/record_json.h"
#include "web/api_core.h"
#include "web/stream.h"

namespace ibw::web {

Response ApiCore::get_events(Call& c) {
  store::EventQuery q;
  q.since_us = c.query.time("since", c.now_us, 0);
  q.after_id = c.query.integer("after_id", 0, INT64_MAX, 0);
  q.limit = static_cast<size_t>(c.query.integer("limit", 1, 10'000, 500));
  auto events = c.store(stores_).events(q);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  int64_t last = q.after_id;
  for (const auto& e : events) {
    list.push_back(store::event_json(e));
    last = e.id;
  }
  nlohmann::ordered_json j;
  j["events"] = std::move(list);
  j["last_id"] = last;
  j["more"] = events.size() == q.limit;
  return json_response(200, j);
}

// GET /incidents[?since=DUR|TIME] (default the last 24 h; active ones always): a JSON array.
Response ApiCore::get_incidents(Call& c) {
  only_own_fabric(c);
  int64_t since = c.query.time("since", c.now_us, c.now_us - 24LL * 3600 * 1'000'000);
  return json_response(200, ordered(backend_.incidents(since)));
}

Response ApiCore::get_stream(Call& c) {
  std::optional<StreamCursor> resume;
  std::string last = c.request.header("last-event-id");
  if (!last.empty()) {
    resume = parse_stream_cursor(last);
    if (!resume) throw ApiError(400, "Last-Event-ID: must be EVENT_ID.DECISION_ID (e.g. 1532.77)");
  }
  EventStream::Options opts;
  opts.batch = options_.stream_batch;
  opts.keepalive_us = options_.stream_keepalive_us;
  opts.fabric = c.fabric;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& reader = stream_readers_[c.fabric];
    if (!reader)
      reader = std::make_shared<StreamReader>(backend_, c.fabric, options_.stream_tick_us);
    opts.reader = reader;
  }
  auto stream = std::make_shared<EventStream>(
      backend_, [this] { return now_us(); }, opts, resume);
  Response r;
  r.content_type = "text/event-stream";
  r.headers.emplace_back("Cache-Control", "no-store");
  r.body = stream->start();
  r.stream = std::move(stream);
  return r;
}

}  // namespace ibw::web
