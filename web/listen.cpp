// parse_listen (web/server.h): kept out of server.cpp so it compiles without Beast.
#include <stdexcept>

#include "fabric/text_util.h"
#include "web/server.h"

namespace ibw::web {

ListenAddress parse_listen(std::string_view text) {
  std::string_view host, port;
  if (!text.empty() && text.front() == '[') {
    size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      throw std::invalid_argument("expected [IPv6]:PORT");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) throw std::invalid_argument("expected HOST:PORT");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos)
      throw std::invalid_argument("write an IPv6 address in brackets: [::1]:8080");
  }
  if (host.empty()) throw std::invalid_argument("the host is empty (0.0.0.0 means every address)");
  bool ip_chars = true;
  for (char c : host)
    ip_chars = ip_chars && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
                            (c >= 'A' && c <= 'F') || c == '.' || c == ':' || c == '%');
  if (!ip_chars && host != "localhost")
    throw std::invalid_argument("the host must be an IP address or localhost");
  auto n = fabric::text::to_int<int>(port);
  if (!n || *n < 0 || *n > 65535) throw std::invalid_argument("the port must be 0 to 65535");
  return {std::string(host), static_cast<uint16_t>(*n)};
}

}  // namespace ibw::web
