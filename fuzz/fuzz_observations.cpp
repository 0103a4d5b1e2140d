// Feeds route observations, the probe files of cursed-route localization (JSONL or CSV with
// a header; spool files, POST /probes bodies, `ibwarden localize` input), to
// ingest::parse_observations with the format guessed, forced to JSONL and forced to CSV;
// every record read is written back (observation_jsonl, observation_csv), and a JSONL line
// must parse again. Bad input must end in fabric::InputError, nothing else.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fabric/diagnostics.h"
#include "fuzz/fuzz_util.h"
#include "ingest/observation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibw::ingest;
  std::string_view text = ibw::fuzz::as_text(data, size);
  for (std::optional<ObservationFormat> format :
       {std::optional<ObservationFormat>{}, std::optional{ObservationFormat::jsonl},
        std::optional{ObservationFormat::csv}}) {
    std::vector<Observation> records;
    try {
      records = parse_observations(text, "fuzz-probes", format);
    } catch (const ibw::fabric::InputError&) {
      continue;
    }
    for (const Observation& o : records) {
      (void)observation_csv(o);
      std::string line = observation_jsonl(o);
      try {
        if (parse_observations(line, "again", ObservationFormat::jsonl).size() != 1)
          __builtin_trap();
      } catch (const ibw::fabric::InputError&) {
        __builtin_trap();  // what the writer wrote, the reader must read
      }
    }
  }
  return 0;
}
