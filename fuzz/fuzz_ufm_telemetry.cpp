// Feeds UFM Telemetry answers to ingest::parse_telemetry_csv (/csv/metrics, /csv/xcset/...),
// ingest::parse_telemetry_prometheus (/metrics) and ingest::parse_telemetry (chooses by
// content). Every input goes to all three, and to TelemetryStreamParser cut into pieces whose
// sizes come from the input itself, which must give what parse_telemetry() gives (aborts if
// not). Never throws.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
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
  const TelemetryParse whole = parse_telemetry(text, kNow);
  TelemetryStreamParser stream(kNow);
  for (size_t at = 0, i = 0; at < text.size(); ++i) {
    const size_t n = 1 + static_cast<uint8_t>(text[i % text.size()]) % 97;
    stream.feed(text.substr(at, n));
    at += std::min(n, text.size() - at);
  }
  const TelemetryParse parts = stream.finish();
  if (parts.ok != whole.ok || parts.error != whole.error || parts.rows != whole.rows ||
      parts.skipped != whole.skipped || parts.samples.size() != whole.samples.size() ||
      parts.phy.size() != whole.phy.size() || parts.unknown != whole.unknown)
    std::abort();
  for (size_t i = 0; i < whole.samples.size(); ++i)
    if (parts.samples[i].value != whole.samples[i].value ||
        parts.samples[i].node_guid != whole.samples[i].node_guid ||
        parts.samples[i].time_us != whole.samples[i].time_us)
      std::abort();
  return 0;
}
