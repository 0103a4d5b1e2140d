// Feeds OpenSM log text, line by line as the tailer hands it over, to
// ingest::parse_opensm_line (which never throws) and maps every record to an event with both
// trap rules (ingest::to_event). The year-resolution reference time and the zone offset come
// from the first bytes of the input, so far-off references and odd offsets get fuzzed too.
// Every line the parser makes a trap, notice, SUBNET UP or ERR record of, or the heavy-sweep
// banner, must pass the daemon's prefilter (opensm_line_of_interest): a miss aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "ingest/opensm_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibw::ingest;
  OsmLogContext ctx;
  ctx.reference_us = int64_t{1'795'000'000} * 1'000'000;  // 2026-11-18
  if (size >= 3 && data[0] == '@') {  // "@" + offset byte + reference byte: other contexts
    ctx.utc_offset_s = (data[1] % 113 - 56) * 900;  // -14 h .. +14 h, as config allows
    ctx.reference_us += (int64_t{data[2]} - 128) * 30 * 86'400'000'000LL;  // +-10 years
    data += 3, size -= 3;
  }
  ibw::fuzz::for_each_line(ibw::fuzz::as_text(data, size), [&](std::string_view line) {
    std::optional<OsmRecord> r = parse_opensm_line(line, ctx);
    const bool interest = opensm_line_of_interest(line);
    if (!r) return;
    if (!interest &&
        (r->kind != OsmRecordKind::other && (r->kind != OsmRecordKind::sweep || r->banner)))
      std::abort();
    (void)to_event(*r, OsmTrapRule::notice_line);
    (void)to_event(*r, OsmTrapRule::trap_line);
  });
  return 0;
}
