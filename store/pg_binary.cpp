#include "store/pg_binary.h"

namespace ibw::store::pg_detail {

void put_be32(std::string& out, uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
  out.append(b, 4);
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
  } else {
    std::string head;
    put_be32(head, 1);
    put_be32(head, 0);
    put_be32(head, static_cast<uint32_t>(type_));
    put_be32(head, static_cast<uint32_t>(count_));
    put_be32(head, 1);
    body_.replace(0, kHeader, head);
    out.swap(body_);
  }
  body_.assign(kHeader, '\0');
  count_ = 0;
  return out;
}

}  // namespace ibw::store::pg_detail
