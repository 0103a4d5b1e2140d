// Unit tests for TelemetryStreamParser (ingest/ufm/telemetry.h): a telemetry answer fed in
// pieces cut anywhere parses to exactly what parse_telemetry() makes of the whole text, for
// the recorded CSV and Prometheus answers and for the edge cases of the first line.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "ingest/ufm/telemetry.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::ingest;

namespace {

constexpr int64_t kNow = 1'700'000'000'000'000;

TelemetryParse streamed(const std::string& text, const std::vector<size_t>& cuts,
                        size_t expected_samples = 0) {
  TelemetryStreamParser p(kNow, expected_samples);
  size_t at = 0;
  for (size_t cut : cuts) {
    cut = std::min(cut, text.size());
    if (cut < at) continue;
    p.feed(std::string_view(text).substr(at, cut - at));
    at = cut;
  }
  p.feed(std::string_view(text).substr(at));
  CHECK(p.bytes() == text.size());
  return p.finish();
}

void check_same(const TelemetryParse& a, const TelemetryParse& b) {
  CHECK(a.ok == b.ok);
  CHECK(a.error == b.error);
  CHECK(a.format == b.format);
  CHECK(a.rows == b.rows);
  CHECK(a.skipped == b.skipped);
  CHECK(a.unknown == b.unknown);
  REQUIRE(a.samples.size() == b.samples.size());
  for (size_t i = 0; i < a.samples.size(); ++i) {
    CHECK(a.samples[i].node_guid == b.samples[i].node_guid);
    CHECK(a.samples[i].port == b.samples[i].port);
    CHECK(a.samples[i].time_us == b.samples[i].time_us);
    CHECK(a.samples[i].value == b.samples[i].value);
    CHECK(a.samples[i].valid == b.samples[i].valid);
  }
  REQUIRE(a.phy.size() == b.phy.size());
  for (size_t i = 0; i < a.phy.size(); ++i) {
    CHECK(a.phy[i].node_guid == b.phy[i].node_guid);
    CHECK(a.phy[i].raw_ber == b.phy[i].raw_ber);
    CHECK(a.phy[i].fec_mode == b.phy[i].fec_mode);
    CHECK(a.phy[i].partner_guid == b.phy[i].partner_guid);
  }
}

// Every way of cutting the text in one or two places, and random cuts.
void check_every_cut(const std::string& text) {
  const TelemetryParse whole = parse_telemetry(text, kNow);
  for (size_t i = 0; i <= text.size(); ++i) {
    INFO("cut at " << i);
    check_same(streamed(text, {i}), whole);
  }
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::vector<size_t> cuts;
    for (size_t at = 0; at < text.size();) cuts.push_back(at += 1 + rng() % 9);
    const size_t expected = round % 2 ? rng() % (2 * whole.samples.size() + 2) : 0;
    INFO("expected samples " << expected);
    check_same(streamed(text, cuts, expected), whole);
  }
}

}  // namespace

TEST_CASE("ufm telemetry stream: recorded answers parse as their whole text does", "[ufm]") {
  for (const char* name : {"telemetry-primary.csv", "telemetry-secondary.csv", "telemetry.prom"}) {
    INFO(name);
    const std::string text = ibw::test::ufm_recording(name);
    REQUIRE(parse_telemetry(text, kNow).ok);
    REQUIRE(!parse_telemetry(text, kNow).samples.empty());
    check_every_cut(text);
  }
}

TEST_CASE("ufm telemetry stream: first lines and line ends and refused headers", "[ufm]") {
  const std::string row = "0x0002c90300a0b0c0,0x0002c90300a0b0c0,7,1700000000000000,4,5\n";
  const std::string header = "node_guid,port_guid,port_num,timestamp,SymbolErrorCounter,Bogus\n";
  for (const std::string& text : std::vector<std::string>{
           std::string(),                                     // empty: refused
           std::string("\n\n  \r\n"),                         // blank only
           header,                                            // header only
           "\n\r\n" + header + row + row,                     // blank lines first
           header + row + row.substr(0, row.size() - 1),      // last row without '\n'
           "node_guid,port_guid,port_num",                    // a header that never ends
           "a,b,c\n" + row,                                   // no identity column: refused
           "node_guid,port_num\r\n0x10,3\r\n\r\n0x11,4\r\n",  // CRLF, a blank line between
           "# HELP x y\nInfiniband_SymbolErrors{node_guid=\"0x10\",port_num=\"2\"} 9\n",
       }) {
    INFO(text);
    check_every_cut(text);
  }
  // A cut inside the first line still decides by the whole line: CSV, not Prometheus.
  const TelemetryParse t = streamed(header + row, {3, 10, header.size() + 5});
  CHECK(t.ok);
  CHECK(t.format == TelemetryFormat::csv);
  REQUIRE(t.samples.size() == 1);
  CHECK(t.samples[0].port == 7);
  CHECK(t.unknown == std::vector<std::string>{"Bogus"});
}

TEST_CASE("ufm telemetry stream: the expected sample count sizes the CSV result once", "[ufm]") {
  const std::string text = ibw::test::ufm_recording("telemetry-primary.csv");
  const size_t n = parse_telemetry(text, kNow).samples.size();
  REQUIRE(n > 0);
  for (size_t expected : {n, n * 64}) {
    INFO("expected " << expected);
    const TelemetryParse t = streamed(text, {text.size() / 2}, expected);
    CHECK(t.samples.size() == n);
    CHECK(t.samples.capacity() == expected + expected / 64);  // reserved once, never grown
  }
}
