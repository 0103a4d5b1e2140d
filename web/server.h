// Server: the HTTP/1.1 server of the web API on Boost.Beast (shaped after Beast's advanced
// async server, simpler). Beast and Asio stay inside web/server*.cpp; this header is light.
//
// Threads:
//  - io_threads (default 1) run the io_context: accept, read, write, timers. Each connection
//    is on its own strand, so any number of io threads is safe.
//  - worker_threads (default 4) run Api::handle() and EventStream::poll(). Every handler call
//    touches the store or the backend (a port action may wait on SMP timeouts, an audit may
//    discover the fabric), so none runs on an io thread: a slow request delays only itself;
//    at most worker_threads requests are handled at once, the others wait in order.
//
// Per connection: HTTP/1.1 keep-alive, one request at a time (a pipelined request is read
// after the previous response is written). A request must arrive whole within
// request_timeout of its first byte (of the connection, for the first one); a kept-alive
// connection may wait keepalive_timeout for its next request; each write has idle_timeout.
// A request body over body_limit is answered 413; headers over header_limit in total (also
// when they arrive in many small pieces) 431; a malformed request 400, all with {"error":
// ...} and Connection: close (the rest of the request is read and discarded for up to 2 s so
// the client sees the answer). 401, 421 and 429 answers close the connection too.
// Caps: at most max_connections_per_address connections from one address and
// max_connections in total. When a cap is hit, a new connection takes the place of the
// longest-idle one (waiting for a request: silent, half-sent or kept alive; of the same
// address when the per-address cap is hit), which is closed; when none is idle, it gets one
// of reserve_connections reserve slots, where only GET/HEAD of /api/v1/health and /metrics
// are served (with their usual authentication; else 503 with Retry-After), one request, then
// closed; beyond that it is closed at once. Event streams: at most max_streams, and
// max_streams_per_token per token (per address without tokens); beyond, 429. Every refusal
// and drop is counted (Api::guard(), web/guard.h) and logged through error_log, 10 lines per
// noise_window.
// GET /api/v1/stream (Server-Sent Events, chunked): the Api's EventStream is polled every
// stream_poll (at once again while it reports more and the queue is short); its messages go
// through a write queue with one write in flight. A client more than stream_queue_limit
// messages behind, or that does not take a write within idle_timeout, is dropped.
//
// stop(): stops accepting, closes idle and streaming connections, lets requests in progress
// finish for up to stop_grace, then stops the io threads and joins the workers (a backend
// call in progress is waited for). The Api (and its backend) must outlive the Server.
//
// TLS (options.tls, web/tls.h): the port speaks HTTPS only. Each connection is first told
// apart (TLS or plain HTTP) and handshakes within idle_timeout; then everything above holds
// unchanged. A failed handshake closes that connection only (error_log); a plain-HTTP
// request is answered 400 {"error": "this server speaks HTTPS only..."} in plain HTTP and its
// connection closed. A connection ending after an answer sends close_notify first.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "web/api.h"
#include "web/tls.h"

namespace ibw::web {

struct ListenAddress {
  std::string host;  // IP literal, or "localhost" (127.0.0.1)
  uint16_t port = 0;
};
// "127.0.0.1:8080", "0.0.0.0:8080", "[::1]:8080", "localhost:0" (port 0: any free port).
// Throws std::invalid_argument saying what is wrong (no DNS names: bind to an address).
ListenAddress parse_listen(std::string_view text);

// One request, for the access log. Never the Authorization header or the query string.
struct AccessRecord {
  std::string method;
  std::string path;
  int status = 0;
  int64_t duration_us = 0;
  std::string actor;  // "anonymous", "operator@tokens:3", "unauthenticated"
  std::string peer;   // client address
  // The role the request ran with ("none" when it was not authenticated).
  std::string role() const;
  // POST, PATCH, PUT, DELETE: a change, logged with its actor even without the access log.
  bool mutating() const;
};

struct ServerOptions {
  std::string listen = "127.0.0.1:8080";
  int io_threads = 1;
  int worker_threads = 4;
  std::chrono::milliseconds idle_timeout{30'000};       // writes; the TLS handshake
  std::chrono::milliseconds request_timeout{10'000};    // a whole request from its first byte
  std::chrono::milliseconds keepalive_timeout{60'000};  // waiting for the next request
  size_t body_limit = 64 * 1024;
  size_t header_limit = 16 * 1024;  // all header lines of a request together
  size_t max_connections = 256;
  size_t max_connections_per_address = 16;
  size_t reserve_connections = 8;  // beyond the caps: health and metrics only
  size_t max_streams = 64;
  size_t max_streams_per_token = 8;
  size_t stream_queue_limit = 1024;  // SSE messages
  std::chrono::milliseconds stream_poll{1000};
  std::chrono::milliseconds stop_grace{2000};
  // Connection errors (failed TLS handshakes, plain HTTP on HTTPS) are logged 10 per window;
  // the rest are counted and the count logged when the window ends.
  std::chrono::milliseconds noise_window{60'000};
  std::optional<TlsConfig> tls;                         // HTTPS only with it; plain HTTP without
  std::function<void(const AccessRecord&)> access_log;  // called on io threads
  std::function<void(const std::string&)> error_log;    // e.g. a dropped slow client
};

class Server {
 public:
  Server(ServerOptions options, Api& api);
  ~Server();  // stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and starts the threads. Throws std::runtime_error ("web.listen 127.0.0.1:8080: bind:
  // Address already in use") or std::invalid_argument for a bad listen address.
  void start();
  void stop();            // idempotent; returns within about stop_grace unless a handler is busy
  uint16_t port() const;  // the bound port (useful with port 0); 0 before start()

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibw::web
