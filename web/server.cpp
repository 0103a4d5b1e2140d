// The Beast HTTP server (web/server.h). The only file of ibwarden that includes Beast/Asio.
#include "web/server.h"

#include <array>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "web/stream.h"

namespace ibw::web {
namespace server_detail {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using SteadyClock = std::chrono::steady_clock;

class Session;

// What sessions share with the server. Member order matters for destruction: the worker
// pool goes first (its pending tasks hold sessions, whose sockets need the io_context), then
// the io_context (its pending handlers hold sessions, which unregister under the mutex).
struct Core {
  ServerOptions options;
  Api& api;
  std::mutex mutex;
  std::condition_variable drained;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions;
  bool stopping = false;
  net::io_context ioc;
  // Keeps the io threads running while only worker tasks are outstanding (a handler call in
  // progress will post its response back); reset by stop().
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::optional<net::thread_pool> workers;

  Core(ServerOptions o, Api& a) : options(std::move(o)), api(a), ioc(options.io_threads) {}
  void error(const std::string& message) const {
    if (options.error_log) options.error_log(message);
  }
  // False when stopping (the session must close) or full.
  bool add(Session* s, const std::shared_ptr<Session>& p) {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping || sessions.size() >= options.max_connections) return false;
    sessions.emplace(s, p);
    return true;
  }
  void remove(Session* s) {
    std::lock_guard<std::mutex> lock(mutex);
    sessions.erase(s);
    if (sessions.empty()) drained.notify_all();
  }
};

bool is_http_error(const beast::error_code& ec) {
  return &ec.category() == &http::make_error_code(http::error::end_of_stream).category();
}

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, Core& core)
      : core_(core), stream_(std::move(socket)), timer_(stream_.get_executor()) {
    beast::error_code ec;
    auto ep = stream_.socket().remote_endpoint(ec);
    if (!ec) peer_ = ep.address().to_string() + ":" + std::to_string(ep.port());
  }
  ~Session() { core_.remove(this); }

  void run() {
    if (!core_.add(this, shared_from_this())) return close();
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->do_read(); });
  }
  // On the session's strand, from Server::stop().
  void shutdown() {
    if (events_ || !busy_) return close();
    keep_alive_ = false;  // close after the response in progress
  }
  auto executor() { return stream_.get_executor(); }

 private:
  void do_read() {
    if (closed_) return;
    parser_.emplace();
    parser_->body_limit(core_.options.body_limit);
    parser_->header_limit(static_cast<std::uint32_t>(core_.options.header_limit));
    stream_.expires_after(core_.options.idle_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
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
    keep_alive_ = msg.keep_alive();
    version_ = msg.version();
    method_ = req.method;
    path_ = req.target.substr(0, req.target.find('?'));
    busy_ = true;
    net::post(*core_.workers, [self = shared_from_this(), req = std::move(req)]() mutable {
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
    stream_.expires_after(core_.options.idle_timeout);
    http::async_write(stream_, res_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec || !self->res_.keep_alive()) return self->close();
                        self->do_read();
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
    stream_.expires_after(core_.options.idle_timeout);
    http::async_write(stream_, res_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return self->close();
                        beast::error_code ignored;
                        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                        self->stream_.expires_after(std::chrono::seconds(2));
                        self->drain();
                      });
  }

  void drain() {
    stream_.async_read_some(net::buffer(drain_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) return self->close();
                              self->drain();
                            });
  }

  bool stopping() {
    std::lock_guard<std::mutex> lock(core_.mutex);
    return core_.stopping;
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
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
    writing_ = true;
    stream_.expires_after(core_.options.idle_timeout);
    http::async_write_header(stream_, *sse_serializer_,
                             [self = shared_from_this()](beast::error_code ec, std::size_t) {
                               if (ec) return self->close();
                               self->write_next();
                             });
    if (!r.body.empty()) enqueue(std::move(r.body));
    // The client sends nothing more on this connection: any read completion means it left.
    stream_.socket().async_read_some(
        net::buffer(drain_),
        [self = shared_from_this()](beast::error_code, std::size_t) { self->close(); });
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
    stream_.expires_after(core_.options.idle_timeout);
    auto done = [self = shared_from_this()](beast::error_code ec, std::size_t) {
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
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
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
  beast::tcp_stream stream_;
  net::steady_timer timer_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  std::array<char, 4096> drain_{};
  std::string peer_, method_, path_;
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

}  // namespace server_detail

class Server::Impl {
 public:
  Impl(ServerOptions options, Api& api)
      : core_(std::move(options), api), acceptor_(server_detail::net::make_strand(core_.ioc)) {}

  void start();
  void stop();
  uint16_t port() const { return port_; }

 private:
  void do_accept();

  server_detail::Core core_;
  server_detail::tcp::acceptor acceptor_;
  std::vector<std::thread> threads_;
  uint16_t port_ = 0;
  bool started_ = false;
  bool stopped_ = false;
};

void Server::Impl::start() {
  namespace net = server_detail::net;
  using server_detail::tcp;
  if (started_) return;
  const std::string& listen = core_.options.listen;
  ListenAddress where = parse_listen(listen);
  server_detail::beast::error_code ec;
  auto address = net::ip::make_address(where.host == "localhost" ? "127.0.0.1" : where.host, ec);
  if (ec) throw std::runtime_error("web.listen " + listen + ": " + ec.message());
  tcp::endpoint endpoint(address, where.port);
  auto fail = [&](const char* what) {
    throw std::runtime_error("web.listen " + listen + ": " + what + ": " + ec.message());
  };
  acceptor_.open(endpoint.protocol(), ec);
  if (ec) fail("open");
  acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (ec) fail("set_option");
  acceptor_.bind(endpoint, ec);
  if (ec) fail("bind");
  acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) fail("listen");
  port_ = acceptor_.local_endpoint().port();
  core_.workers.emplace(static_cast<std::size_t>(std::max(1, core_.options.worker_threads)));
  core_.work.emplace(core_.ioc.get_executor());
  do_accept();
  for (int i = 0; i < std::max(1, core_.options.io_threads); ++i)
    threads_.emplace_back([this] { core_.ioc.run(); });
  started_ = true;
}

void Server::Impl::do_accept() {
  namespace net = server_detail::net;
  acceptor_.async_accept(net::make_strand(core_.ioc), [this](server_detail::beast::error_code ec,
                                                             server_detail::tcp::socket socket) {
    if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
    if (ec)
      core_.error("web: accept: " + ec.message());
    else
      std::make_shared<server_detail::Session>(std::move(socket), core_)->run();
    do_accept();
  });
}

void Server::Impl::stop() {
  namespace net = server_detail::net;
  if (!started_ || stopped_) return;
  stopped_ = true;
  std::vector<std::shared_ptr<server_detail::Session>> live;
  {
    std::lock_guard<std::mutex> lock(core_.mutex);
    core_.stopping = true;
    for (auto& [ptr, weak] : core_.sessions)
      if (auto s = weak.lock()) live.push_back(std::move(s));
  }
  net::post(acceptor_.get_executor(), [this] {
    server_detail::beast::error_code ec;
    acceptor_.close(ec);
  });
  for (auto& s : live) net::post(s->executor(), [s] { s->shutdown(); });
  live.clear();
  {
    std::unique_lock<std::mutex> lock(core_.mutex);
    core_.drained.wait_for(lock, core_.options.stop_grace, [&] { return core_.sessions.empty(); });
  }
  core_.work.reset();
  core_.ioc.stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
  core_.workers->stop();
  core_.workers->join();
}

Server::Server(ServerOptions options, Api& api)
    : impl_(std::make_unique<Impl>(std::move(options), api)) {}
Server::~Server() {
  stop();
}
void Server::start() {
  impl_->start();
}
void Server::stop() {
  impl_->stop();
}
uint16_t Server::port() const {
  return impl_->port();
}

}  // namespace ibw::web
