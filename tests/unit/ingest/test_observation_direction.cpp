// The direction of route observations (ingest/observation.h): a record is one-way unless it
// says roundtrip; the field read from JSONL (booleans, or the words) and CSV (true/false, 1/0),
// a bad value reported as file:line: roundtrip, and both writers writing what reads back.
#include <catch2/catch.hpp>

#include "fabric/diagnostics.h"
#include "ingest/observation.h"
#include "tests/unit/test_helpers.h"

using namespace ibw;

namespace observation_direction_test {

// Every error of parsing `text` as "file:line: field: message" (the test fails without one).
std::vector<std::string> messages(const std::string& text, const std::string& file) {
  auto parse = [](const std::string& t, const std::string& f) { ingest::parse_observations(t, f); };
  std::vector<std::string> out;
  for (const auto& d : test::errors_of(parse, text, file))
    out.push_back(fabric::format_diagnostic(d));
  return out;
}

std::vector<bool> directions(const std::vector<ingest::Observation>& records) {
  std::vector<bool> out;
  for (const auto& o : records) out.push_back(o.roundtrip);
  return out;
}

TEST_CASE("observations: roundtrip read from JSONL and CSV - one-way unless said",
          "[observation]") {
  auto j = ingest::parse_observations(
      "{\"src\":\"a\",\"dst\":\"b\",\"sent\":5,\"lost\":0}\n"
      "{\"src\":\"a\",\"dst\":\"b\",\"sent\":5,\"lost\":0,\"roundtrip\":true}\n"
      "{\"src\":\"a\",\"dst\":\"b\",\"sent\":5,\"lost\":0,\"roundtrip\":false}\n"
      "{\"src\":\"\\u0061\",\"dst\":\"b\",\"sent\":5,\"lost\":0,\"roundtrip\":true}\n"
      "{\"src\":\"a\",\"dst\":\"b\",\"sent\":5,\"lost\":0,\"roundtrip\":null}\n",
      "d.jsonl");
  // Line 4 takes the JSON library's path (an escape in src), the others the fast reader's.
  CHECK(directions(j) == std::vector<bool>{false, true, false, true, false});

  auto c = ingest::parse_observations(
      "src,dst,sent,lost,roundtrip\na,b,5,0,true\na,b,5,0,false\na,b,5,0,1\na,b,5,0,0\n"
      "a,b,5,0,\n",
      "d.csv");
  CHECK(directions(c) == std::vector<bool>{true, false, true, false, false});  // "": not said

  // A record read after a round-trip one does not keep its direction (records are reused).
  int seen = 0;
  ingest::for_each_observation(
      "{\"src\":\"a\",\"dst\":\"b\",\"sent\":5,\"lost\":0,\"roundtrip\":true}\n"
      "{\"src\":\"a\",\"dst\":\"b\",\"sent\":5,\"lost\":0}\n",
      "r.jsonl", [&](const ingest::Observation& o, int line) {
        CHECK(o.roundtrip == (line == 1));
        ++seen;
      });
  CHECK(seen == 2);
}

TEST_CASE("observations: a bad roundtrip names file:line: roundtrip", "[observation]") {
  auto e = messages(
      "{\"src\":\"a\",\"dst\":\"b\",\"sent\":5,\"lost\":0,\"roundtrip\":\"yes\"}\n"
      "{\"src\":\"a\",\"dst\":\"b\",\"sent\":5,\"lost\":0,\"roundtrip\":2}\n"
      "{\"src\":\"a\",\"dst\":\"b\",\"sent\":5,\"lost\":0,\"roundtrip\":true}\n"
      "{\"src\":\"a\",\"dst\":\"b\",\"sent\":5,\"lost\":0,\"roundtrip\":\"on\"}\n",
      "bad.jsonl");
  REQUIRE(e.size() == 3);
  CHECK(e[0] == "bad.jsonl:1: roundtrip: \"yes\" is not true or false (1 or 0)");
  CHECK(e[1] == "bad.jsonl:2: roundtrip: \"2\" is not true or false (1 or 0)");
  CHECK(e[2] == "bad.jsonl:4: roundtrip: \"on\" is not true or false (1 or 0)");

  auto csv = messages("src,dst,sent,lost,roundtrip\na,b,5,0,TRUE\na,b,5,0,yes\n", "m.csv");
  REQUIRE(csv.size() == 2);
  CHECK(csv[0] == "m.csv:2: roundtrip: \"TRUE\" is not true or false (1 or 0)");
  CHECK(csv[1] == "m.csv:3: roundtrip: \"yes\" is not true or false (1 or 0)");
}

TEST_CASE("observations: the writers write roundtrip only when true - and it reads back",
          "[observation]") {
  ingest::Observation o;
  o.src = "12", o.dst = "7", o.sent = 10, o.lost = 1;
  o.routing = ingest::Routing::static_lft;
  CHECK(ingest::observation_jsonl(o).find("roundtrip") == std::string::npos);
  CHECK(ingest::observation_csv_header().ends_with(",roundtrip"));
  CHECK(ingest::observation_csv(o).ends_with(","));  // empty cell: one-way
  for (bool rt : {false, true}) {
    o.roundtrip = rt;
    auto j = ingest::parse_observations(ingest::observation_jsonl(o) + "\n", "w.jsonl");
    auto c = ingest::parse_observations(
        ingest::observation_csv_header() + "\n" + ingest::observation_csv(o) + "\n", "w.csv");
    REQUIRE(j.size() == 1);
    REQUIRE(c.size() == 1);
    CHECK(j[0].roundtrip == rt);
    CHECK(c[0].roundtrip == rt);
  }
  CHECK(ingest::observation_jsonl(o).ends_with(",\"roundtrip\":true}"));
  CHECK(ingest::observation_csv(o).ends_with(",true"));
}

}  // namespace observation_direction_test
