// Feeds UFM's /opt/ufm/log/event.log, line by line as the tailer hands it over, to
// ingest::parse_ufm_event_log_line, and maps every event (to_event, ufm_dedup_key). Never
// throws. A first line "@" + one byte chooses the UFM server's UTC offset.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "ingest/ufm/events.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibw::ingest;
  UfmTimeContext tc;
  tc.utc_offset_s = ibw::fuzz::take_utc_offset(data, size);
  ibw::fuzz::for_each_line(ibw::fuzz::as_text(data, size), [&](std::string_view line) {
    std::optional<UfmEvent> e = parse_ufm_event_log_line(line, tc);
    if (!e) return;
    (void)to_event(*e);
    (void)ufm_dedup_key(*e);
  });
  return 0;
}
