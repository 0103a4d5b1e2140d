// decode_sm_info / decode_port_sm_fields on raw attributes (the SMPs themselves are proved in
// tests/integration/test_sm_watch_lab.cpp).
#include <catch2/catch.hpp>

#include "fabric/sm_info.h"

using namespace ibw;

TEST_CASE("decode_sm_info reads GUID ActCount priority and state", "[sm_info]") {
  uint8_t raw[64] = {};
  raw[7] = 0x04;                                       // GUID 0x...04
  raw[16] = 0, raw[17] = 0, raw[18] = 1, raw[19] = 2;  // ActCount 258
  raw[20] = 0x53;                                      // priority 5, state 3 (master)
  auto s = fabric::decode_sm_info(raw, 7);
  CHECK(s.guid == 4);
  CHECK(s.act_count == 258);
  CHECK(s.priority == 5);
  CHECK(s.state == fabric::SmState::master);
  CHECK(s.lid == 7);
}

TEST_CASE("decode_port_sm_fields reads MasterSMLID and IsSM", "[sm_info]") {
  uint8_t raw[64] = {};
  raw[18] = 0x00, raw[19] = 0x09;  // MasterSMLID 9
  raw[23] = 0x4a;                  // CapabilityMask ...4a: IsSM set
  auto f = fabric::decode_port_sm_fields(raw);
  CHECK(f.master_sm_lid == 9);
  CHECK(f.is_sm);
  raw[23] = 0x48;  // OpenSM gone: the bit clears
  CHECK_FALSE(fabric::decode_port_sm_fields(raw).is_sm);
}
