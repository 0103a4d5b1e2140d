// Internals of the Beast HTTP server (web/server.h), shared by its translation units:
// server.cpp (the listener: accept loop, ticker, stop()) and the connection's pieces
// (server_connection.h: server_accept.cpp, server_http.cpp, server_sse.cpp). Only these
// include it: it is where Beast and Asio come in.
#pragma once

#include <atomic>
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

// One connection's place under the caps (web/server.h), shared by the pieces that serve it
// in turn. `idle_since` is written on the connection's strand and claimed under Core::mutex.
struct Slot {
  static constexpr int64_t kClaimed = -1;
  explicit Slot(std::string a) : address(std::move(a)) {}
  std::string address;
  bool reserve = false;    // admitted beyond the caps: one health/metrics request, then closed
  bool counted = false;    // under Core::mutex: counted against the caps
  std::string stream_key;  // the token (or anonymous@address) of its event stream, if one
  // Steady-clock ticks since the connection waits for (the rest of) a request; 0 while busy
  // (a request in progress, a stream); kClaimed once chosen for eviction.
  std::atomic<int64_t> idle_since{now()};
  static int64_t now() { return SteadyClock::now().time_since_epoch().count() | 1; }
  // On the strand. False when the slot was claimed: the connection must close.
  bool set_idle() {
    int64_t v = 0;
    return idle_since.compare_exchange_strong(v, now()) || v > 0;
  }
  bool set_busy() {
    int64_t v = idle_since.load();
    while (v != kClaimed)
      if (idle_since.compare_exchange_weak(v, 0)) return true;
    return false;
  }
};

// What sessions share with the server. Member order matters for destruction: the worker
// pool goes first (its pending tasks hold sessions, whose sockets need the io_context), then
// the io_context (its pending handlers hold sessions, which unregister under the mutex), then
// the TLS context.
struct Core {
  ServerOptions options;
  Api& api;
  GuardStats& stats;
  std::optional<net::ssl::context> ssl;  // with options.tls: HTTPS only
  std::mutex mutex;
  std::condition_variable drained;
  struct Entry {
    std::weak_ptr<SessionBase> session;
    std::shared_ptr<Slot> slot;
  };
  std::unordered_map<SessionBase*, Entry> sessions;
  // Under mutex: what counts against the caps (server_slots.cpp).
  size_t regular = 0, reserved = 0, streams = 0;
  std::unordered_map<std::string, size_t> per_address, streams_by_key;
  bool stopping = false;
  net::io_context ioc;
  // Keeps the io threads running while only worker tasks are outstanding (a handler call in
  // progress will post its response back); reset by stop().
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::optional<net::thread_pool> workers;

  Core(ServerOptions o, Api& a)
      : options(std::move(o)), api(a), stats(a.guard()), ioc(options.io_threads) {
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
  // Admits a new connection (server_slots.cpp): within the caps; else in place of the
  // longest-idle connection (of its address when that cap is hit), which is closed; else on
  // a reserve slot; false (the session must close) when stopping or when none of these is
  // possible (counted and logged).
  bool add(SessionBase* s, const std::shared_ptr<SessionBase>& p,
           const std::shared_ptr<Slot>& slot);
  // `next` takes over the connection `old` served (its stream moved there): still counted
  // once, and registered even when stopping or full.
  void replace(SessionBase* old, SessionBase* next, const std::shared_ptr<SessionBase>& p) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sessions.find(old);
    if (it == sessions.end()) return;
    auto slot = it->second.slot;
    sessions.erase(it);
    sessions.emplace(next, Entry{p, std::move(slot)});
  }
  void remove(SessionBase* s);
  // The connection of `s` is closing: it no longer counts against the caps, so a client that
  // sees the close and connects again at once is not refused while the piece's last handler
  // is still running. Still registered until remove().
  void release(SessionBase* s);
  // An event stream for `key`: "" when within max_streams and max_streams_per_token, else
  // the refusal (counted); release() when it ends.
  std::string admit_stream(Slot& slot, const std::string& key);
  void release_stream(Slot& slot);

 private:
  bool admit(Slot& slot, std::shared_ptr<SessionBase>& victim);  // under mutex
  std::shared_ptr<SessionBase> claim_idle(bool reserve, const std::string* address);
  void count(Slot& slot, bool reserve);
  void uncount(Slot& slot);
};

// Starts serving an accepted connection (server_accept.cpp): HTTPS when core.ssl is set, else
// plain HTTP. Each piece keeps itself alive through its pending handlers and unregisters when
// it ends.
void start_session(tcp::socket&& socket, Core& core);

}  // namespace ibw::web::server_detail
