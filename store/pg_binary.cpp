#include "store/pg_binary.h"

namespace ibw::store::pg_detail {

void put_be32(std::string& out, uint32_t v) {
  out.append(4, '\0');
  set_be32(out, out.size() - 4, v);
}

void set_be32(std::string& out, size_t at, uint32_t v) {
  out[at] = static_cast<char>(v >> 24);
  out[at + 1] = static_cast<char>(v >> 16);
  out[at + 2] = static_cast<char>(v >> 8);
  out[at + 3] = static_cast<char>(v);
}

void put_be64(std::string& out, uint64_t v) {
  put_be32(out, static_cast<uint32_t>(v >> 32));
  put_be32(out, static_cast<uint32_t>(v));
}

std::string bytea_hex(std::string_view v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "\\x";
  out.reserve(2 + 2 * v.size());
  for (char c : v) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

// ---- ArrayBinary: ndim, has-null flag, element OID, (size, lower bound) per dimension, then
// each element as its length and bytes. An empty array has no dimensions.

void ArrayBinary::i64(int64_t v) {
  put_be32(body_, 8);
  put_be64(body_, static_cast<uint64_t>(v));
  ++count_;
}

void ArrayBinary::i32(int32_t v) {
  put_be32(body_, 4);
  put_be32(body_, static_cast<uint32_t>(v));
  ++count_;
}

void ArrayBinary::bytes(std::string_view v) {
  put_be32(body_, static_cast<uint32_t>(v.size()));
  body_.append(v);
  ++count_;
}

std::string ArrayBinary::take() {
  std::string out;
  if (count_ == 0) {  // no dimensions: a 12-byte header alone
    put_be32(out, 0);
    put_be32(out, 0);
    put_be32(out, static_cast<uint32_t>(type_));
  } else {  // over the room kept at the front
    set_be32(body_, 0, 1);
    set_be32(body_, 4, 0);
    set_be32(body_, 8, static_cast<uint32_t>(type_));
    set_be32(body_, 12, static_cast<uint32_t>(count_));
    set_be32(body_, 16, 1);
    out.swap(body_);
  }
  body_.assign(kHeader, '\0');
  count_ = 0;
  return out;
}

}  // namespace ibw::store::pg_detail
