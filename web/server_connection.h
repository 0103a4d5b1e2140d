// One connection of the Beast HTTP server (web/server.h) as its pieces share it: the stream
// (beast::tcp_stream for HTTP, asio::ssl::stream over it for HTTPS), its registration with
// the server, closing, lingering and the goodbye. A connection is served by one piece at a
// time, each on the connection's strand:
//  - server_accept.cpp: HTTPS only: tells TLS from plain HTTP, handshakes (TlsAccept);
//  - server_http.cpp:   requests, the worker hand-off to Api::handle(), responses, keep-alive
//                       (HttpSession);
//  - server_sse.cpp:    the Server-Sent Events of GET /api/v1/stream (StreamSession).
// A piece hands the connection to the next one (hand_over: the stream is moved there, the
// server's registration and a later shutdown() go with it). What differs between HTTP and
// HTTPS is the stream type: how a stream is made (start_session) and how it says goodbye
// (goodbye() below); the pieces are templates over it.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>

#include "web/server_core.h"

namespace ibw::web::server_detail {

// Who is on the other end.
struct Peer {
  std::string text;            // "10.0.0.7:51234", for logs
  std::string address;         // "10.0.0.7", for Request::peer
  std::shared_ptr<Slot> slot;  // its place under the caps
};
Peer peer_of(const tcp::socket& socket);  // empty when the socket has no peer any more

// How a connection ends after a complete answer: plain HTTP at once; HTTPS says goodbye first
// (close_notify, waiting up to kLingerTime for the client's), so the client can tell an end
// from a cut.
template <class Done>
void goodbye(PlainStream&, Done&& done) {
  done();
}
template <class Done>
void goodbye(TlsStream& stream, Done&& done) {
  beast::get_lowest_layer(stream).expires_after(kLingerTime);
  stream.async_shutdown([done = std::forward<Done>(done)](beast::error_code) mutable { done(); });
}

template <class Stream>
class Connection : public SessionBase, public std::enable_shared_from_this<Connection<Stream>> {
 public:
  Connection(Stream&& stream, Core& core, Peer peer)
      : core_(core),
        stream_(std::move(stream)),
        executor_(stream_.get_executor()),
        peer_(std::move(peer)) {}
  ~Connection() override { core_.remove(this); }

  // Server::stop(): to the piece serving the connection now.
  void shutdown() final {
    if (auto next = next_.lock()) return next->shutdown();
    stop();
  }
  net::any_io_executor executor() final { return executor_; }

  // `next` (made with this stream, moved) serves the connection from now on. On the strand,
  // with no operation pending on the stream.
  void hand_over(const std::shared_ptr<SessionBase>& next) {
    core_.replace(this, next.get(), next);
    next_ = next;
  }
  Stream& stream() { return stream_; }
  Core& core() { return core_; }
  Peer& peer() { return peer_; }

 protected:
  // Registers a new connection; false (and the connection closed) when the server is stopping
  // or full.
  bool enter() {
    if (core_.add(this, this->shared_from_this(), peer_.slot)) return true;
    close();
    return false;
  }
  // What Server::stop() does to this piece (on the strand).
  virtual void stop() = 0;

  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  virtual void close() {
    if (closed_) return;
    closed_ = true;
    core_.release(this);  // before the client can see the close and connect again
    beast::error_code ec;
    lowest().socket().shutdown(tcp::socket::shutdown_both, ec);
    lowest().close();
  }

  // The end after a complete answer (goodbye(), then close).
  void finish() {
    if (closed_) return;
    goodbye(stream_, [s = this->shared_from_this()] { s->close(); });
  }

  // No more to send: end the sending side, then read and discard what the client still sends
  // (raw bytes, also over TLS) until it closes or for kLingerTime: closing with unread data
  // would reset the connection before the client reads the answer.
  void linger() {
    beast::error_code ignored;
    lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
    lowest().expires_after(kLingerTime);
    drain();
  }

  Core& core_;
  Stream stream_;
  net::any_io_executor executor_;
  Peer peer_;
  bool closed_ = false;

 private:
  void drain() {
    lowest().async_read_some(net::buffer(drain_),
                             [s = this->shared_from_this()](beast::error_code ec, std::size_t) {
                               if (ec) return s->close();
                               s->drain();
                             });
  }

  std::array<char, 4096> drain_{};
  std::weak_ptr<SessionBase> next_;
};

// The pieces' entry points. serve_http (server_http.cpp): requests on `stream` (HTTPS:
// handshaken), `buffer` holding what was read already; `from`, the piece it takes over from,
// or null for a new connection (registered then, or closed when the server is stopping or
// full). serve_events (server_sse.cpp): the event stream `r` (a 200 with Response::stream) on
// `from`'s connection; `version` the request's HTTP version.
template <class Stream>
void serve_http(Stream&& stream, Core& core, Peer peer, beast::flat_buffer&& buffer,
                Connection<Stream>* from);
template <class Stream>
void serve_events(Connection<Stream>& from, Response&& r, unsigned version);

}  // namespace ibw::web::server_detail
