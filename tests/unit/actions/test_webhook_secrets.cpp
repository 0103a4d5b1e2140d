// Webhook secrets never reach the log or outbox.last_error (issue 31, attack row 9): a URL
// with a secret in its path and query, a bearer secret, and a receiver that echoes all of it
// back in an error answer, the secret placed where the old 200-character cut split it.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "actions/webhook.h"

using namespace ibw::actions;

namespace webhook_secrets_test {

const std::string kBearer = "Zk-s3cr3t-0123456789abcdef";
const std::string kPathKey = "T0AB12CDxyzSECRETpath99";
const std::string kQueryKey = "q5ecretQUERYvalue77";

// Answers every request 500 with a body that echoes the request line and the Authorization
// header, each behind 190 characters of padding (the old cut kept 200: 10 of the secret).
class EchoServer {
 public:
  EchoServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0);
    REQUIRE(::listen(fd_, 8) == 0);
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~EchoServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }

 private:
  void run() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int conn = ::accept(fd_, nullptr, nullptr);
      if (conn < 0) continue;
      std::string data;
      char buf[4096];
      while (data.find("\r\n\r\n") == std::string::npos) {
        pollfd c{conn, POLLIN, 0};
        if (::poll(&c, 1, 1000) <= 0) break;
        ssize_t n = ::recv(conn, buf, sizeof buf, 0);
        if (n <= 0) break;
        data.append(buf, static_cast<size_t>(n));
      }
      std::string line = data.substr(0, data.find("\r\n"));
      size_t auth = data.find("Authorization: ");
      std::string bearer = auth == std::string::npos
                               ? ""
                               : data.substr(auth + 15, data.find("\r\n", auth) - auth - 15);
      std::string body = std::string(190, '.') + bearer + " " + std::string(190, '.') + line;
      std::string answer = "HTTP/1.1 500 Echo\r\nContent-Length: " + std::to_string(body.size()) +
                           "\r\nConnection: close\r\n\r\n" + body;
      ::send(conn, answer.data(), answer.size(), MSG_NOSIGNAL);
      ::close(conn);
    }
  }
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Any 6 characters of the secret in a row in `text`.
bool leaks(const std::string& text, const std::string& secret) {
  for (size_t i = 0; i + 6 <= secret.size(); ++i)
    if (text.find(secret.substr(i, 6)) != std::string::npos) return true;
  return false;
}

struct OneEntry : OutboxQueue {
  std::string last_error;
  bool taken = false;
  std::vector<OutboxEntry> due(int64_t, size_t) override {
    if (taken) return {};
    taken = true;
    return {{1, "1-v1", "{}", 0}};
  }
  void delivered(int64_t, int64_t) override {}
  void failed(int64_t, int64_t, const std::string& error) override { last_error = error; }
};

}  // namespace webhook_secrets_test

using namespace webhook_secrets_test;

TEST_CASE("webhook secrets: an echoing receiver leaves no secret in last_error", "[webhook]") {
  EchoServer server;
  std::string url = "http://127.0.0.1:" + std::to_string(server.port()) + "/hook/" + kPathKey +
                    "?token=" + kQueryKey;
  WebhookConfig wc{url, kBearer, 2000};
  CurlPoster poster(wc);
  OneEntry queue;
  OutboxSender sender(wc, poster, queue);
  auto stats = sender.deliver_due(1'000'000);
  CHECK(stats.failed == 1);
  INFO(queue.last_error);
  CHECK(queue.last_error.find("HTTP 500") != std::string::npos);
  CHECK(queue.last_error.find("/hook/***?token=***") != std::string::npos);
  int leaked = leaks(queue.last_error, kBearer) + leaks(queue.last_error, kPathKey) +
               leaks(queue.last_error, kQueryKey);
  CHECK(leaked == 0);
  WARN("echoing webhook receiver: secrets with 6+ characters in outbox.last_error: " << leaked);
}
