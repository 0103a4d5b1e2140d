// The dashboard's static files (web/ui/), compiled into the binary by web/ui/embed.cmake, and
// the handler that serves them outside /api/v1.
//
// - GET "/" serves index.html; "/ui/<name>" serves web/ui/<name>. Anything else
//   outside /api is 404. No authentication: the files hold no data; the dashboard asks for a
//   token and sends it on every API call (Authorization: Bearer, never a cookie).
// - Every answer carries a strong ETag (a hash of the bytes; If-None-Match gives 304), a
//   Content-Security-Policy that allows only same-origin scripts, styles and connections (no
//   inline script, no eval), X-Frame-Options DENY and Referrer-Policy no-referrer.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "web/http.h"

namespace ibw::web {

struct EmbeddedFile {
  std::string_view name;   // "app.js"
  std::string_view bytes;  // the file's content
};

// Every file of web/ui/, in the order embed.cmake found them (generated: ui_assets.cpp).
const std::vector<EmbeddedFile>& embedded_files();

// The response for a static path, or nullopt when `segments` is under /api (the API's).
// segments: the decoded path; another method than GET is 405.
std::optional<Response> serve_asset(const std::string& method,
                                    const std::vector<std::string>& segments,
                                    const Request& request);

}  // namespace ibw::web
