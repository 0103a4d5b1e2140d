// Unit: PostgreSQL's binary array format as store/pg_binary.h builds it (no server): the
// header take() writes over the room kept at the front, elements written in place with
// bytes_with(), and a builder used again after take().
#include <catch2/catch.hpp>

#include <string>

#include "store/pg_binary.h"

namespace pg_binary_test {

using ibw::store::pg_detail::ArrayBinary;
using ibw::store::pg_detail::ElemType;

// The big-endian 32-bit words of s from byte `at` on.
uint32_t word(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (size_t k = 0; k < 4; ++k) v = v << 8 | static_cast<unsigned char>(s.at(at + k));
  return v;
}

TEST_CASE("pg binary: an empty array is a 12-byte header without dimensions", "[store]") {
  ArrayBinary a(ElemType::bytea);
  const std::string out = a.take();
  REQUIRE(out.size() == 12);
  CHECK(word(out, 0) == 0);   // ndim
  CHECK(word(out, 4) == 0);   // no NULLs
  CHECK(word(out, 8) == 17);  // bytea
}

TEST_CASE("pg binary: elements written in place follow the header with their lengths", "[store]") {
  ArrayBinary a(ElemType::bytea);
  a.bytes("ab");
  a.bytes_with([](std::string& buf) { buf += "xyz!"; });
  a.bytes_with([](std::string&) {});  // an empty element
  CHECK(a.size() == 3);
  const std::string out = a.take();
  REQUIRE(out.size() == 20 + (4 + 2) + (4 + 4) + 4);
  CHECK(word(out, 0) == 1);   // one dimension
  CHECK(word(out, 8) == 17);  // bytea
  CHECK(word(out, 12) == 3);  // elements
  CHECK(word(out, 16) == 1);  // lower bound
  CHECK(word(out, 20) == 2);
  CHECK(out.substr(24, 2) == "ab");
  CHECK(word(out, 26) == 4);
  CHECK(out.substr(30, 4) == "xyz!");
  CHECK(word(out, 34) == 0);

  // Empty again: the next array starts from its own header.
  CHECK(a.size() == 0);
  a.bytes("q");
  const std::string again = a.take();
  REQUIRE(again.size() == 20 + 4 + 1);
  CHECK(word(again, 12) == 1);
  CHECK(word(again, 20) == 1);
  CHECK(again.back() == 'q');
}

}  // namespace pg_binary_test
