// gzip of API answers (web/compress.h), with zlib.
#include "web/compress.h"

#include <zlib.h>

#include <cctype>

namespace ibw::web {
namespace web_compress_detail {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// "q=0", "q=0.0", "q=0.000" refuse the coding; anything else accepts it.
bool q_is_zero(std::string_view params) {
  while (!params.empty()) {
    size_t semi = params.find(';');
    std::string_view p = trim(params.substr(0, semi));
    if (p.size() >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
      std::string_view v = p.substr(2);
      if (v.empty() || v[0] != '0') return false;
      for (char c : v.substr(1))
        if (c != '.' && c != '0') return false;
      return true;
    }
    if (semi == std::string_view::npos) break;
    params.remove_prefix(semi + 1);
  }
  return false;
}

// Raw deflate (no header) of data, on its own, appended to out: ending on a byte boundary
// with a sync flush (flush Z_SYNC_FLUSH) or with the final block (Z_FINISH).
bool raw_deflate(std::string_view data, int level, int flush, std::string& out) {
  if (data.size() > 0xFFFF'FFFFu) return false;
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return false;
  size_t start = out.size();
  // deflateBound counts for Z_FINISH; a sync flush adds up to 6 bytes.
  out.resize(start + deflateBound(&zs, static_cast<uLong>(data.size())) + 16);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data() + start);
  zs.avail_out = static_cast<uInt>(out.size() - start);
  int rc = deflate(&zs, flush);
  bool ok =
      flush == Z_FINISH ? rc == Z_STREAM_END : rc == Z_OK && zs.avail_in == 0 && zs.avail_out > 0;
  out.resize(start + zs.total_out);
  deflateEnd(&zs);
  return ok;
}

uint32_t crc(uint32_t init, std::string_view s) {
  return static_cast<uint32_t>(
      crc32(init, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size())));
}

}  // namespace web_compress_detail

bool accepts_gzip(std::string_view value) {
  using namespace web_compress_detail;
  bool star = false;
  while (!value.empty()) {
    size_t comma = value.find(',');
    std::string_view item = value.substr(0, comma);
    size_t semi = item.find(';');
    std::string_view coding = trim(item.substr(0, semi));
    std::string_view params = semi == std::string_view::npos ? "" : item.substr(semi + 1);
    if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) return !q_is_zero(params);
    if (coding == "*") star = !q_is_zero(params);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return star;
}

std::optional<std::string> gzip(std::string_view data, int level) {
  if (data.size() > 0xFFFF'FFFFu) return std::nullopt;  // avail_in is 32 bits: sent plain
  z_stream zs{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return std::nullopt;
  std::string out;
  out.resize(deflateBound(&zs, static_cast<uLong>(data.size())));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  size_t n = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return std::nullopt;
  out.resize(n);
  return out;
}

}  // namespace ibw::web

namespace ibw::web {

std::optional<DeflateChunk> deflate_chunk(std::string_view data, int level) {
  DeflateChunk c;
  if (!web_compress_detail::raw_deflate(data, level, Z_SYNC_FLUSH, c.data)) return std::nullopt;
  c.crc = web_compress_detail::crc(0, data);
  c.size = data.size();
  return c;
}

bool GzipJoiner::flush(bool last) {
  if (failed_) return false;
  if (out_.empty()) {  // the gzip header: deflate, no name, no time, Unix
    const char header[10] = {
        '\x1f', '\x8b', 8, 0, 0, 0, 0, 0, static_cast<char>(level_ == 1 ? 4 : 0), 3};
    out_.assign(header, sizeof header);
  }
  if (pending_.empty() && !last) return true;
  crc_ = web_compress_detail::crc(crc_, pending_);
  size_ += pending_.size();
  failed_ =
      !web_compress_detail::raw_deflate(pending_, level_, last ? Z_FINISH : Z_SYNC_FLUSH, out_);
  pending_.clear();
  return !failed_;
}

void GzipJoiner::chunk(const DeflateChunk& c) {
  if (!flush(false)) return;
  out_ += c.data;
  crc_ = static_cast<uint32_t>(crc32_combine(crc_, c.crc, static_cast<z_off_t>(c.size)));
  size_ += c.size;
}

std::optional<std::string> GzipJoiner::finish() {
  if (!flush(true)) return std::nullopt;
  for (uint32_t v : {crc_, static_cast<uint32_t>(size_)})  // little-endian CRC-32, ISIZE
    for (int b = 0; b < 4; ++b) out_ += static_cast<char>((v >> (8 * b)) & 0xFF);
  return std::move(out_);
}

}  // namespace ibw::web
