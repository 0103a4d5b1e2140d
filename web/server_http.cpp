// The HTTP piece of a connection (web/server_connection.h): reading requests, the worker
// hand-off to Api::handle(), writing responses, keep-alive, and the answers to requests that
// cannot be read (413, 431, 400). A 200 with an event stream goes to the SSE piece.
#include <algorithm>
#include <cctype>
#include <mutex>
#include <optional>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "web/server_connection.h"

namespace ibw::web::server_detail {
namespace {

bool is_http_error(const beast::error_code& ec) {
  return &ec.category() == &http::make_error_code(http::error::end_of_stream).category();
}

template <class Stream>
class HttpSession : public Connection<Stream> {
  using Base = Connection<Stream>;
  using Base::closed_;
  using Base::core_;
  using Base::lowest;
  using Base::stream_;

 public:
  HttpSession(Stream&& stream, Core& core, Peer peer, beast::flat_buffer&& buffer)
      : Base(std::move(stream), core, std::move(peer)), buffer_(std::move(buffer)) {}

  // A new connection: registered (or closed), then its first request read on the strand.
  void run() {
    if (!this->enter()) return;
    net::dispatch(this->executor(), [s = shared()] { s->do_read(); });
  }

  // Waits for the next request: request_timeout for the first one (and on a reserve slot),
  // keepalive_timeout for a later one until its first byte, then request_timeout.
  void do_read() {
    if (closed_) return;
    if (!slot().set_idle()) return this->close();  // evicted meanwhile
    parser_.emplace();
    parser_->body_limit(core_.options.body_limit);
    parser_->header_limit(static_cast<std::uint32_t>(core_.options.header_limit));
    head_bytes_ = 0;
    waiting_ = !first_ && buffer_.size() == 0 && !slot().reserve;
    first_ = false;
    lowest().expires_after(waiting_ ? core_.options.keepalive_timeout : request_timeout());
    read_some();
  }

 private:
  std::shared_ptr<HttpSession> shared() {
    return std::static_pointer_cast<HttpSession>(this->shared_from_this());
  }

  void stop() override {
    if (!busy_) return this->close();
    keep_alive_ = false;  // close after the response in progress
  }

  Slot& slot() { return *this->peer_.slot; }
  std::chrono::milliseconds request_timeout() const {
    auto t = core_.options.request_timeout;  // a reserve slot is not kept waiting for long
    return this->peer_.slot->reserve ? std::min(t, std::chrono::milliseconds(5000)) : t;
  }

  // Feeds the parser what is buffered, then reads more, until a whole request (or an error).
  // The reads are ours, not http::async_read's, so the header limit holds over all steps:
  // Beast 1.74 applies it to what one step sees, and headers sent a few lines at a time got
  // past it (194 KiB against 16 KiB).
  void read_some() {
    if (buffer_.size()) {
      bool head = !parser_->is_header_done();
      beast::error_code ec;
      std::size_t used = parser_->put(buffer_.data(), ec);
      buffer_.consume(used);
      if (head) head_bytes_ += used;
      if (ec && ec != http::error::need_more) return on_read(ec);
      if (!parser_->is_header_done() && head_bytes_ + buffer_.size() > core_.options.header_limit)
        return on_read(http::error::header_limit);
      if (parser_->is_done()) return on_read({});
      if (!ec && used && buffer_.size()) return read_some();  // e.g. the body after the header
    }
    stream_.async_read_some(buffer_.prepare(16 * 1024),
                            [s = shared()](beast::error_code ec, std::size_t n) {
                              s->buffer_.commit(n);
                              s->on_bytes(ec, n);
                            });
  }
  void on_bytes(beast::error_code ec, std::size_t n) {
    if (closed_) return;
    if (ec == net::error::eof || ec == net::ssl::error::stream_truncated) {
      if (!parser_->got_some()) return on_read(http::error::end_of_stream);
      beast::error_code eof;
      parser_->put_eof(eof);
      return on_read(eof ? eof : beast::error_code(http::error::partial_message));
    }
    if (ec) return on_read(ec);
    if (waiting_ && n) {  // the next request began: it has to arrive whole in time
      waiting_ = false;
      lowest().expires_after(request_timeout());
    }
    read_some();
  }

  void on_read(beast::error_code ec) {
    started_ = SteadyClock::now();
    if (ec == http::error::end_of_stream || closed_) return this->close();
    if (ec == beast::error::timeout) return timed_out();
    if (ec == http::error::body_limit)
      return reply_and_linger(
          413, "request body over " + std::to_string(core_.options.body_limit) + " bytes");
    if (ec == http::error::header_limit) {
      core_.stats.add(GuardStats::dropped_header_limit);
      core_.noisy("web: request headers from " + this->peer_.text + " over " +
                  std::to_string(core_.options.header_limit) + " bytes: answered 431");
      return reply_and_linger(431, "request headers too large");
    }
    if (ec && is_http_error(ec)) return reply_and_linger(400, "malformed request: " + ec.message());
    if (ec) return this->close();                  // reset, aborted
    if (!slot().set_busy()) return this->close();  // evicted just now
    auto& msg = parser_->get();
    if (slot().reserve && !reserve_route(msg)) {
      core_.stats.add(GuardStats::busy);
      return reply_and_linger(503, "the server is at its connection limits; retry later", 5);
    }
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
    req.peer = this->peer_.address;
    keep_alive_ = msg.keep_alive();
    version_ = msg.version();
    method_ = req.method;
    path_ = req.target.substr(0, req.target.find('?'));
    busy_ = true;
    net::post(*core_.workers, [self = shared(), req = std::move(req)]() mutable {
      Response r;
      try {
        r = self->core_.api.handle(req);
      } catch (const std::exception& e) {  // the details to the log only
        self->core_.error("web: internal error on " + self->method_ + " " + self->path_ + ": " +
                          e.what());
        r = error_response(500, kInternalError);
      }
      net::post(self->executor(),
                [self, r = std::move(r)]() mutable { self->on_response(std::move(r)); });
    });
  }

  // What a reserve slot serves: GET or HEAD of the health and metrics routes.
  static bool reserve_route(const http::request<http::string_body>& msg) {
    if (msg.method() != http::verb::get && msg.method() != http::verb::head) return false;
    std::string_view target(msg.target().data(), msg.target().size());
    target = target.substr(0, target.find('?'));
    return target == "/api/v1/health" || target == "/metrics" || target == "/api/v1/metrics";
  }

  // No whole request in time: a silent or half-sent one (incomplete), or a kept-alive
  // connection with no next request (idle).
  void timed_out() {
    bool idle = waiting_;
    core_.stats.add(idle ? GuardStats::dropped_idle : GuardStats::dropped_incomplete);
    if (!idle)
      core_.noisy("web: closed the connection from " + this->peer_.text +
                  ": no whole request within " + std::to_string(request_timeout().count()) + " ms");
    this->close();
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
        this->peer_.text};
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
    if (r.stream && r.status == 200) {
      std::string key = r.actor == "anonymous" ? "anonymous@" + this->peer_.address : r.actor;
      std::string refusal = core_.admit_stream(slot(), key);
      if (refusal.empty()) {
        log(r.status, r.actor);
        return serve_events<Stream>(*this, std::move(r), version_);
      }
      std::string actor = r.actor;
      r = error_response(429, refusal);
      r.headers.emplace_back("Retry-After", "30");
      r.actor = actor;
    }
    log(r.status, r.actor);
    if (slot().reserve && r.status == 200) core_.stats.add(GuardStats::reserve_served);
    // An unauthenticated, refused or limited client does not keep its connection.
    bool refused = r.status == 401 || r.status == 421 || r.status == 429;
    res_ = to_beast(r);
    res_.keep_alive(keep_alive_ && !refused && !slot().reserve && !stopping());
    res_.prepare_payload();
    if (r.head) res_.body().clear();  // Content-Length stays that of the GET answer
    write([](HttpSession& s) {
      if (!s.res_.keep_alive()) return s.finish();
      s.do_read();
    });
  }

  // An error found while reading: answer, then read and discard what the client still sends.
  void reply_and_linger(int status, const std::string& message, int retry_after_s = 0) {
    if (method_.empty() && parser_ && parser_->is_header_done()) {
      method_ = std::string(parser_->get().method_string());
      path_ = std::string(parser_->get().target()).substr(0, parser_->get().target().find('?'));
    }
    Response r = error_response(status, message);
    if (retry_after_s) r.headers.emplace_back("Retry-After", std::to_string(retry_after_s));
    log(status, "");
    res_ = to_beast(r);
    res_.keep_alive(false);
    res_.prepare_payload();
    write([](HttpSession& s) { s.linger(); });
  }

  // Writes res_; then(*this) once it is written, close() when that failed.
  template <class Then>
  void write(Then then) {
    lowest().expires_after(core_.options.idle_timeout);
    http::async_write(stream_, res_, [s = shared(), then](beast::error_code ec, std::size_t) {
      if (ec) return s->close();
      then(*s);
    });
  }

  bool stopping() {
    std::lock_guard<std::mutex> lock(core_.mutex);
    return core_.stopping;
  }

  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  std::string method_, path_;
  SteadyClock::time_point started_ = SteadyClock::now();
  bool keep_alive_ = false;
  unsigned version_ = 11;
  bool busy_ = false;
  bool first_ = true;      // no request read yet on this connection
  bool waiting_ = false;   // kept alive, no byte of the next request yet
  size_t head_bytes_ = 0;  // header bytes the parser took so far
};

}  // namespace

template <class Stream>
void serve_http(Stream&& stream, Core& core, Peer peer, beast::flat_buffer&& buffer,
                Connection<Stream>* from) {
  auto s = std::make_shared<HttpSession<Stream>>(std::move(stream), core, std::move(peer),
                                                 std::move(buffer));
  if (!from) return s->run();
  from->hand_over(s);
  s->do_read();
}

template void serve_http(PlainStream&&, Core&, Peer, beast::flat_buffer&&,
                         Connection<PlainStream>*);
template void serve_http(TlsStream&&, Core&, Peer, beast::flat_buffer&&, Connection<TlsStream>*);

}  // namespace ibw::web::server_detail
