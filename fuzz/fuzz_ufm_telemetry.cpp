// Feeds UFM Telemetry answers to ingest::parse_telemetry_csv (/csv/metrics, /csv/xcset/...),
// ingest::parse_telemetry_prometheus (/metrics) and ingest::parse_telemetry (chooses by
// content). Every input goes to all three. Never throws.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "ingest/ufm/telemetry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibw::ingest;
  constexpr int64_t kNow = int64_t{1'795'000'000} * 1'000'000;
  std::string_view text = ibw::fuzz::as_text(data, size);
  for (const TelemetryParse& t :
       {parse_telemetry_csv(text, kNow), parse_telemetry_prometheus(text, kNow),
        parse_telemetry(text, kNow)}) {
    for (const TelemetryPhy& p : t.phy) (void)p.empty();
  }
  return 0;
}
