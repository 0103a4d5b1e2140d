// parse_sl2vl_dump (fabric/sl2vl.h) on the opensm-sl2vl.dump recorded from OpenSM -Q on the
// ibsim ring (qos_swe_sl2vl 1,1,2,3,4,5,6,7,0,...), and on broken input: every problem named
// as file:line: field.
#include <catch2/catch.hpp>

#include "tests/test_paths.h"

#include <string>

#include "fabric/diagnostics.h"
#include "fabric/sl2vl.h"

using namespace ibw::fabric;

namespace sl2vl_test {

std::string error_of(const std::string& text) {
  try {
    parse_sl2vl_dump(text, "sl2vl.dump");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const char* kHeader =
    "Switch 0x0002c90300000101, base LID 2, \"sw1\"\n"
    "#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n";

}  // namespace sl2vl_test

using namespace sl2vl_test;

TEST_CASE("sl2vl dump: the recorded ibsim ring dump", "[sl2vl]") {
  Sl2VlTables t = load_sl2vl_dump(std::string(IBW_TEST_DATA) + "/routing/opensm-sl2vl.dump");
  REQUIRE(t.source == "opensm-sl2vl.dump");
  REQUIRE(t.by_switch.size() == 4);
  REQUIRE(t.by_ca_port.size() == 4);
  const SwitchSl2Vl* sw1 = t.find(0x0002c90300000101ULL);
  REQUIRE(sw1);
  REQUIRE(sw1->max_port == 3);
  for (int in = 0; in <= 3; ++in)
    for (int out = 1; out <= 3; ++out) {
      REQUIRE(sw1->has(in, out));
      REQUIRE(sw1->vl(in, out, 0) == 1);  // qos_swe_sl2vl: SL 0 on VL 1
      REQUIRE(sw1->vl(in, out, 2) == 2);
      REQUIRE(sw1->vl(in, out, 7) == 7);
      REQUIRE(sw1->vl(in, out, 8) == 0);
      REQUIRE(sw1->vl(in, out, 15) == 7);
    }
  REQUIRE(!sw1->has(1, 0));  // port 0 has no link: OpenSM lists no table towards it
  REQUIRE(sw1->vl(1, 0, 0) == 0);
  REQUIRE(t.find(0x0002c90300000201ULL) == nullptr);  // a CA is no switch
  REQUIRE(t.by_ca_port.count(0x0002c90300000202ULL));
}

TEST_CASE("sl2vl dump: rows and comments and a CA block", "[sl2vl]") {
  Sl2VlTables t = parse_sl2vl_dump(std::string(kHeader) +
                                       "#------\n"
                                       "2   3   : 5  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15\n"
                                       "\n"
                                       "Channel Adapter 0x0002c90300000202, base LID 1, \"H1\"\n"
                                       "0   0   : 9  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7\n",
                                   "x");
  REQUIRE(t.find(0x0002c90300000101ULL)->vl(2, 3, 0) == 5);
  REQUIRE(t.find(0x0002c90300000101ULL)->vl(2, 3, 10) == 10);
  REQUIRE(!t.find(0x0002c90300000101ULL)->has(3, 2));
  REQUIRE((t.by_ca_port.at(0x0002c90300000202ULL) & 0xf) == 9);
}

TEST_CASE("sl2vl dump: bad input names file line and field", "[sl2vl]") {
  const std::string row = "1   2   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7\n";
  CHECK(error_of(row).find("sl2vl.dump:1: line: table row outside a port block") !=
        std::string::npos);
  CHECK(error_of(std::string(kHeader) + "1   2   : 0  1  2\n")
            .find("sl2vl.dump:3: vls: expected 16 VLs (SL 0-15), found 3") != std::string::npos);
  CHECK(
      error_of(std::string(kHeader) + "1   2   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  16\n")
          .find("sl2vl.dump:3: vl: SL 15: \"16\" is not a VL 0-15") != std::string::npos);
  CHECK(
      error_of(std::string(kHeader) + "x   2   : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7\n")
          .find("sl2vl.dump:3: line: unrecognised line") != std::string::npos);
  CHECK(
      error_of(std::string(kHeader) + "1   300 : 0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7\n")
          .find("sl2vl.dump:3: out_port: \"300\" is not a port number 0-254") != std::string::npos);
  CHECK(error_of(std::string(kHeader) + row + row)
            .find("sl2vl.dump:4: ports: in 1 out 2 is listed twice") != std::string::npos);
  CHECK(error_of(std::string(kHeader) + kHeader)
            .find("sl2vl.dump:3: guid: 0x0002c90300000101 is already listed at line 1") !=
        std::string::npos);
  CHECK(error_of("Switch zz, base LID 2\n").find("sl2vl.dump:1: guid: expected") !=
        std::string::npos);
  CHECK(error_of(std::string(kHeader) + "1 2 3 : 0\n").find("sl2vl.dump:3: ports: expected two") !=
        std::string::npos);
  CHECK(error_of(std::string(kHeader) + row).empty());
}
