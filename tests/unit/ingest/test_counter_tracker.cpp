// CounterTracker (deltas, rates, resets, saturation, jumps, unresponsive ports, seeding) and
// the poller's pure PMA decoders (ClassPortInfo capability bits, PortCounters and
// PortCountersExtended data built with libibmad's own field encoder).
#include <catch2/catch.hpp>

#include <infiniband/mad.h>

#include <array>
#include <string>
#include <vector>

#include "ingest/counter_poller.h"
#include "ingest/counter_tracker.h"

using namespace ibw::ingest;

namespace {

constexpr uint64_t kGuid = 0x0002c90300001234;
constexpr int64_t kT0 = 1'700'000'000'000'000;

unsigned bit(Counter c) {
  return 1u << static_cast<unsigned>(c);
}
size_t idx(Counter c) {
  return static_cast<size_t>(c);
}

// A classic (PortCounters-only) reading with every counter valid and the given values set.
CounterSample reading(int64_t time_us, std::vector<std::pair<Counter, uint64_t>> values,
                      int port = 7) {
  CounterSample s;
  s.time_us = time_us;
  s.node_guid = kGuid;
  s.port = port;
  s.valid = (1u << kCounterCount) - 1;
  for (auto [c, v] : values) {
    s.value[idx(c)] = v;
    int bits = classic_width_bits(c);
    if (v == (uint64_t{1} << bits) - 1) s.saturated |= bit(c);
  }
  return s;
}

std::vector<Event> of_kind(const std::vector<Event>& events, std::string_view kind) {
  std::vector<Event> out;
  for (const auto& e : events)
    if (e.kind == kind) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("tracker: the first reading has no deltas and no events", "[tracker]") {
  CounterTracker t;
  std::vector<Event> events;
  auto d = t.update(reading(kT0, {{Counter::SymbolErrorCounter, 5000}}), &events);
  CHECK(d.valid == 0);
  CHECK(events.empty());
}

TEST_CASE("tracker: deltas and per-second rates", "[tracker]") {
  CounterTracker t;
  std::vector<Event> events;
  t.update(reading(kT0, {{Counter::PortXmitData, 1000}, {Counter::SymbolErrorCounter, 3}}),
           &events);
  auto d = t.update(
      reading(kT0 + 2'000'000, {{Counter::PortXmitData, 5000}, {Counter::SymbolErrorCounter, 10}}),
      &events);
  CHECK(d.interval_us == 2'000'000);
  CHECK(d.valid == (1u << kCounterCount) - 1);
  CHECK(d.delta[idx(Counter::PortXmitData)] == 4000);
  CHECK(d.rate[idx(Counter::PortXmitData)] == Approx(2000.0));
  CHECK(d.delta[idx(Counter::SymbolErrorCounter)] == 7);
  CHECK(d.rate[idx(Counter::SymbolErrorCounter)] == Approx(3.5));
  CHECK(d.delta[idx(Counter::PortRcvErrors)] == 0);
  CHECK(d.reset == 0);
  CHECK(d.at_least == 0);
  CHECK(events.empty());  // 7 < the default threshold of 100
}

TEST_CASE("tracker: a counter that goes down was reset", "[tracker]") {
  CounterTracker t;
  std::vector<Event> events;
  t.update(reading(kT0, {{Counter::SymbolErrorCounter, 500}, {Counter::PortRcvErrors, 40}}),
           &events);
  auto d = t.update(
      reading(kT0 + 1'000'000, {{Counter::SymbolErrorCounter, 3}, {Counter::PortRcvErrors, 41}}),
      &events);
  CHECK(d.reset == bit(Counter::SymbolErrorCounter));
  CHECK(d.delta[idx(Counter::SymbolErrorCounter)] == 3);  // counts from zero again
  CHECK(d.delta[idx(Counter::PortRcvErrors)] == 1);
  auto resets = of_kind(events, kind::counter_reset);
  REQUIRE(resets.size() == 1);
  CHECK(resets[0].source == EventSource::counters);
  CHECK(resets[0].node_guid == kGuid);
  CHECK(resets[0].port == 7);
  CHECK(resets[0].time_us == kT0 + 1'000'000);
  CHECK(resets[0].message.find("SymbolErrorCounter 500 -> 3") != std::string::npos);
  CHECK(of_kind(events, kind::counter_jump).empty());
}

TEST_CASE("tracker: saturated 16- - 8- and 4-bit fields give 'at least' deltas - never wrap",
          "[tracker]") {
  CounterTracker t;
  std::vector<Event> events;
  t.update(reading(kT0, {{Counter::SymbolErrorCounter, 65000},
                         {Counter::LinkDownedCounter, 250},
                         {Counter::LocalLinkIntegrityErrors, 12}}),
           &events);
  auto d = t.update(reading(kT0 + 1'000'000, {{Counter::SymbolErrorCounter, 65535},
                                              {Counter::LinkDownedCounter, 255},
                                              {Counter::LocalLinkIntegrityErrors, 15}}),
                    &events);
  uint32_t sat = bit(Counter::SymbolErrorCounter) | bit(Counter::LinkDownedCounter) |
                 bit(Counter::LocalLinkIntegrityErrors);
  CHECK(d.sample.saturated == sat);
  CHECK(d.at_least == sat);
  CHECK(d.reset == 0);
  CHECK(d.delta[idx(Counter::SymbolErrorCounter)] == 535);
  CHECK(d.delta[idx(Counter::LinkDownedCounter)] == 5);
  CHECK(d.delta[idx(Counter::LocalLinkIntegrityErrors)] == 3);
  auto jumps = of_kind(events, kind::counter_jump);
  REQUIRE(jumps.size() == 1);  // only SymbolErrorCounter crossed 100
  CHECK(jumps[0].message.find("SymbolErrorCounter rose by at least 535") != std::string::npos);
  CHECK(jumps[0].message.find("saturated") != std::string::npos);

  // Still stuck at the maximum: zero "at least", not a wrap and not a reset.
  events.clear();
  d = t.update(reading(kT0 + 2'000'000, {{Counter::SymbolErrorCounter, 65535},
                                         {Counter::LinkDownedCounter, 255},
                                         {Counter::LocalLinkIntegrityErrors, 15}}),
               &events);
  CHECK(d.at_least == sat);
  CHECK(d.reset == 0);
  CHECK(d.delta[idx(Counter::SymbolErrorCounter)] == 0);
  CHECK(d.delta[idx(Counter::LocalLinkIntegrityErrors)] == 0);
  CHECK(events.empty());

  // Cleared from the maximum (e.g. perfquery -R): a reset, not a huge negative delta.
  d = t.update(reading(kT0 + 3'000'000, {{Counter::LocalLinkIntegrityErrors, 2}}), &events);
  CHECK(d.reset & bit(Counter::LocalLinkIntegrityErrors));
  CHECK(d.delta[idx(Counter::LocalLinkIntegrityErrors)] == 2);
  CHECK((d.at_least & bit(Counter::LocalLinkIntegrityErrors)) == 0);
}

TEST_CASE("tracker: 64-bit extended values", "[tracker]") {
  CounterTracker t;
  CounterSample a = reading(kT0, {});
  a.extended = true;
  a.value[idx(Counter::PortXmitData)] = 0xFFFF'FFFF'0000'0000ull;
  a.value[idx(Counter::PortRcvPkts)] = 5'000'000'000ull;
  CounterSample b = a;
  b.time_us = kT0 + 10'000'000;
  b.value[idx(Counter::PortXmitData)] = 0xFFFF'FFFF'8000'0000ull;
  b.value[idx(Counter::PortRcvPkts)] = 9'000'000'000ull;
  std::vector<Event> events;
  t.update(a, &events);
  auto d = t.update(b, &events);
  CHECK(d.delta[idx(Counter::PortXmitData)] == 0x8000'0000ull);
  CHECK(d.delta[idx(Counter::PortRcvPkts)] == 4'000'000'000ull);
  CHECK(d.rate[idx(Counter::PortRcvPkts)] == Approx(4e8));
  CHECK(d.at_least == 0);
  CHECK(d.reset == 0);
  CHECK(events.empty());  // data and packet counters never make counter_jump

  // Falling back to 32-bit PortCounters is a new baseline for the data counters, not a reset.
  CounterSample c = reading(kT0 + 20'000'000, {{Counter::PortXmitData, 77}});
  events.clear();
  d = t.update(c, &events);
  CHECK((d.valid & bit(Counter::PortXmitData)) == 0);
  CHECK((d.reset & bit(Counter::PortXmitData)) == 0);
  CHECK(d.valid & bit(Counter::SymbolErrorCounter));
  CHECK(events.empty());
}

TEST_CASE("tracker: counter_jump at the threshold - naming the counter and delta", "[tracker]") {
  CounterTracker t(TrackerOptions{50});
  std::vector<Event> events;
  t.update(reading(kT0, {{Counter::PortRcvErrors, 10}, {Counter::LinkDownedCounter, 1}}), &events);
  t.update(
      reading(kT0 + 5'000'000, {{Counter::PortRcvErrors, 59}, {Counter::LinkDownedCounter, 2}}),
      &events);
  CHECK(events.empty());  // 49 < 50
  t.update(
      reading(kT0 + 10'000'000, {{Counter::PortRcvErrors, 109}, {Counter::LinkDownedCounter, 3}}),
      &events);
  REQUIRE(events.size() == 1);
  const Event& e = events[0];
  CHECK(e.kind == kind::counter_jump);
  CHECK(e.source == EventSource::counters);
  CHECK(e.severity == Severity::warning);
  CHECK(e.node_guid == kGuid);
  CHECK(e.port == 7);
  CHECK(e.time_us == kT0 + 10'000'000);
  CHECK(e.message.find("PortRcvErrors rose by 50") != std::string::npos);
  CHECK(!e.dedup_key.empty());

  // Data counters never jump, however much they move.
  events.clear();
  t.update(reading(kT0 + 15'000'000, {{Counter::PortRcvErrors, 109},
                                      {Counter::LinkDownedCounter, 3},
                                      {Counter::PortXmitData, 1'000'000}}),
           &events);
  CHECK(events.empty());
}

TEST_CASE("tracker: ports are tracked separately", "[tracker]") {
  CounterTracker t;
  std::vector<Event> events;
  t.update(reading(kT0, {{Counter::SymbolErrorCounter, 1000}}, 1), &events);
  auto d = t.update(reading(kT0 + 1, {{Counter::SymbolErrorCounter, 5}}, 2), &events);
  CHECK(d.valid == 0);  // first reading of port 2
  CHECK(events.empty());
}

TEST_CASE("tracker: an unresponsive port gives one event until it answers again", "[tracker]") {
  CounterTracker t;
  std::vector<Event> events;
  t.update(reading(kT0, {{Counter::SymbolErrorCounter, 1}}), &events);
  t.unresponsive(kGuid, 7, kT0 + 1'000'000, &events);
  t.unresponsive(kGuid, 7, kT0 + 2'000'000, &events);
  t.unresponsive(kGuid, 7, kT0 + 3'000'000, &events);
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == kind::port_unresponsive);
  CHECK(events[0].source == EventSource::counters);
  CHECK(events[0].node_guid == kGuid);
  CHECK(events[0].port == 7);
  CHECK(events[0].time_us == kT0 + 1'000'000);

  // It answers: deltas continue across the gap, and a later silence is a new event.
  events.clear();
  auto d = t.update(reading(kT0 + 4'000'000, {{Counter::SymbolErrorCounter, 4}}), &events);
  CHECK(d.delta[idx(Counter::SymbolErrorCounter)] == 3);
  CHECK(d.interval_us == 4'000'000);
  CHECK(events.empty());
  t.unresponsive(kGuid, 7, kT0 + 5'000'000, &events);
  CHECK(of_kind(events, kind::port_unresponsive).size() == 1);
}

TEST_CASE("tracker: seed() sets the previous reading without events", "[tracker]") {
  CounterTracker t;
  std::vector<Event> events;
  t.seed(reading(kT0, {{Counter::SymbolErrorCounter, 100}, {Counter::PortXmitData, 10}}));
  auto d = t.update(
      reading(kT0 + 1'000'000, {{Counter::SymbolErrorCounter, 250}, {Counter::PortXmitData, 30}}),
      &events);
  CHECK(d.valid != 0);
  CHECK(d.delta[idx(Counter::SymbolErrorCounter)] == 150);
  CHECK(d.delta[idx(Counter::PortXmitData)] == 20);
  REQUIRE(events.size() == 1);  // the jump of 150, measured from the seeded reading
  CHECK(events[0].kind == kind::counter_jump);

  // Seeding also clears a remembered silence.
  events.clear();
  t.unresponsive(kGuid, 7, kT0 + 2'000'000, &events);
  t.seed(reading(kT0 + 3'000'000, {{Counter::SymbolErrorCounter, 250}}));
  t.unresponsive(kGuid, 7, kT0 + 4'000'000, &events);
  CHECK(events.size() == 2);
}

// ---- The poller's decoders, on attribute data encoded with libibmad.

namespace {

using Data = std::array<uint8_t, IB_PC_DATA_SZ>;

void put(Data& d, MAD_FIELDS f, uint32_t v) {
  mad_encode_field(d.data(), f, &v);
}
void put64(Data& d, MAD_FIELDS f, uint64_t v) {
  mad_encode_field(d.data(), f, &v);
}

}  // namespace

TEST_CASE("poller decode: ClassPortInfo capability bits", "[tracker][poller]") {
  Data cpi{};
  put(cpi, IB_CPI_CAPMASK_F, (1u << 9) | (1u << 12) | (1u << 8));
  put(cpi, IB_CPI_CAPMASK2_F, 1u << 1);
  PmaCapabilities caps = decode_class_port_info(cpi.data());
  CHECK(caps.extended());
  CHECK(caps.extended_errors());
  CHECK(caps.xmit_wait());

  Data none{};
  put(none, IB_CPI_CAPMASK_F, 1u << 10);  // extended width without the IETF counters
  caps = decode_class_port_info(none.data());
  CHECK(caps.extended());
  CHECK_FALSE(caps.extended_errors());
  CHECK_FALSE(caps.xmit_wait());
  CHECK_FALSE(PmaCapabilities{}.extended());
}

TEST_CASE("poller decode: classic PortCounters - saturation and XmitWait capability",
          "[tracker][poller]") {
  Data pc{};
  put(pc, IB_PC_PORT_SELECT_F, 3);
  put(pc, IB_PC_ERR_SYM_F, 500);
  put(pc, IB_PC_LINK_DOWNED_F, 255);
  put(pc, IB_PC_ERR_LOCALINTEG_F, 15);
  put(pc, IB_PC_ERR_EXCESS_OVR_F, 14);
  put(pc, IB_PC_ERR_RCV_F, 65535);
  put(pc, IB_PC_XMT_BYTES_F, 0xFFFFFFFFu);
  put(pc, IB_PC_RCV_PKTS_F, 1234);
  put(pc, IB_PC_XMT_WAIT_F, 99);

  PmaCapabilities classic;  // no capability bits
  CounterSample s = decode_port_counters(pc.data(), nullptr, classic);
  CHECK_FALSE(s.extended);
  CHECK(s.get(Counter::SymbolErrorCounter) == 500);
  CHECK(s.get(Counter::LinkDownedCounter) == 255);
  CHECK(s.get(Counter::LocalLinkIntegrityErrors) == 15);
  CHECK(s.get(Counter::ExcessiveBufferOverrunErrors) == 14);
  CHECK(s.get(Counter::PortRcvPkts) == 1234);
  CHECK_FALSE(s.has(Counter::PortXmitWait));  // CapabilityMask bit 12 not set
  CHECK(s.saturated == (bit(Counter::LinkDownedCounter) | bit(Counter::LocalLinkIntegrityErrors) |
                        bit(Counter::PortRcvErrors) | bit(Counter::PortXmitData)));

  PmaCapabilities with_wait;
  with_wait.mask = PmaCapabilities::kXmitWait;
  s = decode_port_counters(pc.data(), nullptr, with_wait);
  CHECK(s.has(Counter::PortXmitWait));
  CHECK(s.get(Counter::PortXmitWait) == 99);
}

TEST_CASE("poller decode: PortCountersExtended data - and 64-bit errors with CapabilityMask2",
          "[tracker][poller]") {
  Data pc{}, pce{};
  put(pc, IB_PC_ERR_SYM_F, 65535);
  put(pc, IB_PC_ERR_LOCALINTEG_F, 15);
  put(pc, IB_PC_XMT_BYTES_F, 0xFFFFFFFFu);
  put64(pce, IB_PC_EXT_XMT_BYTES_F, 5'000'000'000ull);
  put64(pce, IB_PC_EXT_RCV_PKTS_F, 7'000'000'000ull);
  put64(pce, IB_PC_EXT_ERR_SYM_F, 123'456'789ull);
  put64(pce, IB_PC_EXT_ERR_LOCALINTEG_F, 40);
  put64(pce, IB_PC_EXT_XMT_WAIT_F, 1ull << 40);

  PmaCapabilities ext;
  ext.mask = PmaCapabilities::kExtendedWidth;
  CounterSample s = decode_port_counters(pc.data(), pce.data(), ext);
  CHECK(s.extended);
  CHECK(s.get(Counter::PortXmitData) == 5'000'000'000ull);
  CHECK(s.get(Counter::PortRcvPkts) == 7'000'000'000ull);
  CHECK(s.get(Counter::SymbolErrorCounter) == 65535);  // errors still classic
  CHECK(s.saturated == (bit(Counter::SymbolErrorCounter) | bit(Counter::LocalLinkIntegrityErrors)));

  PmaCapabilities full = ext;
  full.mask2 = PmaCapabilities::kAdditionalExtended;
  s = decode_port_counters(pc.data(), pce.data(), full);
  CHECK(s.get(Counter::SymbolErrorCounter) == 123'456'789ull);
  CHECK(s.get(Counter::LocalLinkIntegrityErrors) == 40);
  CHECK(s.get(Counter::PortXmitWait) == (1ull << 40));
  CHECK(s.saturated == 0);
  CHECK(s.valid == (1u << kCounterCount) - 1);
}
