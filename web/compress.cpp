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
