// Feeds GET /app/events answers, both schema generations (<= 6.16 "type" as the number,
// >= 6.17 "event_type"), to ingest::parse_ufm_events (the streaming JSON scanner) and
// ingest::parse_ufm_event (one event, nlohmann), then maps every event as the poller does:
// to_event, ufm_dedup_key. The lenient parsers must never throw. The first input byte, when
// it is '@', is followed by a byte choosing the UFM server's UTC offset.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "ingest/ufm/events.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibw::ingest;
  UfmTimeContext tc;
  tc.utc_offset_s = ibw::fuzz::take_utc_offset(data, size);
  std::string_view text = ibw::fuzz::as_text(data, size);
  UfmParsed<UfmEvent> list = parse_ufm_events(text, tc);
  if (!list.ok && !list.items.empty()) __builtin_trap();
  for (const UfmEvent& e : list.items) {
    (void)to_event(e);
    (void)ufm_dedup_key(e);
  }
  if (std::optional<UfmEvent> one = parse_ufm_event(text, tc)) (void)to_event(*one);
  return 0;
}
