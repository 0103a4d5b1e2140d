// The Beast server over real sockets on 127.0.0.1 (port 0), driven by a tiny blocking POSIX
// client: a request and its JSON answer, keep-alive with two requests, 401, 413 for a big
// body, 400 for a malformed request, the idle timeout, the SSE stream, the access log, and a
// prompt stop() with connections still open.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <mutex>

#include "tests/unit/test_web_helpers.h"
#include "web/server.h"

using namespace ibw;
using namespace ibw::web_test;

namespace web_server_test {

// A connected socket, closed on destruction; reads time out after 5 s.

std::string get(const std::string& target, const char* token, bool close = true) {
  std::string r = "GET " + target + " HTTP/1.1\r\nHost: localhost\r\n";
  if (token) r += std::string("Authorization: Bearer ") + token + "\r\n";
  if (close) r += "Connection: close\r\n";
  return r + "\r\n";
}

std::string body_after_headers(const std::string& response) {
  size_t at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

struct ServerBench {
  WebBench bench;
  std::unique_ptr<web::Api> api = bench.api();
  std::mutex log_mutex;
  std::vector<web::AccessRecord> log;
  std::vector<std::string> errors;
  std::unique_ptr<web::Server> server;

  explicit ServerBench(web::ServerOptions o = {}) {
    o.listen = "127.0.0.1:0";
    o.stream_poll = std::chrono::milliseconds(50);
    o.access_log = [this](const web::AccessRecord& a) {
      std::lock_guard<std::mutex> lock(log_mutex);
      log.push_back(a);
    };
    o.error_log = [this](const std::string& e) {
      std::lock_guard<std::mutex> lock(log_mutex);
      errors.push_back(e);
    };
    server = std::make_unique<web::Server>(o, *api);
    server->start();
  }
};

}  // namespace web_server_test

using namespace web_server_test;

TEST_CASE("web server: a real request gets the JSON answer and is logged without the token",
          "[web]") {
  ServerBench s;
  REQUIRE(s.server->port() != 0);
  RawClient c(s.server->port());
  c.send_all(get("/api/v1/fabric", kViewerToken));
  std::string res = c.read_until();
  CHECK(res.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(res.find("Content-Type: application/json\r\n") != std::string::npos);
  CHECK(res.find("Cache-Control: no-store\r\n") != std::string::npos);
  auto j = nlohmann::json::parse(body_after_headers(res));
  CHECK(j["nodes"] == 3);
  s.server->stop();
  std::lock_guard<std::mutex> lock(s.log_mutex);
  REQUIRE(s.log.size() == 1);
  CHECK(s.log[0].method == "GET");
  CHECK(s.log[0].path == "/api/v1/fabric");
  CHECK(s.log[0].status == 200);
  CHECK(s.log[0].actor == "viewer@tokens:3");
}

TEST_CASE("web server: keep-alive serves two requests on one connection", "[web]") {
  ServerBench s;
  RawClient c(s.server->port());
  c.send_all(get("/api/v1/health", kViewerToken, /*close=*/false) +
             get("/api/v1/audit", kViewerToken));
  std::string res = c.read_until();
  CHECK(res.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(res.find("HTTP/1.1 404 Not Found\r\n") != std::string::npos);
}

TEST_CASE("web server: HEAD answers the GET headers and length without a body", "[web]") {
  ServerBench s;
  auto head = [](const std::string& target, const char* token) {
    std::string r = get(target, token, /*close=*/false);
    return "HEAD" + r.substr(3);
  };
  std::string full;
  {
    RawClient c(s.server->port());
    c.send_all(get("/api/v1/fabric", kViewerToken));
    full = c.read_until();
  }
  RawClient c(s.server->port());
  // HEAD, HEAD and GET on one connection: a body after a HEAD answer would be read as the
  // start of the next answer.
  c.send_all(head("/api/v1/fabric", kViewerToken) + head("/api/v1/stream", kViewerToken) +
             get("/ui/app.js", nullptr));
  std::string res = c.read_until();
  std::string length = "Content-Length: " + std::to_string(body_after_headers(full).size());
  size_t second = res.find("HTTP/1.1", 1);
  REQUIRE(second != std::string::npos);
  CHECK(res.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(res.substr(0, second).find(length + "\r\n") != std::string::npos);
  CHECK(res.substr(0, second).find("\r\n\r\n") == second - 4);  // headers, then nothing
  size_t third = res.find("HTTP/1.1", second + 1);
  REQUIRE(third != std::string::npos);
  CHECK(res.substr(second, 17) == "HTTP/1.1 200 OK\r\n");
  CHECK(res.substr(second, third - second).find("text/event-stream") != std::string::npos);
  CHECK(res.substr(third, 17) == "HTTP/1.1 200 OK\r\n");
  CHECK(body_after_headers(res.substr(third)).find("import") != std::string::npos);
}

TEST_CASE("web server: 401 carries WWW-Authenticate", "[web]") {
  ServerBench s;
  RawClient c(s.server->port());
  c.send_all(get("/api/v1/health", nullptr));
  std::string res = c.read_until();
  CHECK(res.rfind("HTTP/1.1 401 Unauthorized\r\n", 0) == 0);
  CHECK(res.find("WWW-Authenticate: Bearer realm=\"ibwarden\"\r\n") != std::string::npos);
}

TEST_CASE("web server: an oversized body is answered 413 and a malformed request 400", "[web]") {
  ServerBench s;
  {
    RawClient c(s.server->port());
    std::string body(size_t{100} * 1024, 'x');
    c.send_all("PATCH /api/v1/workorders/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
               std::string(kOperatorToken) +
               "\r\nContent-Type: application/json\r\nContent-Length: " +
               std::to_string(body.size()) + "\r\n\r\n" + body);
    std::string res = c.read_until();
    CHECK(res.rfind("HTTP/1.1 413 Payload Too Large\r\n", 0) == 0);
    CHECK(body_after_headers(res).find("request body over 65536 bytes") != std::string::npos);
  }
  {
    RawClient c(s.server->port());
    c.send_all("GARBAGE\r\n\r\n");
    CHECK(c.read_until().rfind("HTTP/1.1 400 Bad Request\r\n", 0) == 0);
  }
  CHECK(s.bench.db->workorder(1)->note.empty());
}

TEST_CASE("web server: an idle connection is closed after the timeout", "[web]") {
  web::ServerOptions o;
  o.request_timeout = std::chrono::milliseconds(200);
  ServerBench s(o);
  RawClient c(s.server->port());
  auto t0 = std::chrono::steady_clock::now();
  CHECK(c.read_until().empty());  // EOF, not the 5 s client timeout
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3));
}

TEST_CASE("web server: the stream sends hello then new events as they are stored", "[web]") {
  ServerBench s;
  RawClient c(s.server->port());
  c.send_all(get("/api/v1/stream", kViewerToken, /*close=*/false));
  std::string head = c.read_until("event: hello");
  CHECK(head.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
  CHECK(head.find("Content-Type: text/event-stream\r\n") != std::string::npos);
  CHECK(head.find("Transfer-Encoding: chunked\r\n") != std::string::npos);
  store::WriteBatch w;
  w.events.push_back(port_event(9, kLeaf, 2, "leaf001", "link_down"));
  s.bench.db->write(w);
  std::string more = c.read_until("\"kind\":\"link_down\"");
  CHECK(more.find("id: 7.2\nevent: event\n") != std::string::npos);
}

TEST_CASE("web server: a stream client too far behind is dropped", "[web]") {
  web::ServerOptions o;
  o.stream_queue_limit = 1;
  ServerBench s(o);
  RawClient c(s.server->port());
  c.send_all(get("/api/v1/stream", kViewerToken, /*close=*/false));
  c.read_until("event: hello");
  store::WriteBatch w;
  for (int i = 10; i < 15; ++i) w.events.push_back(port_event(i, kLeaf, 2, "leaf001", "link_up"));
  s.bench.db->write(w);  // one poll gives 5 messages: more than 1 behind
  c.read_until();        // until the server closes the connection
  std::lock_guard<std::mutex> lock(s.log_mutex);
  REQUIRE(s.errors.size() == 1);
  CHECK(s.errors[0].rfind("web: dropping stream client 127.0.0.1:", 0) == 0);
}

TEST_CASE("web server: stop returns promptly with idle and streaming connections open", "[web]") {
  ServerBench s;
  RawClient idle(s.server->port());
  RawClient streaming(s.server->port());
  streaming.send_all(get("/api/v1/stream", kViewerToken, /*close=*/false));
  streaming.read_until("event: hello");
  auto t0 = std::chrono::steady_clock::now();
  s.server->stop();
  auto took = std::chrono::steady_clock::now() - t0;
  CHECK(took < std::chrono::milliseconds(1500));
  idle.read_until();  // closed by the server
  s.server->stop();   // idempotent
  // Nothing listens any more.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(s.server->port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  CHECK(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0);
  ::close(fd);
}

TEST_CASE("web server: a port in use is a clear error", "[web]") {
  ServerBench s;
  WebBench other;
  auto api = other.api();
  web::ServerOptions o;
  o.listen = "127.0.0.1:" + std::to_string(s.server->port());
  web::Server second(o, *api);
  try {
    second.start();
    FAIL("start() did not throw");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).rfind("web.listen 127.0.0.1:", 0) == 0);
    CHECK(std::string(e.what()).find("bind") != std::string::npos);
  }
}
