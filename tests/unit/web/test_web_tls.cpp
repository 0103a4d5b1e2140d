// The server with web.tls_*: real HTTPS requests from libcurl trusting a self-signed
// certificate made at test time. Health over HTTPS (by IP and by name), keep-alive, 413 over
// TLS, the SSE stream, TLS versions, and the failures that must cost only their own
// connection: a plain-HTTP request (answered 400), a client that does not trust the
// certificate, garbage instead of a ClientHello, an idle connection. Then stop() with an HTTPS
// stream open.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "tests/unit/test_tls_helpers.h"
#include "tests/unit/test_web_helpers.h"
#include "web/server.h"

using namespace ibw;
using namespace ibw::web_test;
using namespace ibw::tls_test;

namespace web_tls_test {

struct TlsBench {
  SelfSigned pki;
  WebBench bench;
  std::unique_ptr<web::Api> api = bench.api();
  std::mutex log_mutex;
  std::vector<std::string> errors;
  std::unique_ptr<web::Server> server;

  explicit TlsBench(web::ServerOptions o = {}) {
    o.listen = "127.0.0.1:0";
    o.stream_poll = std::chrono::milliseconds(50);
    o.tls = web::TlsConfig::load(pki.files());
    o.error_log = [this](const std::string& e) {
      std::lock_guard<std::mutex> lock(log_mutex);
      errors.push_back(e);
    };
    server = std::make_unique<web::Server>(o, *api);
    server->start();
  }
  std::string url(const std::string& path, const char* scheme = "https",
                  const char* host = "127.0.0.1") const {
    return std::string(scheme) + "://" + host + ":" + std::to_string(server->port()) + path;
  }
  bool logged(const std::string& prefix) {
    std::lock_guard<std::mutex> lock(log_mutex);
    for (const auto& e : errors)
      if (e.rfind(prefix, 0) == 0) return true;
    return false;
  }
};

// A raw TCP connection: sends `data`, then reads until the server closes (5 s at most).
std::string raw_exchange(uint16_t port, const std::string& data) {
  RawClient c(port);
  if (!data.empty()) c.send_all(data);
  return c.read_until();
}

}  // namespace web_tls_test

using namespace web_tls_test;

TEST_CASE("web tls: HTTPS serves health verified against the test certificate", "[web][tls]") {
  TlsBench s;
  HttpsClient client(s.pki.cert);
  Answer a = client.get(s.url("/api/v1/health"), kViewerToken);
  INFO(a.error);
  REQUIRE(a.code == CURLE_OK);
  CHECK(a.status == 200);
  CHECK(nlohmann::json::parse(a.body).contains("status"));
  // By name as well (the certificate names localhost), and keep-alive: no new connection.
  Answer b = client.get(s.url("/api/v1/fabric", "https", "localhost"), kViewerToken);
  REQUIRE(b.code == CURLE_OK);
  CHECK(nlohmann::json::parse(b.body)["nodes"] == 3);
  Answer c = client.get(s.url("/api/v1/fabric", "https", "localhost"), kViewerToken);
  REQUIRE(c.code == CURLE_OK);
  CHECK(c.connects == 0);
  Answer unauthorized = client.get(s.url("/api/v1/health"), nullptr);
  CHECK(unauthorized.status == 401);
}

TEST_CASE("web tls: a plain HTTP request is answered 400 and HTTPS goes on", "[web][tls]") {
  TlsBench s;
  HttpsClient client(s.pki.cert);
  Answer plain = client.get(s.url("/api/v1/health", "http"), kViewerToken);
  INFO(plain.error);
  CHECK(plain.code == CURLE_OK);
  CHECK(plain.status == 400);
  CHECK(plain.body.find("speaks HTTPS only") != std::string::npos);
  CHECK(s.logged("web: plain HTTP from 127.0.0.1:"));
  Answer next = client.get(s.url("/api/v1/health"), kViewerToken);
  INFO(next.error);
  CHECK(next.code == CURLE_OK);
  CHECK(next.status == 200);
}

TEST_CASE("web tls: a scan of bad connections logs ten lines per window and then a count",
          "[web][tls]") {
  web::ServerOptions o;
  o.noise_window = std::chrono::milliseconds(1500);
  TlsBench s(o);
  for (int i = 0; i < 25; ++i)
    CHECK(raw_exchange(s.server->port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
              .rfind("HTTP/1.1 400", 0) == 0);
  auto lines = [&] {
    std::lock_guard<std::mutex> lock(s.log_mutex);
    return s.errors;
  };
  auto first = lines();
  // All 25 may not fit in one window on a loaded machine: at most 10 per window.
  REQUIRE(first.size() >= 10);
  CHECK(first[0].rfind("web: plain HTTP from 127.0.0.1:", 0) == 0);
  CHECK(first[9].find("only counted") != std::string::npos);
  // With no further error, the count of the unlogged ones still comes when the window ends.
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::vector<std::string> now;
  while (std::chrono::steady_clock::now() < until) {
    now = lines();
    if (!now.empty() && now.back().find("were not logged") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE_FALSE(now.empty());
  CHECK(now.back().find("were not logged in the last 1500 ms") != std::string::npos);
  size_t logged = 0, counted = 0;
  for (const auto& l : now) {
    if (l.rfind("web: plain HTTP from", 0) == 0) ++logged;
    auto at = l.find(" more connection errors were not logged");
    if (at != std::string::npos) counted += std::stoul(l.substr(5, at - 5));
  }
  CHECK(logged + counted == 25);  // every bad connection either logged or counted
  CHECK(counted > 0);
}

TEST_CASE("web tls: failed handshakes close only their own connection", "[web][tls]") {
  TlsBench s;
  HttpsClient trusting(s.pki.cert);
  SelfSigned stranger;  // a CA that did not sign the server's certificate
  HttpsClient untrusting(stranger.cert);
  // A connection kept open while the others fail.
  Answer first = trusting.get(s.url("/api/v1/health"), kViewerToken);
  REQUIRE(first.code == CURLE_OK);
  Answer refused = untrusting.get(s.url("/api/v1/health"), kViewerToken);
  CHECK(refused.code != CURLE_OK);
  // A ClientHello header (so it is taken for TLS), then garbage: an alert at most, then EOF.
  std::string hello("\x16\x03\x01\x00\x30\x01\x00\x00\x2c\x03\x03", 11);
  std::string answer = raw_exchange(s.server->port(), hello + std::string(42, '\x7f'));
  CHECK(answer.size() < 100);
  CHECK(answer.find("HTTP/1.1") == std::string::npos);
  // Connected, silent, gone: closed without a log line.
  raw_exchange(s.server->port(), "");
  Answer again = trusting.get(s.url("/api/v1/health"), kViewerToken);
  INFO(again.error);
  CHECK(again.code == CURLE_OK);
  CHECK(again.status == 200);
  CHECK(again.connects == 0);  // the first connection survived
  CHECK(s.logged("web: TLS handshake with 127.0.0.1:"));
}

TEST_CASE("web tls: TLS 1.2 and 1.3 are served and TLS 1.1 is refused", "[web][tls]") {
  TlsBench s;
  // CURLOPT_SSLVERSION: a minimum | a maximum (two unnamed enums: combined as longs).
  auto versions = [](long min, long max) { return min | max; };
  auto with_version = [&](long version) {
    HttpsClient client(s.pki.cert);
    return client.request(s.url("/api/v1/health"), kViewerToken,
                          [version](CURL* c) { curl_easy_setopt(c, CURLOPT_SSLVERSION, version); });
  };
  CHECK(with_version(versions(CURL_SSLVERSION_TLSv1_2, CURL_SSLVERSION_MAX_TLSv1_2)).status == 200);
  CHECK(with_version(versions(CURL_SSLVERSION_TLSv1_3, CURL_SSLVERSION_MAX_TLSv1_3)).status == 200);
  Answer old = with_version(versions(CURL_SSLVERSION_TLSv1_1, CURL_SSLVERSION_MAX_TLSv1_1));
  CHECK(old.code != CURLE_OK);
}

TEST_CASE("web tls: an oversized body is answered 413 over TLS", "[web][tls]") {
  TlsBench s;
  HttpsClient client(s.pki.cert);
  std::string body(size_t{100} * 1024, 'x');
  Answer a = client.request(s.url("/api/v1/workorders/1"), kOperatorToken, [&](CURL* c) {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PATCH");
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  });
  INFO(a.error);
  CHECK(a.status == 413);
  CHECK(a.body.find("request body over 65536 bytes") != std::string::npos);
  CHECK(client.get(s.url("/api/v1/health"), kViewerToken).status == 200);
}

TEST_CASE("web tls: an idle connection is closed after the timeout", "[web][tls]") {
  web::ServerOptions o;
  o.idle_timeout = std::chrono::milliseconds(200);
  TlsBench s(o);
  auto t0 = std::chrono::steady_clock::now();
  CHECK(raw_exchange(s.server->port(), "").empty());  // EOF, not the 5 s client timeout
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3));
}

namespace web_tls_test {

// Reads the stream: stores an event once "hello" arrived, stops when it comes back.
struct StreamReader {
  store::Store* db = nullptr;
  std::string seen;
  bool wrote = false;
  static size_t on_data(char* data, size_t size, size_t n, void* self_ptr) {
    auto* self = static_cast<StreamReader*>(self_ptr);
    self->seen.append(data, size * n);
    if (!self->wrote && self->seen.find("event: hello") != std::string::npos) {
      self->wrote = true;
      store::WriteBatch w;
      w.events.push_back(port_event(9, kLeaf, 2, "leaf001", "link_down"));
      self->db->write(w);
    }
    if (self->seen.find("\"kind\":\"link_down\"") != std::string::npos) return 0;  // done
    return size * n;
  }
};

}  // namespace web_tls_test

TEST_CASE("web tls: the event stream works over HTTPS and stop ends it promptly", "[web][tls]") {
  TlsBench s;
  HttpsClient client(s.pki.cert);
  StreamReader reader{s.bench.db.get()};
  Answer a = client.request(s.url("/api/v1/stream"), kViewerToken, [&](CURL* c) {
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &StreamReader::on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &reader);
  });
  CHECK(a.code == CURLE_WRITE_ERROR);  // the reader stopped it
  CHECK(a.status == 200);
  CHECK(reader.seen.find("id: 7.2\nevent: event\n") != std::string::npos);

  // A stream left open: stop() closes it within the grace period.
  std::thread open_stream([&] {
    HttpsClient other(s.pki.cert);
    other.request(s.url("/api/v1/stream"), kViewerToken, [](CURL*) {});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto t0 = std::chrono::steady_clock::now();
  s.server->stop();
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1500));
  open_stream.join();
}
