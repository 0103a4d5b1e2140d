// EventStream: the live feed of GET /api/v1/stream as Server-Sent Events, without sockets.
// The server calls poll() every ServerOptions::stream_poll on a worker thread and writes what
// it returns; unit tests call it directly.
//
// It is a poll over the store's ids, per connection, through a StreamReader of one fabric's
// rows (Options::fabric, from ?fabric=; web/stream_reader.h): the Api gives every stream of
// a fabric the same reader (one connection, one query per tick for all); without one a
// stream reads alone:
//  - events (event JSON, CLI shape) with id > the last one sent;
//  - decisions (decision JSON) with id > the last one sent;
//  - work orders (work-order JSON) whose version changed since the previous poll (the
//    versions seen are kept per connection; orders already there at connect are not sent).
// Messages:
//   id: <E>.<D>\nevent: event|decision|workorder\ndata: <json>\n\n
// where <E>.<D> are the last event and decision ids sent (the cursor). A browser sends it
// back as Last-Event-ID when it reconnects, and the stream resumes right after it (orders
// changed while disconnected are not replayed: reload /workorders on reconnect).
// Without Last-Event-ID it starts at "now": the newest stored ids (found in the last minute,
// hour, day or 30 days of events, whichever first has any). Until a first id is known, it
// picks up what is stored with a time from one minute before the connection on.
// At most `batch` events and `batch` decisions per poll; `more` says there may be more now.
// ": keep-alive" comments are sent after keepalive_us of silence. A store failure is sent
// once as "event: error" and the connection is reopened on the next poll.
// Not thread-safe: one poll at a time (the server never overlaps them for a connection).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "web/backend.h"
#include "web/stream_reader.h"

namespace ibw::web {

struct StreamCursor {
  int64_t event_id = 0;
  int64_t decision_id = 0;
};
std::string format_stream_cursor(StreamCursor c);                     // "1532.77"
std::optional<StreamCursor> parse_stream_cursor(std::string_view s);  // nullopt if malformed

class EventStream {
 public:
  struct Options {
    size_t batch = 200;
    int64_t keepalive_us = 15'000'000;
    std::string fabric;  // whose rows (ApiBackend::open_store; "" = the instance's own)
    std::shared_ptr<StreamReader> reader;  // shared with the fabric's streams; null: its own
  };
  struct Poll {
    std::vector<std::string> messages;  // each a whole SSE message (or comment)
    bool more = false;                  // a batch limit was hit: poll again soon
  };

  // resume: the Last-Event-ID cursor; nullopt starts at now. Does not touch the store.
  EventStream(ApiBackend& backend, std::function<int64_t()> now_us, Options options,
              std::optional<StreamCursor> resume);

  // Finds the starting ids through the reader (throws StoreError). Returns the
  // first message: the reconnection delay and an "event: hello" carrying the cursor.
  std::string start();
  Poll poll();
  StreamCursor cursor() const { return cursor_; }

 private:
  // The rows fetch(query) finds after last_id (moved on), each sent as `kind` with
  // to_json(row); more when a batch was full.
  template <typename ListQuery, typename Fetch, typename ToJson>
  void poll_rows(Poll& out, int64_t& last_id, std::string_view kind, Fetch fetch, ToJson to_json);
  void poll_orders(Poll& out);
  void add(Poll& out, std::string_view kind, const std::string& data);

  ApiBackend& backend_;
  std::function<int64_t()> now_us_;
  Options options_;
  std::shared_ptr<StreamReader> reader_;
  bool started_ = false;
  bool error_sent_ = false;
  StreamCursor cursor_;
  int64_t pickup_since_us_ = 0;  // while an id is 0: what is stored from this time on
  std::map<int64_t, int64_t> order_versions_;
  int64_t last_sent_us_ = 0;
};

}  // namespace ibw::web
