// PostgreSQL's binary wire formats for bulk writes, used only inside store/ (pg_write.cpp,
// pg_samples.cpp): a one-dimensional array parameter (Params::binary, then unnest($n::bytea[])
// in SQL). Binary values skip the server's text parsing, which was most of the cost of a
// counter sweep written as text (three array literals per port, parsed and cast per row).
// Integers are big-endian; text must already be valid UTF-8 (pg_detail::valid_utf8).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ibw::store::pg_detail {

// Element types of ArrayBinary (their type OIDs, fixed in PostgreSQL's catalog).
enum class ElemType : uint32_t { int8 = 20, int4 = 23, bytea = 17, text = 25 };

// One array of `type` elements, without NULLs; build with the adder of that type only.
class ArrayBinary {
 public:
  explicit ArrayBinary(ElemType type) : type_(type) {}
  void i64(int64_t v);
  void u64(uint64_t v) { i64(static_cast<int64_t>(v)); }  // bit pattern
  void i32(int32_t v);
  void bytes(std::string_view v);  // bytea, or text (UTF-8)
  size_t size() const { return count_; }
  // The array in binary format; the builder is empty again afterwards.
  std::string take();

 private:
  ElemType type_;
  std::string body_;
  size_t count_ = 0;
};

// A bytea in PostgreSQL's text input form ("\\x0a1b..."), for a text-format parameter.
std::string bytea_hex(std::string_view v);

// Big-endian appenders.
void put_be32(std::string& out, uint32_t v);
void put_be64(std::string& out, uint64_t v);

}  // namespace ibw::store::pg_detail
