// HTTP requests and responses as plain values, so that the API's handlers are functions unit
// tests call without sockets (the Beast server in web/server.h converts to and from these).
//
// - Request: method, raw target (path + "?query", percent-encoded as sent), headers with
//   lower-case names (repeated headers joined with ", "), body.
// - Response: status, Content-Type, body and extra headers. `stream` is set only by GET
//   /api/v1/stream: the server then keeps the connection open and sends what the stream's
//   poll() returns (web/stream.h). `actor` names who asked ("anonymous", "operator@tokens:3"):
//   for the access log, never sent, never the token.
// - ApiError: thrown by handlers (and by an ApiBackend) to answer with a status and
//   {"error": message}.
// - Target parsing: the path is split on '/' before percent-decoding, so "%2F" stays inside
//   one segment; in the query '+' is a space. Malformed escapes are an ApiError 400.
// JSON bodies are dumped with invalid UTF-8 replaced (node descriptions are raw bytes).
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ibw::web {

class EventStream;  // web/stream.h

struct Request {
  std::string method;                          // "GET", "POST", ...
  std::string target;                          // "/api/v1/ports?node=leaf001"
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string peer;  // the client's address (no port), "" unknown: failed-auth limits

  // The header's value, "" when absent; `name` in lower case.
  std::string header(const std::string& name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra, e.g. Allow
  std::shared_ptr<EventStream> stream;                       // GET /stream only
  std::string actor;                                         // for logs; never sent
  bool head = false;  // answer to HEAD: the server sends the headers, body length, no body
};

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// {"error": message} with the status.
Response error_response(int status, std::string_view message);
Response json_response(int status, const nlohmann::ordered_json& body);
// The same JSON with insertion-ordered objects (store/remedy_json.h returns sorted ones).
nlohmann::ordered_json ordered(const nlohmann::json& j);
// dump() that never throws on invalid UTF-8 (replaced by U+FFFD).
std::string dump_json(const nlohmann::ordered_json& j, int indent = -1);

// Percent-decodes; '+' becomes a space when plus_is_space. False on a malformed escape.
bool percent_decode(std::string_view in, std::string& out, bool plus_is_space);

struct Target {
  std::vector<std::string> segments;                       // decoded path segments
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
};
// "/api/v1/ports/node0002%20mlx5_0/1?x=1" -> {"api","v1","ports","node0002 mlx5_0","1"},
// {{"x","1"}}. Throws ApiError 400 when the target does not start with '/' or an escape is
// malformed.
Target parse_target(std::string_view target);

}  // namespace ibw::web
