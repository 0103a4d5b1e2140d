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

// Big-endian appenders, and set_be32 to write over the 4 bytes of out at `at`.
void put_be32(std::string& out, uint32_t v);
void put_be64(std::string& out, uint64_t v);
void set_be32(std::string& out, size_t at, uint32_t v);

// Element types of ArrayBinary (their type OIDs, fixed in PostgreSQL's catalog).
enum class ElemType : uint32_t { int8 = 20, int4 = 23, bytea = 17, text = 25 };

// One array of `type` elements, without NULLs; build with the adder of that type only.
// The elements are written after room for the array's header, which take() fills in: the
// array (megabytes for a sweep's counter state) is built in one buffer and never copied.
class ArrayBinary {
 public:
  explicit ArrayBinary(ElemType type) : type_(type) { body_.resize(kHeader); }
  void i64(int64_t v);
  void u64(uint64_t v) { i64(static_cast<int64_t>(v)); }  // bit pattern
  void i32(int32_t v);
  void bytes(std::string_view v);  // bytea, or text (UTF-8)
  // One bytea element that write(std::string& buf) appends to buf (its length is set after).
  template <typename Write>
  void bytes_with(Write write) {
    const size_t at = body_.size();
    put_be32(body_, 0);
    write(body_);
    set_be32(body_, at, static_cast<uint32_t>(body_.size() - at - 4));
    ++count_;
  }
  void reserve(size_t bytes) { body_.reserve(kHeader + bytes); }
  size_t size() const { return count_; }
  // The array in binary format; the builder is empty again afterwards.
  std::string take();

 private:
  static constexpr size_t kHeader = 20;  // ndim, flags, element type, size, lower bound
  ElemType type_;
  std::string body_;
  size_t count_ = 0;
};

// A bytea in PostgreSQL's text input form ("\\x0a1b..."), for a text-format parameter.
std::string bytea_hex(std::string_view v);

}  // namespace ibw::store::pg_detail
