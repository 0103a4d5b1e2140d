// The HTTP piece of a connection (web/server_connection.h): reading requests, the worker
// hand-off to Api::handle(), writing responses, keep-alive, and the answers to requests that
// cannot be read (413, 431, 400). A 200 with an event stream goes to the SSE piece.
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

  void do_read() {
    if (closed_) return;
    parser_.emplace();
    parser_->body_limit(core_.options.body_limit);
    parser_->header_limit(static_cast<std::uint32_t>(core_.options.header_limit));
    lowest().expires_after(core_.options.idle_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [s = shared()](beast::error_code ec, std::size_t) { s->on_read(ec); });
  }

 private:
  std::shared_ptr<HttpSession> shared() {
    return std::static_pointer_cast<HttpSession>(this->shared_from_this());
  }

  void stop() override {
    if (!busy_) return this->close();
    keep_alive_ = false;  // close after the response in progress
  }

  void on_read(beast::error_code ec) {
    started_ = SteadyClock::now();
    if (ec == http::error::end_of_stream || closed_) return this->close();
    if (ec == http::error::body_limit)
      return reply_and_linger(
          413, "request body over " + std::to_string(core_.options.body_limit) + " bytes");
    if (ec == http::error::header_limit) return reply_and_linger(431, "request headers too large");
    if (ec && is_http_error(ec)) return reply_and_linger(400, "malformed request: " + ec.message());
    if (ec) return this->close();  // timeout, reset, aborted
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
    log(r.status, r.actor);
    if (r.stream && r.status == 200) return serve_events<Stream>(*this, std::move(r), version_);
    res_ = to_beast(r);
    res_.keep_alive(keep_alive_ && !stopping());
    res_.prepare_payload();
    if (r.head) res_.body().clear();  // Content-Length stays that of the GET answer
    write([](HttpSession& s) {
      if (!s.res_.keep_alive()) return s.finish();
      s.do_read();
    });
  }

  // An error found while reading: answer, then read and discard what the client still sends.
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
