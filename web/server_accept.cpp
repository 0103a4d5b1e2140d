// A connection's first steps (web/server_connection.h): start_session() makes the stream for
// the listener's socket; plain HTTP goes straight to the HTTP piece, HTTPS first tells TLS
// from plain HTTP and handshakes (TlsAccept), then hands the connection over.
#include <boost/asio/dispatch.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/detect_ssl.hpp>

#include "web/server_connection.h"

namespace ibw::web::server_detail {
namespace {

// Answer to a plain-HTTP request on the HTTPS port (like a TLS-terminating proxy would).
const std::string& plain_on_tls_answer() {
  static const std::string kBody = R"({"error": "this server speaks HTTPS only: use https://"})";
  static const std::string kAnswer =
      "HTTP/1.1 400 Bad Request\r\nServer: ibwarden\r\nContent-Type: application/json\r\n"
      "Cache-Control: no-store\r\nContent-Length: " +
      std::to_string(kBody.size()) + "\r\nConnection: close\r\n\r\n" + kBody;
  return kAnswer;
}

// An HTTPS connection until its handshake is done.
class TlsAccept : public Connection<TlsStream> {
 public:
  using Connection::Connection;

  void run() {
    if (!enter()) return;
    net::dispatch(executor_, [s = shared()] { s->detect(); });
  }

 private:
  std::shared_ptr<TlsAccept> shared() {
    return std::static_pointer_cast<TlsAccept>(shared_from_this());
  }
  void stop() override { close(); }

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
      core_.noisy("web: TLS handshake with " + peer_.text + " failed: " + ec.message());
      return close();
    }
    buffer_.consume(used);
    serve_http(std::move(stream_), core_, std::move(peer_), std::move(buffer_), this);
  }

  // A plain-HTTP client on the HTTPS port: an answer it can read, then the connection closes.
  void refuse_plain() {
    core_.noisy("web: plain HTTP from " + peer_.text + " on the HTTPS port: answered 400");
    lowest().expires_after(core_.options.idle_timeout);
    net::async_write(lowest(), net::buffer(plain_on_tls_answer()),
                     [s = shared()](beast::error_code ec, std::size_t) {
                       if (ec) return s->close();
                       s->linger();
                     });
  }

  beast::flat_buffer buffer_;
};

}  // namespace

Peer peer_of(const tcp::socket& socket) {
  beast::error_code ec;
  auto ep = socket.remote_endpoint(ec);
  if (ec) return {};
  std::string address = ep.address().to_string();
  return {address + ":" + std::to_string(ep.port()), address, std::make_shared<Slot>(address)};
}

void start_session(tcp::socket&& socket, Core& core) {
  Peer peer = peer_of(socket);
  if (!peer.slot) return;  // gone already
  if (core.ssl)
    std::make_shared<TlsAccept>(TlsStream(std::move(socket), *core.ssl), core, std::move(peer))
        ->run();
  else
    serve_http(PlainStream(std::move(socket)), core, std::move(peer), beast::flat_buffer(),
               static_cast<Connection<PlainStream>*>(nullptr));
}

}  // namespace ibw::web::server_detail
