// The Beast HTTP server (web/server.h): the listening socket and its accept loop, the io and
// worker threads, the noise ticker and stop(). Connections are served by the pieces of
// server_connection.h (server_accept.cpp, server_http.cpp, server_sse.cpp).
#include "web/server.h"

#include <algorithm>
#include <thread>
#include <vector>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "web/server_core.h"

namespace ibw::web {

class Server::Impl {
 public:
  Impl(ServerOptions options, Api& api)
      : core_(std::move(options), api), acceptor_(server_detail::net::make_strand(core_.ioc)) {}

  void start();
  void stop();
  uint16_t port() const { return port_; }

 private:
  void do_accept();
  void tick();  // every noise_window / 4 (50 ms to 5 s): Core::flush_noise()

  server_detail::Core core_;
  server_detail::tcp::acceptor acceptor_;
  server_detail::net::steady_timer ticker_{server_detail::net::make_strand(core_.ioc)};
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
  tick();
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
      server_detail::start_session(std::move(socket), core_);
    do_accept();
  });
}

void Server::Impl::tick() {
  ticker_.expires_after(std::clamp<std::chrono::milliseconds>(
      core_.options.noise_window / 4, std::chrono::milliseconds(50), std::chrono::seconds(5)));
  ticker_.async_wait([this](server_detail::beast::error_code ec) {
    if (ec) return;  // cancelled: stopping
    core_.flush_noise();
    tick();
  });
}

void Server::Impl::stop() {
  namespace net = server_detail::net;
  if (!started_ || stopped_) return;
  stopped_ = true;
  std::vector<std::shared_ptr<server_detail::SessionBase>> live;
  {
    std::lock_guard<std::mutex> lock(core_.mutex);
    core_.stopping = true;
    for (auto& [ptr, entry] : core_.sessions)
      if (auto s = entry.session.lock()) live.push_back(std::move(s));
  }
  net::post(acceptor_.get_executor(), [this] {
    server_detail::beast::error_code ec;
    acceptor_.close(ec);
  });
  net::post(ticker_.get_executor(), [this] { ticker_.cancel(); });
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

std::string AccessRecord::role() const {
  if (actor == "anonymous") return "viewer";
  auto at = actor.find('@');
  return at == std::string::npos ? "none" : actor.substr(0, at);
}

bool AccessRecord::mutating() const {
  return method == "POST" || method == "PATCH" || method == "PUT" || method == "DELETE";
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
