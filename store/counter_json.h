// How counter arrays are kept in the store: JSON arrays in Counter enum order, one element per
// counter (ingest::kCounterCount of them), so they stay readable from the sqlite3 shell
// (json_extract(counter_values, '$[12]') is PortXmitData).
//
// - Values: unsigned 64-bit integers written in full decimal; read back exactly (SQLite's own
//   JSON functions see values above 2^63 as reals, our decoder does not).
// - Rates: doubles in the shortest form that reads back bit-identical (std::to_chars);
//   non-finite rates are the strings "inf", "-inf" and "nan" (JSON has no such numbers).
// Decoding accepts shorter arrays (missing trailing counters read as 0, so counters appended
// to the enum later stay compatible) and throws StoreError on anything malformed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "ingest/counters.h"

namespace ibw::store::counter_json {

using Values = std::array<uint64_t, ingest::kCounterCount>;
using Rates = std::array<double, ingest::kCounterCount>;

std::string encode_values(const Values& v);
std::string encode_rates(const Rates& r);
// `what` names the column for the error message.
Values decode_values(std::string_view text, std::string_view what);
Rates decode_rates(std::string_view text, std::string_view what);

}  // namespace ibw::store::counter_json
