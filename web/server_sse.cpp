// The SSE piece of a connection (web/server_connection.h): GET /api/v1/stream after its 200.
// The Api's EventStream is polled every stream_poll on a worker (at once again while it
// reports more and the queue is short); its messages go through a write queue with one write
// in flight, chunked for HTTP/1.1. A client more than stream_queue_limit messages behind, or
// that does not take a write within idle_timeout, is dropped.
#include <array>
#include <deque>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "web/server_connection.h"
#include "web/stream.h"

namespace ibw::web::server_detail {
namespace {

template <class Stream>
class StreamSession : public Connection<Stream> {
 public:
  StreamSession(Stream&& stream, Core& core, Peer peer, std::shared_ptr<EventStream> events)
      : Connection<Stream>(std::move(stream), core, std::move(peer)),
        timer_(this->executor()),
        events_(std::move(events)) {}
  ~StreamSession() override { core_.release_stream(*this->peer_.slot); }

  // Sends the header and `first` (the hello), then what the polls find.
  void start(unsigned version, std::string first) {
    this->peer_.slot->set_busy();  // a stream is never idle: it is capped (max_streams) instead
    chunked_ = version >= 11;
    header_.emplace(http::status::ok, version);
    header_->set(http::field::server, "ibwarden");
    header_->set(http::field::content_type, "text/event-stream");
    header_->set(http::field::cache_control, "no-store");
    header_->set("X-Accel-Buffering", "no");
    header_->keep_alive(chunked_);
    if (chunked_) header_->chunked(true);
    serializer_.emplace(*header_);
    // The client sends nothing more on this connection: any read completion means it left.
    // This read has no timeout (a stream may be quiet for long); each write has one, set while
    // the read is pending (tcp_stream then leaves the read's expiry alone).
    lowest().expires_never();
    stream_.async_read_some(net::buffer(gone_),
                            [s = shared()](beast::error_code, std::size_t) { s->close(); });
    writing_ = true;
    lowest().expires_after(core_.options.idle_timeout);
    http::async_write_header(stream_, *serializer_,
                             [s = shared()](beast::error_code ec, std::size_t) {
                               if (ec) return s->close();
                               s->write_next();
                             });
    if (!first.empty()) enqueue(std::move(first));
    schedule_poll(std::chrono::milliseconds(0));
  }

 private:
  using Base = Connection<Stream>;
  using Base::closed_;
  using Base::core_;
  using Base::lowest;
  using Base::stream_;

  std::shared_ptr<StreamSession> shared() {
    return std::static_pointer_cast<StreamSession>(this->shared_from_this());
  }

  void stop() override { close(); }
  void close() override {
    Base::close();
    timer_.cancel();
  }

  void enqueue(std::string message) {
    if (closed_) return;
    queue_.push_back(std::move(message));
    if (queue_.size() > core_.options.stream_queue_limit) {
      core_.stats.add(GuardStats::dropped_slow_stream);
      core_.error("web: dropping stream client " + this->peer_.text + ": more than " +
                  std::to_string(core_.options.stream_queue_limit) + " messages behind");
      return close();
    }
    if (!writing_) write_next();
  }

  void write_next() {
    if (closed_ || queue_.empty()) {
      writing_ = false;
      return;
    }
    writing_ = true;
    lowest().expires_after(core_.options.idle_timeout);
    auto done = [s = shared()](beast::error_code ec, std::size_t) {
      if (ec) return s->close();
      s->queue_.pop_front();
      s->write_next();
    };
    if (chunked_)
      net::async_write(stream_, http::make_chunk(net::buffer(queue_.front())), std::move(done));
    else
      net::async_write(stream_, net::buffer(queue_.front()), std::move(done));
  }

  void schedule_poll(std::chrono::milliseconds delay) {
    timer_.expires_after(delay);
    timer_.async_wait([s = shared()](beast::error_code ec) {
      if (ec || s->closed_) return;
      net::post(*s->core_.workers, [s] {
        EventStream::Poll p;
        try {
          p = s->events_->poll();
        } catch (const std::exception& e) {
          s->core_.error(std::string("web: stream poll failed: ") + e.what());
        }
        net::post(s->executor(), [s, p = std::move(p)]() mutable { s->on_poll(std::move(p)); });
      });
    });
  }

  void on_poll(EventStream::Poll p) {
    for (auto& m : p.messages) enqueue(std::move(m));
    if (closed_) return;
    bool again = p.more && queue_.size() < core_.options.stream_queue_limit / 2;
    schedule_poll(again ? std::chrono::milliseconds(0) : core_.options.stream_poll);
  }

  net::steady_timer timer_;
  std::shared_ptr<EventStream> events_;
  std::optional<http::response<http::empty_body>> header_;
  std::optional<http::response_serializer<http::empty_body>> serializer_;
  std::deque<std::string> queue_;
  std::array<char, 4096> gone_{};
  bool chunked_ = true;
  bool writing_ = false;
};

}  // namespace

template <class Stream>
void serve_events(Connection<Stream>& from, Response&& r, unsigned version) {
  auto s = std::make_shared<StreamSession<Stream>>(std::move(from.stream()), from.core(),
                                                   std::move(from.peer()), std::move(r.stream));
  from.hand_over(s);
  s->start(version, std::move(r.body));
}

template void serve_events(Connection<PlainStream>&, Response&&, unsigned);
template void serve_events(Connection<TlsStream>&, Response&&, unsigned);

}  // namespace ibw::web::server_detail
