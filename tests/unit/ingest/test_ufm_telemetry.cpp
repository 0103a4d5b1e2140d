// Unit tests for UFM Telemetry parsing (ingest/ufm/telemetry.h): CSV of the primary and
// secondary endpoints and Prometheus text, into CounterSamples and PHY/BER records.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ingest/counter_tracker.h"
#include "ingest/ufm/telemetry.h"
#include "tests/unit/test_helpers.h"

using namespace ibw::ingest;

namespace ufm_telemetry_test {

constexpr int64_t kNow = 1'700'000'000'000'000;

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace ufm_telemetry_test

using ufm_telemetry_test::kNow;

TEST_CASE("ufm telemetry: primary CSV becomes counter samples", "[ufm]") {
  TelemetryParse t = parse_telemetry(ibw::test::ufm_recording("telemetry-primary.csv"), kNow);
  REQUIRE(t.ok);
  CHECK(t.format == TelemetryFormat::csv);
  CHECK(t.rows == 4);
  CHECK(t.skipped == 1);  // no GUID
  REQUIRE(t.samples.size() == 3);
  const CounterSample& s = t.samples[0];
  CHECK(s.node_guid == 0x9c0591030090e000);
  CHECK(s.port == 33);
  CHECK(s.time_us == 1709288400000000);
  CHECK(s.extended);
  CHECK(s.saturated == 0);
  CHECK(s.get(Counter::SymbolErrorCounter) == 12);
  CHECK(s.get(Counter::LinkErrorRecoveryCounter) == 1);
  CHECK(s.get(Counter::LinkDownedCounter) == 2);
  CHECK(s.get(Counter::PortRcvErrors) == 5);
  CHECK(s.get(Counter::PortXmitWait) == 123456789012);
  CHECK(s.get(Counter::PortXmitPkts) == 9000000000);
  CHECK_FALSE(s.has(Counter::PortXmitData));  // MBOut is not mapped (unit unknown)
  const CounterSample& odd = t.samples[2];
  CHECK_FALSE(odd.has(Counter::SymbolErrorCounter));        // "N/A"
  CHECK_FALSE(odd.has(Counter::LinkErrorRecoveryCounter));  // empty
  CHECK(odd.get(Counter::PortRcvErrors) == 18446744073709551615ull);
  CHECK(odd.get(Counter::PortXmitWait) == 1500);  // "1.5e3"
  CHECK(ufm_telemetry_test::has(t.unknown, "Infiniband_MBOut"));
  CHECK(ufm_telemetry_test::has(t.unknown, "Infiniband_CBW"));
  CHECK(ufm_telemetry_test::has(t.unknown, "Vendor_Specific_Thing"));
  CHECK_FALSE(ufm_telemetry_test::has(t.unknown, "source_id"));
  CHECK(t.phy.empty());
}

TEST_CASE("ufm telemetry: secondary CSV keeps BER fields aside", "[ufm]") {
  TelemetryParse t = parse_telemetry_csv(ibw::test::ufm_recording("telemetry-secondary.csv"), kNow);
  REQUIRE(t.ok);
  REQUIRE(t.phy.size() == 2);
  const TelemetryPhy& p = t.phy[0];
  CHECK(p.node_guid == 0x9c0591030090e000);
  CHECK(p.port == 33);
  CHECK(p.time_us == 1709288400123456);
  CHECK(p.raw_ber == Approx(2.5e-6));
  CHECK(p.effective_ber == Approx(1.2e-12));
  CHECK(p.symbol_ber == Approx(3.0e-13));
  CHECK(p.effective_errors == 17u);
  CHECK(p.raw_errors_lane[3] == 400u);
  CHECK(p.link_down == 4u);
  CHECK(p.temperature_c == Approx(71.5));
  CHECK(p.fec_mode == "RS_FEC");
  CHECK(p.speed == "NDR");
  CHECK(p.partner_guid == 0xfc6a1c0300244e00);
  CHECK(p.partner_port == 8);
  CHECK_FALSE(t.phy[1].effective_ber);  // "N/A"
  CHECK_FALSE(t.phy[1].symbol_ber);     // empty
  // Counters of the secondary set feed samples too ("...Extended", unit suffix ignored).
  REQUIRE(t.samples.size() == 2);
  CHECK(t.samples[0].get(Counter::PortRcvErrors) == 9);
  CHECK(t.samples[0].get(Counter::SymbolErrorCounter) == 15);
  CHECK(t.unknown.empty());
}

TEST_CASE("ufm telemetry: Prometheus text", "[ufm]") {
  TelemetryParse t = parse_telemetry(ibw::test::ufm_recording("telemetry.prom"), kNow);
  REQUIRE(t.ok);
  CHECK(t.format == TelemetryFormat::prometheus);
  REQUIRE(t.samples.size() == 2);
  CHECK(t.samples[0].node_guid == 0x9c0591030090e000);
  CHECK(t.samples[0].port == 33);
  CHECK(t.samples[0].get(Counter::SymbolErrorCounter) == 12);
  CHECK(t.samples[0].get(Counter::LinkDownedCounter) == 2);
  CHECK(t.samples[0].time_us == 1709288400000000);
  CHECK(t.samples[1].node_guid == 0xfc6a1c0300244e00);   // the escaped quote did not confuse it
  CHECK(t.samples[1].get(Counter::PortRcvErrors) == 5);  // port_guid when node_guid is absent
  REQUIRE(t.phy.size() == 1);
  CHECK(t.phy[0].effective_ber == Approx(1.2e-12));
  CHECK(t.skipped == 1);  // the series without identity
  CHECK(ufm_telemetry_test::has(t.unknown, "Infiniband_MBOut"));
  CHECK(telemetry_counter("Infiniband_XmtDiscards") == Counter::PortXmitDiscards);
  CHECK(telemetry_counter("PortXmitDataExtended") == Counter::PortXmitData);
  CHECK(telemetry_counter("symbolerrorcounter") == Counter::SymbolErrorCounter);
  CHECK_FALSE(telemetry_counter("Effective_BER"));
  CHECK_FALSE(parse_telemetry("", kNow).ok);
  CHECK_FALSE(parse_telemetry_csv("a,b,c\n1,2,3\n", kNow).ok);
}

TEST_CASE("ufm telemetry: samples drive the counter tracker like MAD samples", "[ufm]") {
  std::string csv0 =
      "timestamp,node_guid,port_num,Infiniband_SymbolErrors\n1700000000000000,0x2c9,1,10\n";
  std::string csv1 =
      "timestamp,node_guid,port_num,Infiniband_SymbolErrors\n1700000010000000,0x2c9,1,5000\n";
  CounterTracker tracker(TrackerOptions{100});
  std::vector<Event> events;
  tracker.update(parse_telemetry(csv0, kNow).samples.at(0), &events);
  CounterDelta d = tracker.update(parse_telemetry(csv1, kNow).samples.at(0), &events);
  CHECK(d.delta[static_cast<size_t>(Counter::SymbolErrorCounter)] == 4990);
  CHECK(d.rate[static_cast<size_t>(Counter::SymbolErrorCounter)] == Approx(499.0));
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == "counter_jump");
}
