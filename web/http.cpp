#include "web/http.h"

#include "fabric/json_text.h"

namespace ibw::web {
namespace http_detail {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decode_or_throw(std::string_view in, bool plus_is_space, const char* what) {
  std::string out;
  if (!percent_decode(in, out, plus_is_space))
    throw ApiError(400, std::string("malformed percent-encoding in the ") + what);
  return out;
}

}  // namespace http_detail

std::string Request::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

nlohmann::ordered_json ordered(const nlohmann::json& j) {
  return nlohmann::ordered_json(j);
}

std::string dump_json(const nlohmann::ordered_json& j, int indent) {
  return fabric::json_text(j, indent);
}

Response json_response(int status, const nlohmann::ordered_json& body) {
  Response r;
  r.status = status;
  r.body = dump_json(body);
  return r;
}

Response error_response(int status, std::string_view message) {
  nlohmann::ordered_json j;
  j["error"] = std::string(message);
  return json_response(status, j);
}

bool percent_decode(std::string_view in, std::string& out, bool plus_is_space) {
  out.clear();
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      int hi = http_detail::hex_value(in[i + 1]);
      int lo = http_detail::hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return true;
}

Target parse_target(std::string_view target) {
  using http_detail::decode_or_throw;
  if (target.empty() || target.front() != '/')
    throw ApiError(400, "the request target must be an absolute path");
  Target t;
  std::string_view path = target;
  std::string_view query;
  if (size_t q = target.find('?'); q != std::string_view::npos) {
    path = target.substr(0, q);
    query = target.substr(q + 1);
  }
  if (size_t h = query.find('#'); h != std::string_view::npos) query = query.substr(0, h);
  path.remove_prefix(1);
  while (true) {
    size_t slash = path.find('/');
    t.segments.push_back(decode_or_throw(path.substr(0, slash), false, "path"));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view item = query.substr(0, amp);
    if (!item.empty()) {
      size_t eq = item.find('=');
      std::string key = decode_or_throw(item.substr(0, eq), true, "query");
      std::string value =
          eq == std::string_view::npos ? "" : decode_or_throw(item.substr(eq + 1), true, "query");
      t.query.emplace_back(std::move(key), std::move(value));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return t;
}

}  // namespace ibw::web
