#include "web/stream.h"

#include "fabric/text_util.h"
#include "store/record_json.h"
#include "store/remedy_json.h"
#include "web/http.h"

namespace ibw::web {
namespace stream_detail {

constexpr int64_t kMinute = 60LL * 1'000'000;
constexpr int64_t kLookbacks[] = {kMinute, kMinute * 60, kMinute * 60 * 24, kMinute * 60 * 24 * 30};
constexpr size_t kScanPage = 1000;

// The largest id among what fetch(since, after_id, limit) returns, paging through; 0 if none.
template <typename Fetch>
int64_t last_id_since(int64_t since_us, Fetch fetch) {
  int64_t last = 0;
  while (true) {
    auto page = fetch(since_us, last, kScanPage);
    if (page.empty()) break;
    last = page.back().id;
    if (page.size() < kScanPage) break;
  }
  return last;
}

template <typename Fetch>
int64_t newest_id(int64_t now_us, Fetch fetch) {
  for (int64_t back : kLookbacks)
    if (int64_t id = last_id_since(now_us - back, fetch)) return id;
  return 0;
}

// The query for the rows after `after_id` (while that is 0 and pickup_since_us is set: those
// stored from pickup_since_us on), at most `limit`.
template <typename ListQuery>
ListQuery rows_after(int64_t after_id, int64_t pickup_since_us, size_t limit) {
  ListQuery q;
  q.after_id = after_id;
  q.since_us = after_id == 0 && pickup_since_us > 0 ? pickup_since_us : 0;
  q.limit = limit;
  return q;
}

}  // namespace stream_detail

std::string format_stream_cursor(StreamCursor c) {
  return std::to_string(c.event_id) + "." + std::to_string(c.decision_id);
}

std::optional<StreamCursor> parse_stream_cursor(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto e = fabric::text::to_int<int64_t>(s.substr(0, dot));
  auto d = fabric::text::to_int<int64_t>(s.substr(dot + 1));
  if (!e || !d || *e < 0 || *d < 0) return std::nullopt;
  return StreamCursor{*e, *d};
}

EventStream::EventStream(ApiBackend& backend, std::function<int64_t()> now_us, Options options,
                         std::optional<StreamCursor> resume)
    : backend_(backend), now_us_(std::move(now_us)), options_(options), reader_(options.reader) {
  if (!reader_) reader_ = std::make_shared<StreamReader>(backend_, options_.fabric, 0);
  if (resume) {
    cursor_ = *resume;
    pickup_since_us_ = -1;  // resume by id only
  }
}

std::string EventStream::start() {
  using namespace stream_detail;
  int64_t now = now_us_();
  if (pickup_since_us_ == 0) {
    pickup_since_us_ = now - kMinute;
    reader_->with_store([&](store::Store& st) {
      cursor_.event_id = newest_id(now, [&](int64_t since, int64_t after, size_t limit) {
        store::EventQuery q;
        q.since_us = since, q.after_id = after, q.limit = limit;
        return st.events(q);
      });
      cursor_.decision_id = newest_id(now, [&](int64_t since, int64_t after, size_t limit) {
        store::DecisionQuery q;
        q.since_us = since, q.after_id = after, q.limit = limit;
        return st.decisions(q);
      });
      return 0;
    });
  }
  for (const auto& o : reader_->workorders()) order_versions_[o.id] = o.version;
  started_ = true;
  last_sent_us_ = now;
  nlohmann::ordered_json hello = {{"cursor", format_stream_cursor(cursor_)}};
  return "retry: 3000\nid: " + format_stream_cursor(cursor_) +
         "\nevent: hello\ndata: " + dump_json(hello) + "\n\n";
}

void EventStream::add(Poll& out, std::string_view kind, const std::string& data) {
  out.messages.push_back("id: " + format_stream_cursor(cursor_) + "\nevent: " + std::string(kind) +
                         "\ndata: " + data + "\n\n");
}

template <typename ListQuery, typename Fetch, typename ToJson>
void EventStream::poll_rows(Poll& out, int64_t& last_id, std::string_view kind, Fetch fetch,
                            ToJson to_json) {
  auto rows =
      fetch(stream_detail::rows_after<ListQuery>(last_id, pickup_since_us_, options_.batch));
  for (const auto& row : rows) {
    last_id = row.id;
    add(out, kind, dump_json(to_json(row)));
  }
  out.more = out.more || rows.size() == options_.batch;
}

void EventStream::poll_orders(Poll& out) {
  for (const auto& o : reader_->workorders()) {
    auto [it, fresh] = order_versions_.try_emplace(o.id, o.version);
    if (!fresh && it->second == o.version) continue;
    it->second = o.version;
    add(out, "workorder", dump_json(ordered(store::workorder_json(o))));
  }
}

EventStream::Poll EventStream::poll() {
  Poll out;
  int64_t now = now_us_();
  try {
    if (!started_) start();  // the first start failed: the hello is not sent again
    poll_rows<store::EventQuery>(
        out, cursor_.event_id, "event", [&](const auto& q) { return reader_->events(q); },
        [](const auto& e) { return store::event_json(e); });
    poll_rows<store::DecisionQuery>(
        out, cursor_.decision_id, "decision", [&](const auto& q) { return reader_->decisions(q); },
        [](const auto& d) { return ordered(store::decision_json(d)); });
    poll_orders(out);
    error_sent_ = false;
  } catch (const std::exception& e) {  // the reader reopens its connection next time
    if (!error_sent_) add(out, "error", dump_json({{"error", std::string("store: ") + e.what()}}));
    error_sent_ = true;
  }
  if (!out.messages.empty()) {
    last_sent_us_ = now;
  } else if (now - last_sent_us_ >= options_.keepalive_us) {
    out.messages.push_back(": keep-alive\n\n");
    last_sent_us_ = now;
  }
  return out;
}

}  // namespace ibw::web
