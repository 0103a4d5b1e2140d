// Serving the dashboard's embedded files (web/assets.h).
#include "web/assets.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace ibw::web {
namespace web_assets_detail {

std::string_view content_type(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

// FNV-1a 64 of the bytes: a strong validator for a file that only changes with the binary.
std::string etag(std::string_view bytes) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ULL;
  char buf[24];
  std::snprintf(buf, sizeof buf, "\"%016llx\"", static_cast<unsigned long long>(h));
  return buf;
}

const char* kSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// Each file with its ETag, hashed once: the bytes only change with the binary.
struct Asset {
  const EmbeddedFile* file;
  std::string tag;
};

const Asset* find(std::string_view name) {
  static const std::vector<Asset> kAssets = [] {
    std::vector<Asset> out;
    for (const EmbeddedFile& f : embedded_files()) out.push_back({&f, etag(f.bytes)});
    return out;
  }();
  for (const Asset& a : kAssets)
    if (a.file->name == name) return &a;
  return nullptr;
}

}  // namespace web_assets_detail

std::optional<Response> serve_asset(const std::string& method,
                                    const std::vector<std::string>& segments,
                                    const Request& request) {
  using namespace web_assets_detail;
  if (!segments.empty() && segments[0] == "api") return std::nullopt;
  const Asset* asset = nullptr;
  if (segments.empty() || (segments.size() == 1 && segments[0].empty()))
    asset = find("index.html");
  else if (segments.size() == 2 && segments[0] == "ui")
    asset = find(segments[1]);
  if (!asset) return error_response(404, "not found");
  const EmbeddedFile* file = asset->file;
  if (method != "GET") {
    Response r = error_response(405, "method " + method + " not allowed (allowed: GET, HEAD)");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  Response r;
  const std::string& tag = asset->tag;
  r.headers.emplace_back("ETag", tag);
  r.headers.emplace_back("Content-Security-Policy", kSecurityPolicy);
  r.headers.emplace_back("X-Frame-Options", "DENY");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  r.headers.emplace_back("Cache-Control", "no-cache");  // revalidate: the ETag answers 304
  r.content_type = std::string(content_type(file->name));
  if (request.header("if-none-match") == tag) {
    r.status = 304;
    return r;
  }
  r.body = std::string(file->bytes);
  return r;
}

}  // namespace ibw::web
