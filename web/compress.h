// gzip for large API answers: a 1,000-port page is 1.5 MB of JSON and ~60 KB compressed, which
// matters to an on-call engineer on a VPN whose dashboard refreshes the port grid.
//
// Api::handle compresses a 200 answer whose body is at least kMinGzipBytes of JSON or text
// (not the SSE stream, not the dashboard's static files, which revalidate by ETag) when the
// request's Accept-Encoding allows gzip, and adds Content-Encoding: gzip and
// Vary: Accept-Encoding. Level 1: ~30x smaller JSON for a few ms per MB.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ibw::web {

constexpr size_t kMinGzipBytes = 8192;

// True when the Accept-Encoding value lists gzip (or *) without q=0. Case-insensitive.
bool accepts_gzip(std::string_view accept_encoding);

// The gzip (RFC 1952) encoding of data; nullopt if zlib fails.
std::optional<std::string> gzip(std::string_view data, int level = 1);

}  // namespace ibw::web
