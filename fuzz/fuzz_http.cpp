// Feeds raw bytes to the HTTP request path of web::Server (web/server_http.cpp) over a real
// loopback socket, in pieces, so headers arrive split across parser steps: the case that got
// 194 KiB of headers past a 16 KiB limit. Input: one byte choosing the piece size (1 to 256
// bytes), then the bytes sent as they are. One server per process (127.0.0.1, any port; a
// 100 ms request timeout), with an API whose store cannot be opened (503s: the HTTP layer is
// what is fuzzed) and tokens, so the auth limiter and the Host check run too.
// Findings (trap): an answer that is not an HTTP/1.1 status line, a 500, or a request whose
// head (before the blank line) is over 2 x header_limit answered other than 400 or 431.
// Sanitizer reports of the server's threads are findings as well.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "store/records.h"
#include "web/api.h"
#include "web/server.h"

namespace {

using namespace ibw;
constexpr size_t kHeaderLimit = 4 * 1024;

class NoStoreBackend : public web::ApiBackend {
 public:
  std::unique_ptr<store::Store> open_store(const std::string&, bool) override {
    throw store::StoreError("fuzz: no store");
  }
  web::Health health() override { return {}; }
  core::DecisionRecord port_action(const web::PortActionRequest&) override {
    throw web::ApiError(409, "fuzz: no actions");
  }
  std::optional<nlohmann::json> last_audit() override { return std::nullopt; }
  nlohmann::json run_audit() override { return nlohmann::json::object(); }
  bool webhook_outbox() override { return false; }
};

struct Harness {
  NoStoreBackend backend;
  web::Api api{backend, {}, web::TokenSet::parse("viewer viewer-token-0123456789\n", "tokens")};
  std::unique_ptr<web::Server> server;
  Harness() {
    web::ServerOptions o;
    o.listen = "127.0.0.1:0";
    o.header_limit = kHeaderLimit;
    o.body_limit = 16 * 1024;
    o.request_timeout = std::chrono::milliseconds(100);
    o.keepalive_timeout = std::chrono::milliseconds(100);
    o.stop_grace = std::chrono::milliseconds(100);
    server = std::make_unique<web::Server>(o, api);
    server->start();
  }
};

int connect_to(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  timeval tv{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness h;
  if (size < 1 || size > 64 * 1024) return 0;
  size_t piece = size_t{data[0]} + 1;
  std::string_view text = fuzz::as_text(data + 1, size - 1);
  int fd = connect_to(h.server->port());
  if (fd < 0) return 0;
  for (size_t at = 0; at < text.size(); at += piece) {
    std::string_view part = text.substr(at, piece);
    if (::send(fd, part.data(), part.size(), MSG_NOSIGNAL) <= 0) break;
  }
  ::shutdown(fd, SHUT_WR);
  std::string answer;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    answer.append(buf, static_cast<size_t>(n));
  ::close(fd);
  if (answer.empty()) return 0;  // closed without an answer (EOF, timeout): fine
  if (answer.rfind("HTTP/1.1 ", 0) != 0 && answer.rfind("HTTP/1.0 ", 0) != 0) __builtin_trap();
  std::string status = answer.substr(9, 3);
  if (status == "500") __builtin_trap();
  size_t head = text.find("\r\n\r\n");
  size_t head_size = head == std::string_view::npos ? text.size() : head;
  if (head_size > 2 * kHeaderLimit + 16 * 1024 && status != "431" && status != "400")
    __builtin_trap();
  return 0;
}
