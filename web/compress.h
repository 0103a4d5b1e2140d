// gzip for large API answers: a 1,000-port page is 1.5 MB of JSON and ~60 KB compressed, which
// matters to an on-call engineer on a VPN whose dashboard refreshes the port grid.
//
// Api::handle compresses a 200 answer whose body is at least kMinGzipBytes of JSON or text
// (not the SSE stream, not the dashboard's static files, which revalidate by ETag) when the
// request's Accept-Encoding allows gzip, and adds Content-Encoding: gzip and
// Vary: Accept-Encoding. Level 1: ~30x smaller JSON for a few ms per MB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibw::web {

constexpr size_t kMinGzipBytes = 8192;

// True when the Accept-Encoding value lists gzip (or *) without q=0. Case-insensitive.
bool accepts_gzip(std::string_view accept_encoding);

// The gzip (RFC 1952) encoding of data; nullopt if zlib fails.
std::optional<std::string> gzip(std::string_view data, int level = 1);

// Raw deflate of `size` bytes whose CRC-32 is `crc`, compressed on its own (no reference to
// anything before it) and ending on a byte boundary with a sync flush (no final block): a
// piece GzipJoiner can put anywhere in a stream. /ports keeps one per block of ports.
struct DeflateChunk {
  std::string data;
  uint32_t crc = 0;
  size_t size = 0;
};
std::optional<DeflateChunk> deflate_chunk(std::string_view data, int level = 1);

// Builds one gzip stream out of text, compressed when the next chunk or finish() comes, and
// precompressed chunks copied as they are (the trailer's CRC combined with crc32_combine).
// Inflates to the concatenation of everything given, in order.
class GzipJoiner {
 public:
  explicit GzipJoiner(int level = 1) : level_(level) {}
  void text(std::string_view s) { pending_ += s; }
  void chunk(const DeflateChunk& c);
  // The gzip stream; nullopt if zlib failed at any step.
  std::optional<std::string> finish();

 private:
  bool flush(bool last);
  int level_;
  bool failed_ = false;
  std::string out_;
  std::string pending_;
  uint32_t crc_ = 0;
  uint64_t size_ = 0;
};

}  // namespace ibw::web
