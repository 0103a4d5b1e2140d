// Unit tests for the webhook outbox (actions/webhook.h): OutboxSender against a fake poster
// and a fake queue (order, stop on failure, backoff, headers, the secret), and CurlPoster
// against a tiny HTTP/1.1 server on a loopback socket in this process.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "actions/webhook.h"

using namespace ibw::actions;

namespace webhook_test_detail {

constexpr int64_t kSecond = int64_t{1000} * 1000;
constexpr int64_t kNow = int64_t{1700000000} * kSecond;
const std::string kUrl = "https://hooks.example.com/ibwarden";
const std::string kSecret = "s3cr3t-T0ken";

// Log shared by the fakes, to see what happened in which order.
using Log = std::vector<std::string>;

struct FakePoster : HttpPoster {
  Log& log;
  std::vector<PostResult> script;  // results in order; 200 once it runs out
  bool throw_next = false;
  struct Call {
    std::string url, body;
    HttpHeaders headers;
  };
  std::vector<Call> calls;

  explicit FakePoster(Log& l) : log(l) {}
  PostResult post(const std::string& url, const std::string& body,
                  const HttpHeaders& headers) override {
    calls.push_back({url, body, headers});
    log.push_back("post " + body);
    if (throw_next) {
      throw_next = false;
      throw std::runtime_error("boom " + kSecret);
    }
    if (calls.size() <= script.size()) return script[calls.size() - 1];
    return PostResult{true, 200, ""};
  }
};

struct FakeQueue : OutboxQueue {
  struct Row {
    OutboxEntry entry;
    int64_t next_attempt_us = 0;
    int64_t delivered_us = 0;
    std::string last_error;
  };
  Log& log;
  std::vector<Row> rows;  // by id
  bool ignore_delivered = false;
  bool crash_on_delivered = false;

  explicit FakeQueue(Log& l) : log(l) {}
  void add(int64_t id, int attempts = 0, int64_t next_attempt_us = 0) {
    rows.push_back(
        {{id, std::to_string(id) + "-v1", std::to_string(id), attempts}, next_attempt_us});
  }
  Row& row(int64_t id) {
    return *std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.entry.id == id; });
  }
  // Head of line (the OutboxQueue contract), or, when false, every due row like a plain
  // "WHERE next_attempt <= now" query.
  bool head_of_line = true;
  std::vector<OutboxEntry> due(int64_t now_us, size_t limit) override {
    std::vector<OutboxEntry> out;
    for (const Row& r : rows) {
      if (r.delivered_us != 0) continue;
      if (r.next_attempt_us > now_us) {
        if (head_of_line) break;
        continue;
      }
      if (out.size() < limit) out.push_back(r.entry);
    }
    return out;
  }
  void delivered(int64_t id, int64_t now_us) override {
    if (crash_on_delivered) throw std::runtime_error("crash");
    log.push_back("delivered " + std::to_string(id));
    if (!ignore_delivered) row(id).delivered_us = now_us;
  }
  void failed(int64_t id, int64_t next_attempt_us, const std::string& error) override {
    log.push_back("failed " + std::to_string(id));
    Row& r = row(id);
    r.entry.attempts++;
    r.next_attempt_us = next_attempt_us;
    r.last_error = error;
  }
};

std::string header(const HttpHeaders& headers, const std::string& name) {
  for (const auto& [n, v] : headers)
    if (n == name) return v;
  return "<none>";
}

// A blocking HTTP/1.1 server on 127.0.0.1 for CurlPoster: one connection at a time, reads the
// headers and a Content-Length body, answers `status` and closes (or, when silent, never
// answers and holds the connection until it is destroyed).
class LoopbackServer {
 public:
  struct Request {
    std::string request_line;
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;
  };

  explicit LoopbackServer(int status, bool silent = false) : status_(status), silent_(silent) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd_, 8) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      throw std::runtime_error("test server: cannot listen");
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~LoopbackServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  void set_status(int status) { status_ = status; }
  std::vector<Request> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  // Waits up to 20 ms for fd to become readable.
  static bool readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 20) > 0;
  }

  void run() {
    while (!stop_) {
      if (!readable(fd_)) continue;
      int conn = ::accept(fd_, nullptr, nullptr);
      if (conn < 0) continue;
      serve(conn);
      ::close(conn);
    }
  }

  // Reads until `done(data)` or the peer closes or the server stops.
  template <typename Done>
  bool read_until(int conn, std::string& data, Done done) {
    char buf[4096];
    while (!done(data)) {
      if (stop_) return false;
      if (!readable(conn)) continue;
      ssize_t n = ::recv(conn, buf, sizeof buf, 0);
      if (n <= 0) return false;
      data.append(buf, static_cast<size_t>(n));
    }
    return true;
  }

  void serve(int conn) {
    std::string data;
    auto end_of_headers = [](const std::string& d) { return d.find("\r\n\r\n") != d.npos; };
    if (!read_until(conn, data, end_of_headers)) return;
    size_t head_end = data.find("\r\n\r\n");
    Request req;
    std::string head = data.substr(0, head_end);
    size_t eol = head.find("\r\n");
    req.request_line = head.substr(0, eol);
    for (size_t at = eol; at != std::string::npos && at < head.size();) {
      size_t next = head.find("\r\n", at + 2);
      std::string line = head.substr(at + 2, next == std::string::npos ? next : next - at - 2);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        req.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
      }
      at = next;
    }
    size_t length =
        req.headers.count("content-length") ? std::stoul(req.headers["content-length"]) : 0;
    size_t body_at = head_end + 4;
    if (!read_until(conn, data, [&](const std::string& d) { return d.size() >= body_at + length; }))
      return;
    req.body = data.substr(body_at, length);
    {
      std::lock_guard lock(mu_);
      requests_.push_back(req);
    }
    if (silent_) {
      char c;  // hold the connection, never answer, until the client hangs up
      while (!stop_)
        if (readable(conn) && ::recv(conn, &c, 1, 0) <= 0) return;
      return;
    }
    std::string answer = "HTTP/1.1 " + std::to_string(status_.load()) +
                         " Test\r\nContent-Length: 8\r\nConnection: close\r\n\r\nanswered";
    ::send(conn, answer.data(), answer.size(), MSG_NOSIGNAL);
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<int> status_;
  bool silent_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<Request> requests_;
  std::thread thread_;
};

// A loopback port with nothing listening: bound (so nobody else takes it) but not listening.
struct RefusingPort {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int port = 0;
  RefusingPort() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
      throw std::runtime_error("test: cannot bind a loopback port");
    port = ntohs(addr.sin_port);
  }
  ~RefusingPort() { ::close(fd); }
};

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace webhook_test_detail

using namespace webhook_test_detail;

TEST_CASE("webhook backoff doubles from one second and is capped at five minutes") {
  CHECK(backoff_us(0) == 1 * kSecond);
  CHECK(backoff_us(1) == 1 * kSecond);
  CHECK(backoff_us(2) == 2 * kSecond);
  CHECK(backoff_us(3) == 4 * kSecond);
  CHECK(backoff_us(9) == 256 * kSecond);
  CHECK(backoff_us(10) == 300 * kSecond);
  CHECK(backoff_us(64) == 300 * kSecond);
  CHECK(backoff_us(1 << 30) == 300 * kSecond);
}

TEST_CASE("webhook outcome: 2xx and 409 are delivered and the rest is retried") {
  CHECK(counts_as_delivered({true, 200, ""}));
  CHECK(counts_as_delivered({true, 204, ""}));
  CHECK(counts_as_delivered({false, 409, "dup"}));
  CHECK_FALSE(counts_as_delivered({false, 400, "x"}));
  CHECK_FALSE(counts_as_delivered({false, 429, "x"}));
  CHECK_FALSE(counts_as_delivered({false, 500, "x"}));
  CHECK_FALSE(counts_as_delivered({false, 0, "timeout"}));
}

TEST_CASE("webhook sender posts due entries oldest first and marks each before the next") {
  Log log;
  FakePoster poster(log);
  FakeQueue queue(log);
  queue.add(1);
  queue.add(2);
  queue.add(3);
  OutboxSender sender({kUrl, kSecret}, poster, queue);
  auto stats = sender.deliver_due(kNow);
  CHECK(stats.delivered == 3);
  CHECK(stats.failed == 0);
  CHECK(log == Log{"post 1", "delivered 1", "post 2", "delivered 2", "post 3", "delivered 3"});
  CHECK(queue.row(1).delivered_us == kNow);
  for (const auto& c : poster.calls) CHECK(c.url == kUrl);
  // Nothing left: a second round posts nothing.
  log.clear();
  CHECK(sender.deliver_due(kNow).delivered == 0);
  CHECK(log.empty());
}

TEST_CASE("webhook sender stops the round at a failure and schedules the retry") {
  Log log;
  FakePoster poster(log);
  poster.script = {{true, 200, ""}, {false, 503, "POST x: HTTP 503"}};
  FakeQueue queue(log);
  queue.add(1);
  queue.add(2, 3);  // failed three times before
  queue.add(3);
  OutboxSender sender({kUrl, ""}, poster, queue);
  auto stats = sender.deliver_due(kNow);
  CHECK(stats.delivered == 1);
  CHECK(stats.failed == 1);
  CHECK(log == Log{"post 1", "delivered 1", "post 2", "failed 2"});  // 3 must not overtake 2
  CHECK(queue.row(2).next_attempt_us == kNow + backoff_us(4));
  CHECK(queue.row(2).next_attempt_us == kNow + 8 * kSecond);
  CHECK(queue.row(2).last_error == "POST x: HTTP 503");

  // Before the retry time nothing goes out; after it, 2 then 3 in order.
  log.clear();
  CHECK(sender.deliver_due(kNow + 7 * kSecond).delivered == 0);
  CHECK(log.empty());
  stats = sender.deliver_due(kNow + 8 * kSecond);
  CHECK(stats.delivered == 2);
  CHECK(log == Log{"post 2", "delivered 2", "post 3", "delivered 3"});
}

TEST_CASE("webhook sender lets nothing overtake an entry waiting for its retry") {
  Log log;
  FakePoster poster(log);
  poster.script = {{false, 500, "HTTP 500"}};
  FakeQueue queue(log);
  queue.head_of_line = false;  // even a queue that hands out the entries behind it
  queue.add(1);
  queue.add(2);
  OutboxSender sender({kUrl, ""}, poster, queue);
  CHECK(sender.deliver_due(kNow).failed == 1);
  CHECK(sender.deliver_due(kNow + kSecond / 2).delivered == 0);
  CHECK(log == Log{"post 1", "failed 1"});
  CHECK(sender.deliver_due(kNow + kSecond).delivered == 2);
  CHECK(log == Log{"post 1", "failed 1", "post 1", "delivered 1", "post 2", "delivered 2"});

  // After a restart (a new sender) the head-of-line queue keeps the order.
  Log log2;
  FakePoster poster2(log2);
  FakeQueue queue2(log2);
  queue2.add(1, 4, kNow + 16 * kSecond);  // waiting for its fifth attempt
  queue2.add(2);
  OutboxSender restarted({kUrl, ""}, poster2, queue2);
  CHECK(restarted.deliver_due(kNow).delivered == 0);
  CHECK(restarted.deliver_due(kNow + 16 * kSecond).delivered == 2);
  CHECK(log2 == Log{"post 1", "delivered 1", "post 2", "delivered 2"});
}

TEST_CASE("webhook sender treats 409 as delivered and a throwing poster as a failure") {
  Log log;
  FakePoster poster(log);
  poster.script = {{false, 409, "duplicate"}};
  FakeQueue queue(log);
  queue.add(1);
  queue.add(2);
  OutboxSender sender({kUrl, kSecret}, poster, queue);
  auto stats = sender.deliver_due(kNow);
  CHECK(stats.delivered == 2);

  queue.add(3);
  poster.throw_next = true;
  stats = sender.deliver_due(kNow);
  CHECK(stats.failed == 1);
  CHECK(queue.row(3).next_attempt_us == kNow + kSecond);
  CHECK(queue.row(3).last_error.find("boom") != std::string::npos);
  CHECK(queue.row(3).last_error.find(kSecret) == std::string::npos);  // scrubbed
}

TEST_CASE("webhook sender headers carry the idempotency key and the secret only as bearer") {
  Log log;
  FakePoster poster(log);
  FakeQueue queue(log);
  queue.add(7);
  OutboxSender with_secret({kUrl, kSecret}, poster, queue);
  with_secret.deliver_due(kNow);
  REQUIRE(poster.calls.size() == 1);
  const auto& h = poster.calls[0].headers;
  CHECK(header(h, "Content-Type") == "application/json");
  CHECK(header(h, "Idempotency-Key") == "7-v1");
  CHECK(header(h, "X-Ibwarden-Delivery") == "7-v1");
  CHECK(header(h, "Authorization") == "Bearer " + kSecret);
  CHECK(poster.calls[0].body == "7");
  for (const auto& [n, v] : h)
    if (n != "Authorization") CHECK(v.find(kSecret) == std::string::npos);
  CHECK(poster.calls[0].url.find(kSecret) == std::string::npos);

  OutboxSender without({kUrl, ""}, poster, queue);
  CHECK(header(without.headers_for({1, "1-v2", "{}", 0}), "Authorization") == "<none>");
}

TEST_CASE("webhook sender drains more than one batch and survives a queue that repeats") {
  Log log;
  FakePoster poster(log);
  FakeQueue queue(log);
  for (int64_t id = 1; id <= 150; ++id) queue.add(id);
  OutboxSender sender({kUrl, ""}, poster, queue);
  CHECK(sender.deliver_due(kNow).delivered == 150);
  CHECK(poster.calls.front().body == "1");
  CHECK(poster.calls.back().body == "150");

  // A queue that does not record deliveries would hand out the same entries forever.
  FakeQueue stuck(log);
  stuck.ignore_delivered = true;
  for (int64_t id = 1; id <= 100; ++id) stuck.add(id);
  OutboxSender stuck_sender({kUrl, ""}, poster, stuck);
  CHECK(stuck_sender.deliver_due(kNow).delivered == static_cast<int>(OutboxSender::kBatch));
}

TEST_CASE("webhook sender resends with the same key after a crash before marking") {
  Log log;
  FakePoster poster(log);
  FakeQueue queue(log);
  queue.add(5);
  queue.crash_on_delivered = true;
  {
    OutboxSender before_crash({kUrl, ""}, poster, queue);
    CHECK_THROWS(before_crash.deliver_due(kNow));
  }
  queue.crash_on_delivered = false;
  OutboxSender after_restart({kUrl, ""}, poster, queue);
  CHECK(after_restart.deliver_due(kNow + kSecond).delivered == 1);
  REQUIRE(poster.calls.size() == 2);
  CHECK(header(poster.calls[0].headers, "Idempotency-Key") ==
        header(poster.calls[1].headers, "Idempotency-Key"));
}

TEST_CASE("webhook sender rejects a url that is not http or https") {
  Log log;
  FakePoster poster(log);
  FakeQueue queue(log);
  CHECK_THROWS_AS(OutboxSender({"", ""}, poster, queue), std::invalid_argument);
  CHECK_THROWS_AS(OutboxSender({"file:///etc/passwd", ""}, poster, queue), std::invalid_argument);
  CHECK_NOTHROW(OutboxSender({"http://127.0.0.1:1/x", ""}, poster, queue));
}

TEST_CASE("curl poster sends body and headers to a loopback server") {
  LoopbackServer server(200);
  CurlPoster poster({server.url(), kSecret, 2000});
  std::string body = R"({"id":7,"note":")" + std::string(4000, 'x') + R"("})";  // > 1 KiB
  HttpHeaders headers = {{"Content-Type", "application/json"},
                         {"Idempotency-Key", "7-v3"},
                         {"Authorization", "Bearer " + kSecret}};
  auto start = std::chrono::steady_clock::now();
  PostResult r = poster.post(server.url(), body, headers);
  CHECK(elapsed_ms(start) < 900);  // no "Expect: 100-continue" wait
  CHECK(r.ok);
  CHECK(r.http_status == 200);
  CHECK(r.error.empty());
  auto reqs = server.requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].request_line == "POST /hook HTTP/1.1");
  CHECK(reqs[0].body == body);
  CHECK(reqs[0].headers["content-type"] == "application/json");
  CHECK(reqs[0].headers["idempotency-key"] == "7-v3");
  CHECK(reqs[0].headers["authorization"] == "Bearer " + kSecret);
  CHECK(reqs[0].headers.count("expect") == 0);

  // The same handle again, now answered with 500: not ok, status and URL in the error.
  server.set_status(500);
  r = poster.post(server.url(), "{}", headers);
  CHECK_FALSE(r.ok);
  CHECK(r.http_status == 500);
  CHECK(r.error.find(server.url()) != std::string::npos);
  CHECK(r.error.find("HTTP 500") != std::string::npos);
  CHECK(r.error.find(kSecret) == std::string::npos);
  CHECK(server.requests().size() == 2);
}

TEST_CASE("curl poster gives up on a silent server after timeout_ms") {
  LoopbackServer server(200, /*silent=*/true);
  CurlPoster poster({server.url(), "", 200});
  auto start = std::chrono::steady_clock::now();
  PostResult r = poster.post(server.url(), "{}", {{"Content-Type", "application/json"}});
  double ms = elapsed_ms(start);
  CHECK_FALSE(r.ok);
  CHECK(r.http_status == 0);
  CHECK(r.error.find("timed out after 200 ms") != std::string::npos);
  CHECK(ms >= 150);
  CHECK(ms < 1000);
}

TEST_CASE("curl poster reports a refused connection with the url and without the secret") {
  RefusingPort closed;
  std::string url = "http://127.0.0.1:" + std::to_string(closed.port) + "/hook";
  CurlPoster poster({url, kSecret, 1000});
  PostResult r = poster.post(url, "{}", {{"Authorization", "Bearer " + kSecret}});
  CHECK_FALSE(r.ok);
  CHECK(r.http_status == 0);
  INFO(r.error);
  CHECK(r.error.find("POST " + url) != std::string::npos);
  CHECK(r.error.find(kSecret) == std::string::npos);

  // user:password in the URL is not repeated in the error either.
  std::string with_user = "http://ibw:pa55word@127.0.0.1:" + std::to_string(closed.port) + "/h";
  r = poster.post(with_user, "{}", {});
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("pa55word") == std::string::npos);
  CHECK(r.error.find("http://***@127.0.0.1:") != std::string::npos);
}

TEST_CASE("curl poster refuses a header value with a line break") {
  CurlPoster poster({"http://127.0.0.1:1/", ""});
  PostResult r = poster.post("http://127.0.0.1:1/", "{}", {{"Authorization", "Bearer a\r\nX: y"}});
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("line break") != std::string::npos);
  CHECK(r.error.find("Bearer") == std::string::npos);
}
