// Unit tests for the streaming JSON array reader used for UFM's event list
// (ingest/ufm/json_scan.h): decoding, validation, and agreement with nlohmann on valid input.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ingest/ufm/json_scan.h"

using namespace ibw::ingest;

namespace ufm_json_scan_test {

struct Element {
  bool is_object = false;
  std::vector<std::pair<std::string, std::string>> members;  // key -> type:text
};

std::string type_name(JsonMember::Type t) {
  switch (t) {
    case JsonMember::Type::null:
      return "null";
    case JsonMember::Type::boolean:
      return "bool";
    case JsonMember::Type::number:
      return "num";
    case JsonMember::Type::string:
      return "str";
    case JsonMember::Type::nested:
      return "nested";
  }
  return "?";
}

std::pair<std::string, std::vector<Element>> scan(const std::string& text) {
  std::vector<Element> out;
  std::string error =
      scan_json_array(text, [&](const std::vector<JsonMember>& members, bool is_object) {
        Element e;
        e.is_object = is_object;
        for (const auto& m : members)
          e.members.emplace_back(std::string(m.key), type_name(m.type) + ":" + std::string(m.text));
        out.push_back(std::move(e));
      });
  return {error, out};
}

}  // namespace ufm_json_scan_test

using ufm_json_scan_test::scan;

TEST_CASE("ufm json scan: members are decoded and typed", "[ufm]") {
  auto [error, elements] = scan(
      R"( [ {"id": 5, "s": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "t": true, "n": null, "x": -1.5e-3,
            "o": {"k": [1, {"z": "}"}]}, "e": ""}, 7, "str", {} ] )");
  REQUIRE(error.empty());
  REQUIRE(elements.size() == 4);
  auto& m = elements[0].members;
  REQUIRE(m.size() == 7);
  CHECK(m[0] == std::make_pair(std::string("id"), std::string("num:5")));
  CHECK(m[1].second == "str:a\"b\\c/d\n\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(m[2].second == "bool:true");
  CHECK(m[3].second == "null:null");
  CHECK(m[4].second == "num:-1.5e-3");
  CHECK(m[5].second == R"(nested:{"k": [1, {"z": "}"}]})");
  CHECK(m[6].second == "str:");
  CHECK_FALSE(elements[1].is_object);
  CHECK_FALSE(elements[2].is_object);
  CHECK(elements[3].is_object);
  CHECK(elements[3].members.empty());
  CHECK(scan("[]").first.empty());
}

TEST_CASE("ufm json scan: invalid JSON is reported with its offset", "[ufm]") {
  CHECK(scan("").first == "offset 0: unexpected end");
  CHECK(scan("{\"a\": 1}").first == "offset 0: expected '['");
  CHECK(scan("[{\"id\": 1}").first == "offset 10: unexpected end");
  CHECK(scan("[{\"id\": 1} {\"id\": 2}]").first == "offset 11: expected ',' or ']'");
  CHECK(scan("[{\"id\": 01}]").first == "offset 9: expected ',' or '}'");
  CHECK(scan("[{\"id\": 1.}]").first == "offset 10: expected a digit");
  CHECK(scan("[{\"id\": tru}]").first == "offset 8: invalid literal");
  CHECK(scan("[{\"a\": \"x\ty\"}]").first == "offset 9: control character in a string");
  CHECK(scan("[{\"a\": \"\\q\"}]").first == "offset 9: invalid escape");
  CHECK(scan("[{\"a\": \"\\u12\"}]").first == "offset 10: invalid \\u escape");
  CHECK(scan("[{\"a\": 1,}]").first == "offset 9: expected a member name");
  CHECK(scan("[1,]").first == "offset 3: invalid value");
  CHECK(scan("[1] x").first == "offset 4: trailing characters after the array");
  CHECK(scan(std::string(100, '[') + std::string(100, ']')).first == "offset 65: nesting too deep");
}

TEST_CASE("ufm json scan: agrees with nlohmann on what is valid", "[ufm]") {
  const std::vector<std::string> samples = {"[]",
                                            "[1, 2]",
                                            "[{\"a\": [1, 2, {\"b\": null}]}]",
                                            "[{\"a\": \"\\u0041\"}]",
                                            "[-0, 0.5e+2]",
                                            "[{}]",
                                            "[1 2]",
                                            "[{\"a\" 1}]",
                                            "[\"\\x\"]",
                                            "[01]",
                                            "[-]",
                                            "[1e]",
                                            "[{\"a\":1}]]",
                                            "[",
                                            "[\"a\"",
                                            "[{\"a\": [}]"};
  for (const auto& s : samples) {
    INFO(s);
    bool ours = scan(s).first.empty();
    bool theirs = !nlohmann::json::parse(s, nullptr, false).is_discarded();
    CHECK(ours == theirs);
  }
}
