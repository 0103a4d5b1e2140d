// Internals of the Beast HTTP server (web/server.h), shared by its translation units:
// server.cpp (the listener: accept loop, ticker, stop()) and the connection's pieces
// (server_connection.h: server_accept.cpp, server_http.cpp, server_sse.cpp). Only these
// include it: it is where Beast and Asio come in.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "web/server.h"

namespace ibw::web::server_detail {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using SteadyClock = std::chrono::steady_clock;
using PlainStream = beast::tcp_stream;
using TlsStream = net::ssl::stream<beast::tcp_stream>;

// How long a closing HTTPS connection waits for the client's close_notify, and a refused or
// erroneous request's connection for the client to stop sending.
constexpr std::chrono::seconds kLingerTime{2};

// What the server needs of a connection's piece, whatever its stream.
class SessionBase {
 public:
  virtual ~SessionBase() = default;
  virtual void shutdown() = 0;  // on the session's strand, from Server::stop()
  virtual net::any_io_executor executor() = 0;
};

// What sessions share with the server. Member order matters for destruction: the worker
// pool goes first (its pending tasks hold sessions, whose sockets need the io_context), then
// the io_context (its pending handlers hold sessions, which unregister under the mutex), then
// the TLS context.
struct Core {
  ServerOptions options;
  Api& api;
  std::optional<net::ssl::context> ssl;  // with options.tls: HTTPS only
  std::mutex mutex;
  std::condition_variable drained;
  std::unordered_map<SessionBase*, std::weak_ptr<SessionBase>> sessions;
  bool stopping = false;
  net::io_context ioc;
  // Keeps the io threads running while only worker tasks are outstanding (a handler call in
  // progress will post its response back); reset by stop().
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::optional<net::thread_pool> workers;

  Core(ServerOptions o, Api& a) : options(std::move(o)), api(a), ioc(options.io_threads) {
    if (!options.tls) return;
    SSL_CTX_up_ref(options.tls->native());  // shared with the TlsConfig; the context frees one
    ssl.emplace(options.tls->native());
  }
  void error(const std::string& message) const {
    if (options.error_log) options.error_log(message);
  }
  // Connection-level noise any scanner can cause (failed TLS handshakes, plain HTTP on the
  // HTTPS port): at most kNoisePerWindow lines per options.noise_window; the rest are counted
  // and reported once the window is over (by the next such error or flush_noise()).
  void noisy(const std::string& message) {
    static constexpr int kNoisePerWindow = 10;
    std::string summary, line;
    {
      std::lock_guard<std::mutex> lock(noise_mutex);
      summary = end_noise_window();
      if (noise_logged < kNoisePerWindow)
        line = message + (++noise_logged == kNoisePerWindow
                              ? " (more connection errors are only counted for a while)"
                              : "");
      else
        ++noise_suppressed;
    }
    if (!summary.empty()) error(summary);
    if (!line.empty()) error(line);
  }
  // Called by the server's ticker: reports a finished window's uncounted errors even when
  // no new one comes.
  void flush_noise() {
    std::string summary;
    {
      std::lock_guard<std::mutex> lock(noise_mutex);
      if (noise_suppressed) summary = end_noise_window();
    }
    if (!summary.empty()) error(summary);
  }
  // Under noise_mutex: when the window is over, starts a new one and returns the summary of
  // the errors it did not log ("" when none).
  std::string end_noise_window() {
    auto now = std::chrono::steady_clock::now();
    if (now - noise_window < options.noise_window) return "";
    std::string summary;
    if (noise_suppressed)
      summary = "web: " + std::to_string(noise_suppressed) +
                " more connection errors were not logged in the last " +
                (options.noise_window.count() % 1000
                     ? std::to_string(options.noise_window.count()) + " ms"
                     : std::to_string(options.noise_window.count() / 1000) + " s");
    noise_window = now, noise_logged = 0, noise_suppressed = 0;
    return summary;
  }
  std::mutex noise_mutex;
  std::chrono::steady_clock::time_point noise_window{};
  int noise_logged = 0;
  int64_t noise_suppressed = 0;
  // False when stopping (the session must close) or full.
  bool add(SessionBase* s, const std::shared_ptr<SessionBase>& p) {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping || sessions.size() >= options.max_connections) return false;
    sessions.emplace(s, p);
    return true;
  }
  // `next` takes over the connection `old` served (its stream moved there): still counted
  // once, and registered even when stopping or full.
  void replace(SessionBase* old, SessionBase* next, const std::shared_ptr<SessionBase>& p) {
    std::lock_guard<std::mutex> lock(mutex);
    sessions.erase(old);
    sessions.emplace(next, p);
  }
  void remove(SessionBase* s) {
    std::lock_guard<std::mutex> lock(mutex);
    sessions.erase(s);
    if (sessions.empty()) drained.notify_all();
  }
};

// Starts serving an accepted connection (server_accept.cpp): HTTPS when core.ssl is set, else
// plain HTTP. Each piece keeps itself alive through its pending handlers and unregisters when
// it ends.
void start_session(tcp::socket&& socket, Core& core);

}  // namespace ibw::web::server_detail
