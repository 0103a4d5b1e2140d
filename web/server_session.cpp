// One connection of the Beast HTTP server (web/server.h): a Session template serves both
// transports, beast::tcp_stream (HTTP) and asio::ssl::stream over it (HTTPS, web.tls_*): an
// HTTPS session first tells TLS from plain HTTP, then handshakes, then runs as an HTTP one.
// Reading, the worker hand-off to Api::handle(), writing, keep-alive and the SSE stream.
#include <array>
#include <deque>
#include <type_traits>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/detect_ssl.hpp>

#include "web/server_core.h"
#include "web/stream.h"

namespace ibw::web::server_detail {

const std::string& plain_on_tls_answer() {
  static const std::string kBody = R"({"error": "this server speaks HTTPS only: use https://"})";
  static const std::string kAnswer =
      "HTTP/1.1 400 Bad Request\r\nServer: ibwarden\r\nContent-Type: application/json\r\n"
      "Cache-Control: no-store\r\nContent-Length: " +
      std::to_string(kBody.size()) + "\r\nConnection: close\r\n\r\n" + kBody;
  return kAnswer;
}

bool is_http_error(const beast::error_code& ec) {
  return &ec.category() == &http::make_error_code(http::error::end_of_stream).category();
}

// One connection. Stream is PlainStream or TlsStream; an HTTPS session first tells TLS from
// plain HTTP, then handshakes, then runs exactly like an HTTP one.
template <class Stream>
class Session : public SessionBase, public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

 public:
  Session(tcp::socket&& socket, Core& core)
      : core_(core), stream_(make_stream(std::move(socket), core)), timer_(stream_.get_executor()) {
    beast::error_code ec;
    auto ep = lowest().socket().remote_endpoint(ec);
    if (!ec) {
      peer_address_ = ep.address().to_string();
      peer_ = peer_address_ + ":" + std::to_string(ep.port());
    }
  }
  ~Session() override { core_.remove(this); }

  void run() {
    if (!core_.add(this, shared())) return close();
    net::dispatch(stream_.get_executor(), [s = shared()] {
      if constexpr (kTls)
        s->detect();
      else
        s->do_read();
    });
  }
  void shutdown() override {
    if (events_ || !busy_) return close();
    keep_alive_ = false;  // close after the response in progress
  }
  net::any_io_executor executor() override { return stream_.get_executor(); }

 private:
  static Stream make_stream(tcp::socket&& socket, Core& core) {
    if constexpr (kTls)
      return Stream(std::move(socket), *core.ssl);
    else
      return Stream(std::move(socket));
  }
  std::shared_ptr<Session> shared() { return this->shared_from_this(); }
  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  // ---- HTTPS: detect, handshake ----

  void detect() {
    lowest().expires_after(core_.options.idle_timeout);
    beast::async_detect_ssl(lowest(), buffer_, [s = shared()](beast::error_code ec, bool tls) {
      if (ec || s->closed_) return s->close();  // left (or idle) before a first byte: no log
      if (!tls) return s->refuse_plain();
      s->stream_.async_handshake(
          net::ssl::stream_base::server, s->buffer_.data(),
          [s](beast::error_code ec2, std::size_t used) { s->on_handshake(ec2, used); });
    });
  }

  void on_handshake(beast::error_code ec, std::size_t used) {
    if (closed_) return;
    if (ec) {
      core_.noisy("web: TLS handshake with " + peer_ + " failed: " + ec.message());
      return close();
    }
    buffer_.consume(used);
    do_read();
  }

  // A plain-HTTP client on the HTTPS port: an answer it can read, then the connection closes.
  void refuse_plain() {
    core_.noisy("web: plain HTTP from " + peer_ + " on the HTTPS port: answered 400");
    lowest().expires_after(core_.options.idle_timeout);
    net::async_write(lowest(), net::buffer(plain_on_tls_answer()),
                     [s = shared()](beast::error_code ec, std::size_t) {
                       if (ec) return s->close();
                       s->linger();
                     });
  }

  // ---- requests ----

  void do_read() {
    if (closed_) return;
    parser_.emplace();
    parser_->body_limit(core_.options.body_limit);
    parser_->header_limit(static_cast<std::uint32_t>(core_.options.header_limit));
    lowest().expires_after(core_.options.idle_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [s = shared()](beast::error_code ec, std::size_t) { s->on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    started_ = SteadyClock::now();
    if (ec == http::error::end_of_stream || closed_) return close();
    if (ec == http::error::body_limit)
      return reply_and_linger(
          413, "request body over " + std::to_string(core_.options.body_limit) + " bytes");
    if (ec == http::error::header_limit) return reply_and_linger(431, "request headers too large");
    if (ec && is_http_error(ec)) return reply_and_linger(400, "malformed request: " + ec.message());
    if (ec) return close();  // timeout, reset, aborted
    auto& msg = parser_->get();
    Request req;
    req.method = std::string(msg.method_string());
    req.target = std::string(msg.target());
    for (const auto& field : msg) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto [it, fresh] = req.headers.emplace(name, std::string(field.value()));
      if (!fresh) it->second += ", " + std::string(field.value());
    }
    req.body = std::move(msg.body());
    req.peer = peer_address_;
    keep_alive_ = msg.keep_alive();
    version_ = msg.version();
    method_ = req.method;
    path_ = req.target.substr(0, req.target.find('?'));
    busy_ = true;
    net::post(*core_.workers, [self = shared(), req = std::move(req)]() mutable {
      Response r;
      try {
        r = self->core_.api.handle(req);
      } catch (const std::exception& e) {
        r = error_response(500, std::string("internal error: ") + e.what());
      }
      net::post(self->executor(),
                [self, r = std::move(r)]() mutable { self->on_response(std::move(r)); });
    });
  }

  void log(int status, const std::string& actor) {
    if (!core_.options.access_log) return;
    AccessRecord a{
        method_,
        path_,
        status,
        std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - started_)
            .count(),
        actor,
        peer_};
    core_.options.access_log(a);
  }

  http::response<http::string_body> to_beast(Response& r) {
    http::response<http::string_body> res{static_cast<http::status>(r.status), version_};
    res.set(http::field::server, "ibwarden");
    res.set(http::field::content_type, r.content_type);
    res.set(http::field::cache_control, "no-store");
    res.set("X-Content-Type-Options", "nosniff");
    for (const auto& [name, value] : r.headers) res.set(name, value);
    res.body() = std::move(r.body);
    return res;
  }

  void on_response(Response r) {
    busy_ = false;
    if (closed_) return;
    log(r.status, r.actor);
    if (r.stream && r.status == 200) return start_stream(std::move(r));
    res_ = to_beast(r);
    res_.keep_alive(keep_alive_ && !stopping());
    res_.prepare_payload();
    if (r.head) res_.body().clear();  // Content-Length stays that of the GET answer
    lowest().expires_after(core_.options.idle_timeout);
    http::async_write(stream_, res_, [s = shared()](beast::error_code ec, std::size_t) {
      if (ec) return s->close();
      if (!s->res_.keep_alive()) return s->finish();
      s->do_read();
    });
  }

  // An error found while reading: answer, then read and discard what the client still sends
  // (closing with unread data would reset the connection before it reads the answer).
  void reply_and_linger(int status, const std::string& message) {
    if (method_.empty() && parser_ && parser_->is_header_done()) {
      method_ = std::string(parser_->get().method_string());
      path_ = std::string(parser_->get().target()).substr(0, parser_->get().target().find('?'));
    }
    Response r = error_response(status, message);
    log(status, "");
    res_ = to_beast(r);
    res_.keep_alive(false);
    res_.prepare_payload();
    lowest().expires_after(core_.options.idle_timeout);
    http::async_write(stream_, res_, [s = shared()](beast::error_code ec, std::size_t) {
      if (ec) return s->close();
      s->linger();
    });
  }

  // No more to send: end the sending side, then read and discard what the client still sends
  // (raw bytes, also over TLS) until it closes or for kLingerTime.
  void linger() {
    beast::error_code ignored;
    lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
    lowest().expires_after(kLingerTime);
    drain();
  }

  void drain() {
    lowest().async_read_some(net::buffer(drain_),
                             [s = shared()](beast::error_code ec, std::size_t) {
                               if (ec) return s->close();
                               s->drain();
                             });
  }

  // The end of a connection after a complete answer. HTTPS says goodbye first (close_notify,
  // waiting up to kLingerTime for the client's), so the client can tell an end from a cut.
  void finish() {
    if constexpr (kTls) {
      if (closed_) return;
      lowest().expires_after(kLingerTime);
      stream_.async_shutdown([s = shared()](beast::error_code) { s->close(); });
    } else {
      close();
    }
  }

  bool stopping() {
    std::lock_guard<std::mutex> lock(core_.mutex);
    return core_.stopping;
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    beast::error_code ec;
    lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
    lowest().close();
    timer_.cancel();
  }

  // ---- Server-Sent Events ----

  void start_stream(Response r) {
    events_ = std::move(r.stream);
    chunked_ = version_ >= 11;
    sse_header_.emplace(http::status::ok, version_);
    sse_header_->set(http::field::server, "ibwarden");
    sse_header_->set(http::field::content_type, "text/event-stream");
    sse_header_->set(http::field::cache_control, "no-store");
    sse_header_->set("X-Accel-Buffering", "no");
    sse_header_->keep_alive(chunked_);
    if (chunked_) sse_header_->chunked(true);
    sse_serializer_.emplace(*sse_header_);
    // The client sends nothing more on this connection: any read completion means it left.
    // This read has no timeout (a stream may be quiet for long); each write has one, set while
    // the read is pending (tcp_stream then leaves the read's expiry alone).
    lowest().expires_never();
    stream_.async_read_some(net::buffer(drain_),
                            [s = shared()](beast::error_code, std::size_t) { s->close(); });
    writing_ = true;
    lowest().expires_after(core_.options.idle_timeout);
    http::async_write_header(stream_, *sse_serializer_,
                             [s = shared()](beast::error_code ec, std::size_t) {
                               if (ec) return s->close();
                               s->write_next();
                             });
    if (!r.body.empty()) enqueue(std::move(r.body));
    schedule_poll(std::chrono::milliseconds(0));
  }

  void enqueue(std::string message) {
    if (closed_) return;
    queue_.push_back(std::move(message));
    if (queue_.size() > core_.options.stream_queue_limit) {
      core_.error("web: dropping stream client " + peer_ + ": more than " +
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
    auto done = [self = shared()](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      self->queue_.pop_front();
      self->write_next();
    };
    if (chunked_)
      net::async_write(stream_, http::make_chunk(net::buffer(queue_.front())), std::move(done));
    else
      net::async_write(stream_, net::buffer(queue_.front()), std::move(done));
  }

  void schedule_poll(std::chrono::milliseconds delay) {
    timer_.expires_after(delay);
    timer_.async_wait([self = shared()](beast::error_code ec) {
      if (ec || self->closed_) return;
      net::post(*self->core_.workers, [self] {
        EventStream::Poll p;
        try {
          p = self->events_->poll();
        } catch (const std::exception& e) {
          self->core_.error(std::string("web: stream poll failed: ") + e.what());
        }
        net::post(self->executor(),
                  [self, p = std::move(p)]() mutable { self->on_poll(std::move(p)); });
      });
    });
  }

  void on_poll(EventStream::Poll p) {
    for (auto& m : p.messages) enqueue(std::move(m));
    if (closed_) return;
    bool again = p.more && queue_.size() < core_.options.stream_queue_limit / 2;
    schedule_poll(again ? std::chrono::milliseconds(0) : core_.options.stream_poll);
  }

  Core& core_;
  Stream stream_;
  net::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  std::array<char, 4096> drain_{};
  std::string peer_, peer_address_, method_, path_;
  SteadyClock::time_point started_ = SteadyClock::now();
  bool keep_alive_ = false;
  unsigned version_ = 11;
  bool busy_ = false;
  bool closed_ = false;
  // Streaming.
  std::shared_ptr<EventStream> events_;
  std::optional<http::response<http::empty_body>> sse_header_;
  std::optional<http::response_serializer<http::empty_body>> sse_serializer_;
  std::deque<std::string> queue_;
  bool chunked_ = true;
  bool writing_ = false;
};

void start_session(tcp::socket&& socket, Core& core) {
  if (core.ssl)
    std::make_shared<Session<TlsStream>>(std::move(socket), core)->run();
  else
    std::make_shared<Session<PlainStream>>(std::move(socket), core)->run();
}

}  // namespace ibw::web::server_detail
