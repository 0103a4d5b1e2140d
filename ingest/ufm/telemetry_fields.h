// Internal to ufm_telemetry*.cpp: how a telemetry field name is classified (identity column,
// counter, PHY field, known metadata, unknown). The table itself, with every alias, is in
// ufm_telemetry_fields.cpp; the mapping is documented in ufm_telemetry.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ingest/counters.h"

namespace ibw::ingest::ufm_telemetry_detail {

enum class Kind : uint8_t { meta, node_guid, port_guid, port, time, counter, phy, unknown };
enum class Phy : uint8_t {
  raw_ber,
  effective_ber,
  symbol_ber,
  effective_errors,
  symbol_errors,
  raw_lane,
  link_down,
  temperature,
  fec,
  speed,
  width,
  partner_guid,
  partner_port
};

struct Field {
  Kind kind = Kind::unknown;
  Counter counter = Counter::SymbolErrorCounter;
  Phy phy = Phy::raw_ber;
  int lane = 0;
};

// Case-insensitive; a "_u_<unit>" suffix and, for counters, an "Extended" suffix are ignored.
Field classify(std::string_view name);

}  // namespace ibw::ingest::ufm_telemetry_detail
