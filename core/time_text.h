// Times as text: ISO-8601 UTC with microseconds, the one format the store's JSON, the web API
// and the CLI's JSON print event, decision and incident times in.
#pragma once

#include <cstdint>
#include <string>

namespace ibw::core {

// "2026-11-27T17:18:33.856241Z"; "" for a time <= 0 (unknown).
std::string iso_time_us(int64_t time_us);

}  // namespace ibw::core
