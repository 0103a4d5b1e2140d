// Unit tests for reading a JSON array as it arrives (ingest/ufm/json_stream.h) and the UFM
// lists read that way (ufm_ports_stream, ufm_links_stream): fed in pieces of random sizes, the
// elements, the parsed records and the error of a malformed body are those of the whole-body
// parse, and only an unfinished element's text is held between pieces.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "ingest/ufm/json_scan.h"
#include "ingest/ufm/json_stream.h"
#include "ingest/ufm/resources.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::ingest;

namespace ufm_json_stream_test {

// Each element as text ("o:" + key=text pairs, or "-" for a non-object).
struct Seen {
  std::string error;
  std::vector<std::string> elements;
  size_t max_held = 0;
};

JsonArrayStream::OnElement recorder(std::vector<std::string>& out) {
  return [&out](const std::vector<JsonMember>& members, bool is_object) {
    std::string e = is_object ? "o:" : "-";
    for (const JsonMember& m : members)
      e += std::string(m.key) + "=" + std::to_string(static_cast<int>(m.type)) + ":" +
           std::string(m.text) + ";";
    out.push_back(std::move(e));
  };
}

Seen whole(const std::string& text) {
  Seen s;
  s.error = scan_json_array(text, recorder(s.elements));
  return s;
}

// The pieces: sizes drawn from 1..max_piece with the seed.
std::vector<std::string> pieces(const std::string& text, unsigned seed, size_t max_piece) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> size(1, max_piece);
  std::vector<std::string> out;
  for (size_t at = 0; at < text.size();) {
    size_t n = std::min(size(rng), text.size() - at);
    out.push_back(text.substr(at, n));
    at += n;
  }
  return out;
}

Seen streamed(const std::string& text, unsigned seed, size_t max_piece) {
  Seen s;
  JsonArrayStream stream;
  auto on = recorder(s.elements);
  for (const std::string& p : pieces(text, seed, max_piece)) {
    if (!stream.feed(p, on)) break;
    s.max_held = std::max(s.max_held, stream.held());
  }
  s.error = stream.finish(on);
  return s;
}

void same_in_pieces(const std::string& text) {
  INFO(text.substr(0, 120));
  Seen w = whole(text);
  for (unsigned seed = 1; seed <= 12; ++seed)
    for (size_t max_piece : {size_t{1}, size_t{3}, size_t{17}, size_t{4096}}) {
      INFO("seed " << seed << " pieces up to " << max_piece);
      Seen s = streamed(text, seed, max_piece);
      CHECK(s.error == w.error);
      CHECK(s.elements == w.elements);
    }
}

// A ports list as UFM answers it: n records of about 600 bytes.
std::string ports_body(int n) {
  std::string out = "[";
  for (int i = 0; i < n; ++i) {
    char guid[17];
    std::snprintf(guid, sizeof guid, "%016x", 0x1000 + i / 4);
    out += std::string(i ? "," : "") + "\n {\"name\": \"" + guid + "_" + std::to_string(i % 4 + 1) +
           "\", \"guid\": \"0x" + guid + "\", \"number\": " + std::to_string(i % 4 + 1) +
           ", \"dname\": \"1/" + std::to_string(i % 4 + 1) + "/1\", \"system_name\": \"sw" +
           std::to_string(i / 4) + "\", \"physical_state\": \"Link Up\", \"logical_state\": " +
           "\"Active\", \"active_speed\": \"NDR\", \"enabled_speed\": [\"HDR\", \"NDR\"], " +
           "\"capabilities\": [\"reset\", \"disable\"], \"high_ber_severity\": \"N/A\", " +
           "\"node_description\": \"sw \\\"" + std::to_string(i) +
           "\\\" \\u00e9\", \"peer\": " + "\"\", \"lid\": " + std::to_string(i + 1) +
           ", \"path\": \"default / Switch: sw" + std::to_string(i / 4) + " / 1/" +
           std::to_string(i % 4 + 1) + "/1\"}";
  }
  return out + "\n]\n";
}

std::string describe(const UfmPort& p) {
  std::string e;
  for (const auto& v : {p.enabled_speed, p.supported_speed, p.capabilities})
    for (const std::string& s : v) e += s + ",";
  return p.name + "|" + std::to_string(p.guid) + "|" + std::to_string(p.node_guid) + "|" +
         std::to_string(p.number) + "|" + p.dname + "|" + p.system_name + "|" + p.node_description +
         "|" + p.physical_state + "|" + p.high_ber_severity + "|" + std::to_string(p.lid) + "|" +
         p.path + "|" + p.peer + "|" + std::to_string(p.peer_guid) + "|" + e;
}

std::vector<std::string> describe(const UfmParsed<UfmPort>& parsed) {
  std::vector<std::string> out;
  for (const UfmPort& p : parsed.items) out.push_back(describe(p));
  return out;
}

}  // namespace ufm_json_stream_test

using namespace ufm_json_stream_test;

TEST_CASE("ufm json stream: any pieces give the elements of the whole text", "[ufm]") {
  for (const char* f : {"ports.json", "alarms.json", "events-6.16.json", "events-odd.json",
                        "links.json", "unhealthy-ports-6.20.json"})
    same_in_pieces(ibw::test::ufm_recording(f));
  same_in_pieces(ports_body(50));
  same_in_pieces("[]");
  same_in_pieces("  \n [ ] \n");
  same_in_pieces(R"([{"s": "a\"b\\c\u00e9\ud83d\ude00\n,]}", "arr": [1, "x]", {"k": [null]}],
      "o": {"p": {"q": "}"}}, "n": -1.5e+3, "t": true, "f": false, "z": null}, 7, "x", [1, [2]]])");
}

TEST_CASE("ufm json stream: a malformed text gives the whole-text error in any pieces", "[ufm]") {
  for (const char* bad : {"",
                          "{\"a\": 1}",
                          "[{\"id\": 1}",
                          "[{\"id\": 1} {\"id\": 2}]",
                          "[{\"id\": 01}]",
                          "[{\"id\": 1.}]",
                          "[{\"id\": tru}]",
                          "[{\"a\": \"x\ty\"}]",
                          "[{\"a\": \"\\q\"}]",
                          "[{\"a\": \"\\u12\"}]",
                          "[{\"a\": 1,}]",
                          "[1,]",
                          "[1] x",
                          "[1] [2, 3]",
                          "x[1, 2]",
                          "[{\"a\": 1}]]",
                          "[{\"a\": [}]",
                          "[{\"a\": 1}, {\"b\": 2} 3, {\"c\": 4}]",
                          "[\"a\"",
                          "[{\"a\": \"\\ud83d\\u0041\"}, 1 2]",
                          "[1}, 2]"}) {
    same_in_pieces(bad);
    CHECK_FALSE(whole(bad).error.empty());
  }
  same_in_pieces(std::string(100, '[') + std::string(100, ']'));
  // Broken in the middle of a long list: the elements before it were handed out already.
  std::string body = ports_body(40);
  body.insert(body.find(",\n {", body.size() / 2), "}");  // after a record: "}}," is not JSON
  same_in_pieces(body);
  CHECK_FALSE(whole(body).error.empty());
  CHECK(whole(body).elements.size() >= 20);
}

TEST_CASE("ufm json stream: only the unfinished element is held between pieces", "[ufm]") {
  std::string body = ports_body(2000);  // about 1.1 MB
  Seen s = streamed(body, 7, 16384);
  CHECK(s.error.empty());
  CHECK(s.elements.size() == 2000);
  CHECK(s.max_held < 16384 + 1024);  // a piece and one record at most, not the body
  CHECK(body.size() > 100 * s.max_held);
}

TEST_CASE("ufm ports and links streams: pieces give the records of the whole body", "[ufm]") {
  for (const std::string& body : {ibw::test::ufm_recording("ports.json"), ports_body(300)}) {
    UfmParsed<UfmPort> w = parse_ufm_ports(body);
    REQUIRE(w.ok);
    REQUIRE_FALSE(w.items.empty());
    for (unsigned seed : {1u, 2u, 3u}) {
      auto stream = ufm_ports_stream();
      for (const std::string& p : pieces(body, seed, 257)) REQUIRE(stream.feed(p));
      UfmParsed<UfmPort> s = stream.finish();
      CHECK(s.ok);
      CHECK(s.skipped == w.skipped);
      CHECK(describe(s) == describe(w));
    }
  }
  // The paged links form (an object) is kept and parsed whole, the list form streamed.
  for (const char* f : {"links.json", "links-paged.json"}) {
    std::string body = ibw::test::ufm_recording(f);
    UfmParsed<UfmLink> w = parse_ufm_links(body);
    REQUIRE(w.ok);
    auto stream = ufm_links_stream();
    for (const std::string& p : pieces(body, 5, 31)) REQUIRE(stream.feed(p));
    UfmParsed<UfmLink> s = stream.finish();
    CHECK(s.ok);
    REQUIRE(s.items.size() == w.items.size());
    for (size_t i = 0; i < s.items.size(); ++i) {
      CHECK(s.items[i].name == w.items[i].name);
      CHECK(s.items[i].source.guid == w.items[i].source.guid);
      CHECK(s.items[i].destination.port == w.items[i].destination.port);
    }
  }
}

TEST_CASE("ufm ports stream: a body broken mid-stream fails as the whole body does", "[ufm]") {
  std::string body = ports_body(100);
  std::string extra_brace = body;
  extra_brace.insert(body.find(",\n {", body.size() / 2), "}");
  for (const std::string& bad :
       {body.substr(0, body.size() / 2), extra_brace,
        std::string("[{\"name\": \"a_1\", \"lid\": 1e400}, ") + body.substr(1)}) {
    UfmParsed<UfmPort> w = parse_ufm_ports(bad);
    CHECK_FALSE(w.ok);
    CHECK(w.error == "ports: response is not valid JSON");
    auto stream = ufm_ports_stream();
    bool stopped = false;
    for (const std::string& p : pieces(bad, 9, 100))
      if (!stream.feed(p)) {
        stopped = true;  // the rest need not be read
        break;
      }
    UfmParsed<UfmPort> s = stream.finish();
    CHECK_FALSE(s.ok);
    CHECK(s.error == w.error);
    CHECK(s.items.empty());
    if (bad.size() == body.size() / 2)
      CHECK_FALSE(stopped);  // cut short: known at the end only
    else
      CHECK(stopped);  // known as soon as the bad record's text came
  }
}
