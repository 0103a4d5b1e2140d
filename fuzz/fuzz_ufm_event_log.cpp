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
  if (size >= 2 && data[0] == '@') {
    tc.utc_offset_s = (data[1] % 113 - 56) * 900;  // -14 h .. +14 h, as config allows
    data += 2, size -= 2;
  }
  ibw::fuzz::for_each_line(ibw::fuzz::as_text(data, size), [&](std::string_view line) {
    std::optional<UfmEvent> e = parse_ufm_event_log_line(line, tc);
    if (!e) return;
    (void)to_event(*e);
    (void)ufm_dedup_key(*e);
  });
  return 0;
}
