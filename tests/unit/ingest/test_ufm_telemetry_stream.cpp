// Unit tests for TelemetryStreamParser (ingest/ufm/telemetry.h): a telemetry answer fed in
// pieces cut anywhere parses to exactly what parse_telemetry() makes of the whole text, for
// the recorded CSV and Prometheus answers and for the edge cases of the first line.
#include <catch2/catch.hpp>

#include <bit>
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

TEST_CASE("ufm telemetry stream: a CSV row read in one pass parses as its quoted twin", "[ufm]") {
  // Rows without a quote take the one-pass reader, quoted rows the split: the same cells in
  // either form must give the same samples, PHY records, rows and skips. Headers and cells
  // are drawn at random: identity and time columns anywhere (twice, or missing), counters,
  // PHY fields, unknown columns; cells of plain digits up to 22 long, spaced, signed,
  // decimal, exponent, hex, empty, "N/A"; rows with fewer or more cells than the header.
  const std::vector<std::string> names = {"timestamp",
                                          "node_guid",
                                          "port_guid",
                                          "port_num",
                                          "Port_Number",
                                          "source_id",
                                          "Infiniband_SymbolErrors",
                                          "Infiniband_RcvErrors",
                                          "Infiniband_XmitWait",
                                          "Infiniband_PckOut",
                                          "PortXmitDataExtended",
                                          "Total_Raw_BER",
                                          "Effective_Errors",
                                          "Active_FEC",
                                          "Module_Temperature",
                                          "link_partner_node_guid",
                                          "no_such_field"};
  std::mt19937 rng(20261129);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto digits = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += static_cast<char>('0' + pick(10));
    return s;
  };
  auto cell = [&]() -> std::string {
    switch (pick(12)) {
      case 0:
        return "";
      case 1:
        return " " + digits(1 + pick(5)) + " ";
      case 2:
        return "-" + digits(1 + pick(3));
      case 3:
        return digits(1 + pick(4)) + "." + digits(1 + pick(3));
      case 4:
        return digits(1 + pick(2)) + "e" + digits(1);
      case 5:
        return "0x" + digits(1 + pick(16));
      case 6:
        return "N/A";
      case 7:
        return digits(17 + pick(6));  // 17-22 digits: over 19 is not plain
      case 8:
        return "x" + digits(2);
      case 9:
        return "1700000000" + digits(pick(7));  // a time in s to us
      default:
        return digits(1 + pick(12));
    }
  };
  size_t samples = 0, counters = 0;  // what the rounds compared: not only skipped rows
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> header;
    for (size_t n = 1 + pick(12); header.size() < n;) header.push_back(names[pick(names.size())]);
    if (round % 3) header.insert(header.begin() + pick(header.size() + 1), "node_guid");
    if (round % 4) header.insert(header.begin() + pick(header.size() + 1), "port_num");
    std::string plain, quoted;
    for (size_t i = 0; i < header.size(); ++i) plain += (i ? "," : "") + header[i];
    plain += "\n", quoted = plain;
    for (int r = 0; r < 20; ++r) {
      size_t n = header.size() + pick(3) - std::min<size_t>(header.size(), 1 + pick(2)) + 1;
      for (size_t i = 0; i < n; ++i) {
        std::string c = header[std::min(i, header.size() - 1)].ends_with("guid") && pick(2)
                            ? "0x" + digits(16)
                            : cell();
        plain += (i ? "," : "") + c;
        quoted += (i ? ",\"" : "\"") + c + "\"";
      }
      plain += r % 5 ? "\n" : "\r\n", quoted += "\n";
    }
    INFO(plain);
    const TelemetryParse a = parse_telemetry_csv(plain, kNow);
    const TelemetryParse b = parse_telemetry_csv(quoted, kNow);
    check_same(a, b);
    samples += a.samples.size();
    for (const auto& x : a.samples) counters += static_cast<size_t>(std::popcount(x.valid));
    for (size_t i = 0; i < a.phy.size() && i < b.phy.size(); ++i) {
      CHECK(a.phy[i].effective_errors == b.phy[i].effective_errors);
      CHECK(a.phy[i].temperature_c == b.phy[i].temperature_c);
    }
  }
  CHECK(samples > 500);
  CHECK(counters > 1000);
}
