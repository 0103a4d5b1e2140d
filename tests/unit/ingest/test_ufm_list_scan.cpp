// Differential tests for parse_list (ingest/ufm/json.h): a top-level array is scanned element by
// element (json_scan.h, each element a small DOM), any other document is parsed whole. Every
// element must reach the readers as the same document either way, so each case parses the
// array itself (scan path) and the same array as the "data" member of an object (DOM path).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ingest/ufm/json.h"
#include "ingest/ufm/resources.h"
#include "tests/unit/test_helpers.h"

namespace {

using ibw::ingest::UfmParsed;
namespace j = ibw::ingest::ufm_json_detail;

// What a reader sees of each element: the object's DOM, or that it is not an object.
UfmParsed<std::string> seen(const std::string& text, const char* data_key) {
  return j::parse_list<std::string>(
      text, "list",
      [](const j::Json& o, size_t index, UfmParsed<std::string>& out) {
        out.items.push_back(std::to_string(index) + ":" + (o.is_object() ? o.dump() : "-"));
      },
      data_key);
}

void same_both_ways(const std::string& array) {
  INFO(array.substr(0, 200));
  UfmParsed<std::string> scanned = seen(array, nullptr);
  UfmParsed<std::string> whole = seen("{\"data\": " + array + "}", "data");
  CHECK(scanned.ok == whole.ok);
  CHECK(scanned.error == whole.error);
  CHECK(scanned.items == whole.items);
}

}  // namespace

TEST_CASE("ufm list scan: elements reach the readers as the whole-document parse gives them",
          "[ufm]") {
  for (const char* f : {"ports.json", "alarms.json", "unhealthy-ports-6.20.json",
                        "events-6.16.json", "events-odd.json", "links.json"})
    same_both_ways(ibw::test::ufm_recording(f));
  same_both_ways("[]");
  same_both_ways(" \n[ {} , {\"a\": null} ]\n");
  same_both_ways(R"([{"i": 7, "neg": -12, "big": 18446744073709551615, "huge": 1e300,
      "f": 1.5, "e": 2E+3, "z": -0, "t": true, "fa": false, "n": null,
      "s": "a\"b\\c\u00e9\ud83d\ude00\n", "arr": [1, "x", {"k": [null]}], "o": {"p": {"q": 1}},
      "dup": 1, "dup": 2, "": "empty key", "esc\u0041key": 3}])");
  same_both_ways(R"([1, "text", [1, 2], null, true, {"name": "n"}])");
}

TEST_CASE("ufm list scan: invalid documents are rejected as before", "[ufm]") {
  for (const char* bad :
       {"[", "[{]", "[{\"a\": 1,}]", "[1,]", "[{\"a\": 01}]", "[] x", "[{\"a\": \"\\q\"}]",
        "[{\"a\": tru}]",
        // out of double range: the whole-document parser rejects these
        "[{\"a\": 1e400}]", "[{\"a\": [1, -1e999]}]", "[{\"n\": 1}, {\"a\": 1e400}]"}) {
    INFO(bad);
    UfmParsed<std::string> scanned = seen(bad, nullptr);
    CHECK_FALSE(scanned.ok);
    CHECK(scanned.error == "list: response is not valid JSON");
    CHECK(scanned.items.empty());
    CHECK_FALSE(seen(std::string("{\"data\": ") + bad + "}", "data").ok);
  }
}
