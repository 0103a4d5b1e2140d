// Switch sums (ingest/switch_sums.h): the judgement of a switch's AllPortSelect sum against the
// previous one, on PortCounters answers built with libibmad's own field encoder and decoded as
// the poller decodes them, and SwitchSums' memory of each switch's ports.
#include <catch2/catch.hpp>

#include <infiniband/mad.h>

#include <array>
#include <vector>

#include "ingest/counter_poller.h"
#include "ingest/switch_sums.h"

using namespace ibw::ingest;

namespace {

constexpr uint64_t kSwitch = 0x0002c90300005678;
constexpr int64_t kT0 = 1'700'000'000'000'000;

// A switch's PortCounters answer with PortSelect 0xFF and the given fields, decoded for a PMA
// that advertises AllPortSelect, PortXmitWait and 64-bit data counters (as ibsim's switches).
CounterSample sum_of(std::vector<std::pair<MAD_FIELDS, uint32_t>> fields) {
  std::array<uint8_t, IB_PC_DATA_SZ> pc{};
  uint32_t all = 0xFF;
  mad_encode_field(pc.data(), IB_PC_PORT_SELECT_F, &all);
  for (auto [f, v] : fields) mad_encode_field(pc.data(), f, &v);
  PmaCapabilities caps;
  caps.mask = PmaCapabilities::kAllPortSelect | PmaCapabilities::kXmitWait |
              PmaCapabilities::kExtendedWidth;
  return decode_port_counters(pc.data(), nullptr, caps);
}

CounterSample port_reading(int port, uint64_t symbol_errors) {
  CounterSample s;
  s.time_us = kT0;
  s.node_guid = kSwitch;
  s.port = port;
  s.valid = (1u << kCounterCount) - 1;
  s.value[static_cast<size_t>(Counter::SymbolErrorCounter)] = symbol_errors;
  s.value[static_cast<size_t>(Counter::PortXmitData)] = 123456;  // data: not remembered
  s.extended = true;
  return s;
}

}  // namespace

TEST_CASE("switch sums: all zero is known without a previous sum", "[poller][sums]") {
  CHECK(judge_sum(nullptr, sum_of({{IB_PC_XMT_BYTES_F, 5000}})) == SumVerdict::zero);
  CHECK(judge_sum(nullptr, sum_of({{IB_PC_ERR_SYM_F, 1}})) == SumVerdict::moved);
  CHECK(judge_sum(nullptr, sum_of({{IB_PC_XMT_WAIT_F, 1}})) == SumVerdict::moved);
}

TEST_CASE("switch sums: equal error fields are unchanged and any rise has moved",
          "[poller][sums]") {
  CounterSample before = sum_of({{IB_PC_ERR_SYM_F, 7}, {IB_PC_XMT_BYTES_F, 100}});
  // Data counters move with traffic; that alone is no reason to read the ports.
  CHECK(judge_sum(&before, sum_of({{IB_PC_ERR_SYM_F, 7}, {IB_PC_XMT_BYTES_F, 900}})) ==
        SumVerdict::unchanged);
  CHECK(judge_sum(&before, sum_of({{IB_PC_ERR_SYM_F, 8}, {IB_PC_XMT_BYTES_F, 900}})) ==
        SumVerdict::moved);
  CHECK(judge_sum(
            &before,
            sum_of({{IB_PC_ERR_SYM_F, 7}, {IB_PC_LINK_DOWNED_F, 1}, {IB_PC_XMT_BYTES_F, 900}})) ==
        SumVerdict::moved);
  // PortXmitWait is in the test: congestion is read per port.
  CHECK(
      judge_sum(&before,
                sum_of({{IB_PC_ERR_SYM_F, 7}, {IB_PC_XMT_WAIT_F, 3}, {IB_PC_XMT_BYTES_F, 900}})) ==
      SumVerdict::moved);
}

TEST_CASE("switch sums: a data counter gone down is a reset and the ports are read",
          "[poller][sums]") {
  CounterSample before = sum_of({{IB_PC_ERR_SYM_F, 7}, {IB_PC_RCV_PKTS_F, 1000}});
  CHECK(judge_sum(&before, sum_of({{IB_PC_ERR_SYM_F, 7}, {IB_PC_RCV_PKTS_F, 10}})) ==
        SumVerdict::moved);
}

TEST_CASE("switch sums: a saturated sum field hides rises so it always moves", "[poller][sums]") {
  // 16-bit SymbolErrorCounter, 8-bit LinkDownedCounter, 4-bit LocalLinkIntegrityErrors.
  for (auto field : {std::pair{IB_PC_ERR_SYM_F, 0xFFFFu}, std::pair{IB_PC_LINK_DOWNED_F, 0xFFu},
                     std::pair{IB_PC_ERR_LOCALINTEG_F, 0xFu}}) {
    CounterSample at_max = sum_of({field});
    CHECK(at_max.saturated != 0);
    CHECK(judge_sum(&at_max, at_max) == SumVerdict::moved);
  }
  CounterSample below = sum_of({{IB_PC_ERR_LOCALINTEG_F, 14}});
  CHECK(judge_sum(&below, below) == SumVerdict::unchanged);
}

TEST_CASE("switch sums: known ports get their remembered error counters", "[poller][sums]") {
  SwitchSums sums;
  std::vector<int> ports = {1, 2, 5};
  std::vector<CounterSample> out;

  // Clean: zero sum, every port zero, nothing remembered needed.
  REQUIRE(sums.known(7, kSwitch, ports, sum_of({}), kT0, true, &out));
  REQUIRE(out.size() == 3);
  for (size_t k = 0; k < 3; ++k) {
    CHECK(out[k].port == ports[k]);
    CHECK(out[k].node_guid == kSwitch);
    CHECK(out[k].time_us == kT0);
    CHECK(out[k].has(Counter::SymbolErrorCounter));
    CHECK(out[k].has(Counter::PortXmitWait));
    CHECK_FALSE(out[k].has(Counter::PortXmitData));  // not read
    CHECK(out[k].get(Counter::SymbolErrorCounter) == 0);
    CHECK(out[k].extended);
  }

  // Errors on port 2: the sum moved, so the poller read the ports and remembers them.
  CounterSample moved = sum_of({{IB_PC_ERR_SYM_F, 40}});
  out.clear();
  CHECK_FALSE(sums.known(7, kSwitch, ports, moved, kT0 + 1, true, &out));
  CHECK(out.empty());
  CounterSample p1 = port_reading(1, 0), p2 = port_reading(2, 40), p5 = port_reading(5, 0);
  sums.remember(7, kSwitch, ports, moved, {&p1, &p2, &p5});

  // Next sweep, the same sum: port 2 keeps its 40, exactly; no data counters.
  REQUIRE(sums.known(7, kSwitch, ports, moved, kT0 + 2, true, &out));
  REQUIRE(out.size() == 3);
  CHECK(out[1].port == 2);
  CHECK(out[1].get(Counter::SymbolErrorCounter) == 40);
  CHECK(out[1].time_us == kT0 + 2);
  CHECK_FALSE(out[1].has(Counter::PortXmitData));
  CHECK(out[0].get(Counter::SymbolErrorCounter) == 0);

  // A port added or removed, or another node on the LID: read the ports again.
  out.clear();
  CHECK_FALSE(sums.known(7, kSwitch, {1, 2}, moved, kT0 + 3, true, &out));
  CHECK_FALSE(sums.known(7, kSwitch + 1, ports, moved, kT0 + 3, true, &out));
  CHECK(out.empty());
}

TEST_CASE("switch sums: a port that did not answer makes the switch unknown", "[poller][sums]") {
  SwitchSums sums;
  std::vector<int> ports = {1, 2};
  CounterSample moved = sum_of({{IB_PC_ERR_SYM_F, 3}});
  CounterSample p1 = port_reading(1, 3);
  sums.remember(9, kSwitch, ports, moved, {&p1, nullptr});
  CHECK(sums.size() == 0);
  std::vector<CounterSample> out;
  CHECK_FALSE(sums.known(9, kSwitch, ports, moved, kT0, true, &out));
}

TEST_CASE("switch sums: a sum below what its ports showed is not trusted", "[poller][sums]") {
  // ibsim adds PortXmitDiscards into the sum only up to 255: a port at 60000 set back to 30000
  // (a reset, then new discards) leaves the sum at 255, the same as before.
  SwitchSums sums;
  std::vector<int> ports = {3, 4};
  CounterSample clipped = sum_of({{IB_PC_XMT_DISCARDS_F, 255}});
  CounterSample p3 = port_reading(3, 0), p4 = port_reading(4, 0);
  p4.value[static_cast<size_t>(Counter::PortXmitDiscards)] = 60000;
  std::vector<CounterSample> out;
  CHECK_FALSE(sums.known(7, kSwitch, ports, clipped, kT0, true, &out));
  sums.remember(7, kSwitch, ports, clipped, {&p3, &p4});
  CHECK_FALSE(sums.known(7, kSwitch, ports, clipped, kT0 + 1, true, &out));  // read again
  CHECK(out.empty());
  // A sum that covers its ports' total is trusted as before.
  p4.value[static_cast<size_t>(Counter::PortXmitDiscards)] = 200;
  sums.remember(7, kSwitch, ports, clipped, {&p3, &p4});
  REQUIRE(sums.known(7, kSwitch, ports, clipped, kT0 + 2, true, &out));
  CHECK(out[1].get(Counter::PortXmitDiscards) == 200);
}
